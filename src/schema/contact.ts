import type { Context } from '../context.js'
import { badUserInput, notFound } from '../errors/graphql-errors.js'
import type { Part } from '../loaders/company-directory.js'
import type { CompanyIdentifier, CompanyKey } from '../upstream/resources/common.js'
import { type CompanyContact, companyContacts } from '../upstream/resources/company-contacts.js'
import { listContacts } from '../upstream/resources/list-contacts.js'
import {
  argumentBounds,
  CODE_LIST_LIMITS,
  codeList,
  distinctCodes,
  MAX_SEARCH_LENGTH,
  searchText,
} from './argument-bounds.js'
import { builder } from './builder.js'
import { CompanyType, companyFromId } from './company.js'
import { partOf } from './defer-part.js'
import { ListNode } from './list.js'
import { connectionKey, MAX_PAGE, pageOverOffsets, sliceOf } from './paging.js'
import { readBacked } from './semantic-non-null.js'
import { pagedCost, upstreamCost } from './upstream-cost.js'

/** Contact persons, of a company or saved in a list. */

export type ContactRef = CompanyContact & { company: CompanyIdentifier }

const contactOf = (item: CompanyContact, company: CompanyIdentifier): ContactRef => ({
  ...item,
  company,
})

/**
 * The key inside a Contact ID: `<country>:<number>:<person>.<role>`. contactId is left out,
 * because the upstream may change it; `person` is a keyed hash (GATEWAY_SECRET) of the company
 * and the full name, so the ID reveals no name; `role` is a short keyed hash of the job title,
 * which tells apart two people of one name in one company. The job title is in the caller's
 * language, so `node()` falls back to the name alone when that is unambiguous.
 */
function personTags(contact: CompanyContact, company: CompanyKey, ctx: Context) {
  const person = [
    company.country,
    company.companyNumber,
    contact.identifier.firstName ?? '',
    contact.identifier.lastName ?? '',
  ]
  return {
    person: ctx.keyedHash(['contact', ...person], 16),
    role: ctx.keyedHash(['contact-role', ...person, contact.jobTitle ?? ''], 6),
  }
}

const CONTACT_KEY = /^(BE|NL|FR):(\d{1,20}):([\w-]{16})\.([\w-]{6})$/

/**
 * The people of one contacts answer by person tag, made once per answer: node() of many IDs of
 * one company hashes its contacts once, not once per ID.
 */
const peopleByTag = new WeakMap<object, Map<string, { item: CompanyContact; role: string }[]>>()

function peopleOf(
  page: { data: readonly CompanyContact[] },
  company: CompanyKey,
  ctx: Context,
): Map<string, { item: CompanyContact; role: string }[]> {
  let people = peopleByTag.get(page)
  if (!people) {
    people = new Map()
    for (const item of page.data) {
      const { person, role } = personTags(item, company, ctx)
      people.set(person, [...(people.get(person) ?? []), { item, role }])
    }
    peopleByTag.set(page, people)
  }
  return people
}

/**
 * A contact by the key of its ID, from its company's contacts: one read of up to 500 (more only
 * for a company with more contacts). NOT_FOUND when nobody there has that name any more.
 */
export async function contactByKey(key: string, ctx: Context, part: Part): Promise<ContactRef> {
  const match = CONTACT_KEY.exec(key)
  if (!match) throw badUserInput('Malformed Contact ID.', 'id')
  const [, country, number, person, role] = match as unknown as [string, ...string[]]
  const company = companyFromId(`${country}:${number}`)
  const namesakes: ContactRef[] = []
  for (let offset = 0; ; offset += MAX_PAGE) {
    const page = await ctx.loaders.companies.read(
      companyContacts,
      { company, limit: MAX_PAGE, offset },
      part,
    )
    for (const candidate of peopleOf(page, company, ctx).get(person ?? '') ?? []) {
      const contact = contactOf(
        candidate.item,
        ctx.loaders.companies.remember(page.identifier, part),
      )
      if (candidate.role === role) return contact
      namesakes.push(contact)
    }
    if (offset + MAX_PAGE >= page.pagination.total) break
  }
  const [only, ...others] = namesakes
  if (only && others.length === 0) return only
  throw notFound('No contact with this ID: the person is no longer among the company’s contacts.')
}

