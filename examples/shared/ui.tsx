import { Fragment, type ReactNode, useEffect, useState } from 'react'

/** A GatewayError as both kits give it (clients/*\/gateway-answers.ts). */
interface ShownError {
  code: string
  message: string
  retryable: boolean
  retryAfterSeconds?: number
  path?: readonly (string | number)[]
  requestId?: string
}

/** The errors a UI shows: code, whether trying again can help, and the request id to quote. */
export function Errors({ errors }: { errors: readonly ShownError[] }) {
  return (
    <div role="alert">
      {errors.map((error) => (
        <p key={`${error.code}:${error.path?.join('.')}:${error.message}`}>
          <code>{error.code}</code> {error.message}
          {error.retryable ? ' (try again' : ' (will not change'}
          {error.retryAfterSeconds !== undefined && ` in ${error.retryAfterSeconds} s`})
          {error.requestId && <small> request {error.requestId}</small>}
        </p>
      ))}
    </div>
  )
}

/** The request id of the page's answer, and a notice when some of it came stale from the cache. */
export function AnswerInfo({ info }: { info: { requestId?: string; stale: boolean } | null }) {
  return (
    <footer>
      {info?.stale && (
        <p role="status">Some of this page is from the cache: the source is failing.</p>
      )}
      <small>request {info?.requestId}</small>
    </footer>
  )
}

/** The pages of an example app, by route. */
export interface Pages {
  lists: () => ReactNode
  list: (listId: number) => ReactNode
  company: (country: string, number: string) => ReactNode
}

/**
 * The page of `#/`, `#/list/<listId>` or `#/company/<country>/<number>` under the nav, in `frame`
 * (an error boundary, Suspense); both start afresh when the route changes.
 */
export function Routes({
  pages,
  frame = (page) => page,
}: {
  pages: Pages
  frame?: (page: ReactNode) => ReactNode
}) {
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const update = () => setHash(location.hash)
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  const [page, a, b] = hash.replace(/^#\/?/, '').split('/')
  const shown =
    page === 'list'
      ? pages.list(Number(a))
      : page === 'company' && a && b
        ? pages.company(a, b)
        : pages.lists()
  return (
    <>
      <nav>
        <a href="#/">All lists</a>
      </nav>
      <Fragment key={hash}>{frame(shown)}</Fragment>
    </>
  )
}

/** The gateway's URL: the one line an app adds to the kit (here from ?gateway=, for the tests). */
export const gatewayUrl =
  new URLSearchParams(location.search).get('gateway') ?? 'http://localhost:4000/graphql'

/** The lists, each a link to its page. */
export function ListLinks({
  lists,
}: {
  lists: readonly { id: string; listId: number; name: string; companyCount: number }[]
}) {
  return (
    <ul>
      {lists.map((list) => (
        <li key={list.id}>
          <a href={`#/list/${list.listId}`}>{list.name}</a> ({list.companyCount})
        </li>
      ))}
    </ul>
  )
}

interface Company {
  id: string
  country: string
  number: string
  name?: string | null
}

/** A list's companies shown so far, and the button that loads more or retries the failed page. */
export function CompanyRows({
  companies,
  totalCount,
  more,
}: {
  companies: readonly Company[]
  totalCount: number
  more: {
    loadMore: () => unknown
    loading: boolean
    hasMore: boolean
    errors: readonly ShownError[] | null
  }
}) {
  return (
    <section>
      <p>
        {companies.length} of {totalCount} companies
      </p>
      <ol>
        {companies.map((company) => (
          <li key={company.id}>
            <a href={`#/company/${company.country}/${company.number}`}>
              {company.name ?? company.number}
            </a>
          </li>
        ))}
      </ol>
      {more.errors && <Errors errors={more.errors} />}
      {more.hasMore && (
        <button type="button" onClick={() => more.loadMore()} disabled={more.loading}>
          {more.errors ? 'Retry' : 'Load more'}
        </button>
      )}
    </section>
  )
}

/** A company's latest statements. */
export function FinancialsTable({
  statements,
}: {
  statements: readonly { endDate: string; profitability: { revenue?: number | null } }[]
}) {
  return (
    <table>
      <tbody>
        {statements.map((statement) => (
          <tr key={statement.endDate}>
            <td>{statement.endDate}</td>
            <td>{statement.profitability.revenue ?? '–'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** A company's shareholders. */
export function OwnersList({
  owners,
}: {
  owners: readonly {
    company?: { id: string } | null
    name?: string | null
    percentage?: number | null
  }[]
}) {
  return (
    <ul className="owners">
      {owners.map((owner) => (
        <li key={owner.company?.id ?? `${owner.name}:${owner.percentage}`}>
          {owner.name ?? 'unnamed'} {owner.percentage != null && `${owner.percentage * 100} %`}
        </li>
      ))}
    </ul>
  )
}
