import type { GraphQLResolveInfo } from 'graphql'
import type { Context } from '../context.js'
import { notFound } from '../errors/graphql-errors.js'
import type { CompanyIdentifier, CompanyKey } from '../upstream/resources/common.js'
import {
  type CompanyContact,
  type ContactFilters,
  companyContacts,
} from '../upstream/resources/company-contacts.js'
import { listContacts } from '../upstream/resources/list-contacts.js'
import {
  CODE_LIST_LIMITS,
  codeList,
  distinctCodes,
  MAX_SEARCH_LENGTH,
  searchText,
} from './argument-checks.js'
import { builder } from './builder.js'
import { CompanyType } from './company.js'
import { ListNode } from './list.js'
import { connectionKey, pageOverOffsets, sliceOf } from './paging.js'
import { read, readWhole } from './reads.js'
import { readBacked } from './semantic-non-null.js'
import { pagedCost, upstreamCost, wholeCost } from './upstream-cost.js'

/** Contact persons, of a company or saved in a list. */

/** A contact and its company; `key` is its ID's key when the read that brought it told it. */
export type ContactRef = CompanyContact & { company: CompanyIdentifier; key?: string }

/**
 * The key inside a Contact ID: `<country>:<number>:<person>.<role>[.<rank>]`. contactId is left
 * out, because the upstream may change it; `person` is a keyed hash (GATEWAY_SECRET) of the
 * company and the full name, so the ID reveals no name; `role` a short keyed hash of the job
 * title, which tells apart two people of one name; `rank`, for people of one company who agree
 * on both, their place among them in contactId order (the first has none). Ranks are counted
 * over the company's contacts read whole, so a person has the same ID on every page and filter.
 */
function baseKey(contact: CompanyContact, company: CompanyKey, ctx: Context) {
  const person = [
    company.country,
    company.companyNumber,
    contact.identifier.firstName ?? '',
    contact.identifier.lastName ?? '',
  ]
  const tag = ctx.keyedHash(['contact', ...person], 16)
  const role = ctx.keyedHash(['contact-role', ...person, contact.jobTitle ?? ''], 6)
  return `${company.country}:${company.companyNumber}:${tag}.${role}`
}

const CONTACT_KEY = /^(BE|NL|FR):(\d{1,20}):([\w-]{16})\.([\w-]{6})(?:\.([1-9]\d{0,3}))?$/

/** Whether a Contact ID's key is well formed (node() refuses others before running). */
export function contactKeyProblem(key: string): string | undefined {
  return CONTACT_KEY.test(key) ? undefined : 'Malformed Contact ID.'
}

/** Each contact's key in a company's contacts read whole, by contactId: made once per answer. */
const keysByAnswer = new WeakMap<object, Map<number, string>>()

function keysOf(items: readonly CompanyContact[], company: CompanyKey, ctx: Context) {
  let keys = keysByAnswer.get(items)
  if (!keys) {
    keys = new Map()
    const byContactId = items.toSorted((a, b) => a.identifier.contactId - b.identifier.contactId)
    const seen = new Map<string, number>()
    for (const item of byContactId) {
      const base = baseKey(item, company, ctx)
      const rank = seen.get(base) ?? 0
      seen.set(base, rank + 1)
      keys.set(item.identifier.contactId, rank === 0 ? base : `${base}.${rank}`)
    }
    keysByAnswer.set(items, keys)
  }
  return keys
}

/** A company's contacts, read whole (500 at once, more only for a company with more). */
function contactsOf(
  company: CompanyKey,
  filters: ContactFilters,
  ctx: Context,
  info: GraphQLResolveInfo,
) {
  return readWhole(ctx, info, companyContacts, { company, ...filters })
}

/** A contact's key, from its company's contacts read whole (what a list's contacts lack). */
async function keyOf(contact: ContactRef, ctx: Context, info: GraphQLResolveInfo): Promise<string> {
  if (contact.key !== undefined) return contact.key
  const all = await contactsOf(contact.company, {}, ctx, info)
  return (
    keysOf(all.items, contact.company, ctx).get(contact.identifier.contactId) ??
    baseKey(contact, contact.company, ctx)
  )
}

/**
 * A contact by the key of its ID, from its company's contacts read whole. Without a rank the key
 * may be an older one whose job title was in another language: the only person of that name
 * then. NOT_FOUND when nobody there has it any more.
 */