const ContactNode = builder.node(builder.objectRef<ContactRef>('Contact'), {
  description: 'A contact person of a company.',
  id: {
    description:
      'Stable, opaque global ID: the same person keeps it when the upstream changes their contactId; it reveals no name.',
    resolve: (c, _args, ctx) => {
      const { person, role } = personTags(c, c.company, ctx)
      return `${c.company.country}:${c.company.companyNumber}:${person}.${role}`
    },
  },
  fields: (t) => ({
    contactId: t.int({
      description:
        'Upstream identifier of the contact. It can change, rarely: use `id` as the key.',
      resolve: (c) => c.identifier.contactId,
    }),
    firstName: t.string({
      nullable: true,
      description: 'First name; null when the upstream has none.',
      resolve: (c) => c.identifier.firstName,
    }),
    lastName: t.string({
      nullable: true,
      description: 'Last name; null when the upstream has none.',
      resolve: (c) => c.identifier.lastName,
    }),
    jobTitle: t.exposeString('jobTitle', {
      nullable: true,
      description: 'Job title, in the language selected by Accept-Language (nl, fr or en).',
    }),
    company: t.expose('company', {
      type: CompanyType,
      description: 'The company the contact works for.',
      extensions: upstreamCost({ companies: 'carried' }),
    }),
  }),
})

const ContactConnection = builder.connectionObject(
  { type: ContactNode, name: 'ContactConnection', description: 'A page of contact persons.' },
  { name: 'ContactEdge', description: 'A contact person and its cursor.' },
)

builder.objectField(CompanyType, 'contacts', (t) =>
  t.connection(
    {
      ...readBacked,
      type: ContactNode,
      description:
        'Contact persons of the company, filtered upstream. Relay paging, at most 500 per page, 20 by default.',
      args: {
        q: t.arg.string({
          description: `Searches first name, last name and job title: 1 to ${MAX_SEARCH_LENGTH} characters.`,
        }),
        onlyOfficialRoles: t.arg.boolean({
          defaultValue: false,
          required: false,
          description: 'Only contacts with an official role (founder, director …).',
        }),
        seniorities: t.arg.stringList({
          description: `Only these seniorities, e.g. C_LEVEL, NON_MANAGEMENT (any of them matches); ${CODE_LIST_LIMITS}.`,
        }),
        departments: t.arg.stringList({
          description: `Only these departments, e.g. SOFTWARE_ENGINEERING, PRODUCT_MANAGEMENT; ${CODE_LIST_LIMITS}.`,
        }),
        officialRoles: t.arg.stringList({
          description: `Only these official roles, e.g. FOUNDER, COOWNER; ${CODE_LIST_LIMITS}.`,
        }),
      },
      extensions: {
        ...pagedCost(),
        ...argumentBounds({
          q: searchText,
          seniorities: codeList,
          departments: codeList,
          officialRoles: codeList,
        }),
      },
      resolve: (
        company,
        { q, onlyOfficialRoles, seniorities, departments, officialRoles, ...args },
        ctx,
        info,
      ) => {
        const filters = {
          q: q ?? undefined,
          // false is the documented upstream default: leaving it out makes equal reads one read.
          onlyOfficialRoles: onlyOfficialRoles === true ? true : undefined,
          seniorities: distinctCodes(seniorities),
          departments: distinctCodes(departments),
          officialRoles: distinctCodes(officialRoles),
        }
        const connection = connectionKey(
          'companyContacts',
          company.country,
          company.companyNumber,
          // q also searches job titles, which come in the caller's language.
          ctx.operation.caller.language,
          filters.q,
          filters.onlyOfficialRoles,
          filters.seniorities,
          filters.departments,
          filters.officialRoles,
        )
        return pageOverOffsets(connection, args, async (offset, limit) => {
          const page = await ctx.loaders.companies.read(
            companyContacts,
            { company, ...filters, limit, offset },
            partOf(info),
          )
          const { items, total } = sliceOf(page)
          return { items: items.map((item) => contactOf(item, page.identifier)), total }
        })
      },
    },
    ContactConnection,
  ),
)

builder.objectField(ListNode, 'contacts', (t) =>
  t.connection(
    {
      ...readBacked,
      type: ContactNode,
      description:
        'Contact persons saved in the list, each with its company. Relay paging, at most 500 per page.',
      extensions: pagedCost(),
      resolve: (list, args, ctx, info) => {
        const part = partOf(info)
        return pageOverOffsets(
          connectionKey('listContacts', list.id),
          args,
          (offset, limit) =>
            ctx.loaders.companies
              .naming(
                ctx.loaders.upstream.read(listContacts, { listId: list.id, limit, offset }),
                part,
              )
              .then(sliceOf),
          ({ company, ...item }) => ({
            node: contactOf(item, ctx.loaders.companies.remember(company, part)),
          }),
        )
      },
    },
    ContactConnection,
  ),
)