export async function contactByKey(
  key: string,
  ctx: Context,
  info: GraphQLResolveInfo,
): Promise<ContactRef> {
  const [country, companyNumber] = key.split(':') as [CompanyKey['country'], string]
  const { first, items } = await contactsOf({ country, companyNumber }, {}, ctx, info)
  const keys = keysOf(items, first.identifier, ctx)
  const found = items.filter((item) => keys.get(item.identifier.contactId) === key)
  const person = key.slice(0, key.indexOf('.'))
  const namesakes = CONTACT_KEY.exec(key)?.[5]
    ? []
    : items.filter((item) => keys.get(item.identifier.contactId)?.startsWith(`${person}.`))
  const [only] = found.length > 0 ? found : namesakes.length === 1 ? namesakes : []
  if (!only) {
    throw notFound('No contact with this ID: the person is no longer among the company’s contacts.')
  }
  return { ...only, company: first.identifier, key }
}

const ContactNode = builder.node(builder.objectRef<ContactRef>('Contact'), {
  description: 'A contact person of a company.',
  id: {
    description:
      'Stable, opaque global ID, unique among the company’s contacts (two people of the same name and job title get different IDs): the same person keeps it when the upstream changes their contactId; it reveals no name.',
    // It reads the company's contacts unless the read that brought the contact ranked them.
    extensions: upstreamCost({ reads: 1, unlessCarried: true }),
    resolve: (contact, _args, ctx, info) => keyOf(contact, ctx, info),
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
      extensions: upstreamCost({ brings: 'carried' }),
    }),
  }),
})

const ContactConnection = builder.connectionObject(
  { type: ContactNode, name: 'ContactConnection', description: 'A page of contact persons.' },
  { name: 'ContactEdge', description: 'A contact person and its cursor.' },
)

/** Whether a contacts read filters: then the unfiltered read ranks namesakes for the IDs. */
const filtered = (filters: ContactFilters) => Object.values(filters).some((v) => v !== undefined)

builder.objectField(CompanyType, 'contacts', (t) =>
  t.connection(
    {
      ...readBacked,
      type: ContactNode,
      description:
        'Contact persons of the company, filtered upstream. The gateway reads them whole (one upstream call for up to 500, and one more unfiltered when a filter is given, for stable IDs) and pages them. Relay paging, at most 500 per page, 20 by default.',
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
      extensions: wholeCost(
        { reads: (args) => (filtered(filtersOf(args)) ? 2 : 1), brings: 'carried' },
        searchText('q'),
        codeList('seniorities'),
        codeList('departments'),
        codeList('officialRoles'),
      ),
      resolve: (company, { first, after, last, before, ...given }, ctx, info) => {
        const filters = filtersOf(given)
        const connection = connectionKey(
          'companyContacts',
          company.country,
          company.companyNumber,
          // q also searches job titles, which come in the caller's language.
          ctx.operation.caller.language,
          ...Object.values(filters),
        )
        return pageOverOffsets(
          connection,
          { first, after, last, before },
          async (offset, limit) => {
            const [found, all] = await Promise.all([
              contactsOf(company, filters, ctx, info),
              filtered(filters) ? contactsOf(company, {}, ctx, info) : undefined,
            ])
            const owner = found.first.identifier
            const keys = keysOf((all ?? found).items, owner, ctx)
            const items = found.items.slice(offset, offset + limit).map((item) => {
              const key = keys.get(item.identifier.contactId)
              return key === undefined
                ? { ...item, company: owner }
                : { ...item, company: owner, key }
            })
            return { items, total: found.items.length }
          },
        )
      },
    },
    ContactConnection,
  ),
)

/** The upstream filters of a contacts field's arguments, as they are sent (equal ones alike). */
function filtersOf(args: Record<string, unknown>): ContactFilters {
  return {
    q: (args.q as string | null | undefined) ?? undefined,
    // false is the documented upstream default: leaving it out makes equal reads one read.
    onlyOfficialRoles: args.onlyOfficialRoles === true ? true : undefined,
    seniorities: distinctCodes(args.seniorities as string[] | null | undefined),
    departments: distinctCodes(args.departments as string[] | null | undefined),
    officialRoles: distinctCodes(args.officialRoles as string[] | null | undefined),
  }
}

builder.objectField(ListNode, 'contacts', (t) =>
  t.connection(
    {
      ...readBacked,
      type: ContactNode,
      description:
        "Contact persons saved in the list, each with its company. A contact's ID takes its company's contacts read whole (shared by every field that reads them). Relay paging, at most 500 per page.",
      extensions: pagedCost({ brings: 'bare' }),
      resolve: (list, args, ctx, info) =>
        pageOverOffsets(
          connectionKey('listContacts', list.id),
          args,
          (offset, limit) =>
            read(ctx, info, listContacts, { listId: list.id, limit, offset }).then(sliceOf),
          (item) => ({ node: item }),
        ),
    },
    ContactConnection,
  ),
)
