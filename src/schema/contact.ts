import type { ContactFilters } from '../upstream/resources/company-contacts.js'
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
import { type ContactRef, contactsOf, keyOf, keysAmong } from './contact-id.js'
import { ListNode } from './list.js'
import { connectionKey, pageOverOffsets, sliceOf } from './paging.js'
import { read } from './reads.js'
import { readBacked } from './semantic-non-null.js'
import { pagedCost, upstreamCost, wholeCost } from './upstream-cost.js'

/** Contact persons, of a company or saved in a list. */
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
            const found = contactsOf(company, filters, ctx, info)
            // The unfiltered read ranks namesakes (src/schema/contact-id.ts).
            const all = filtered(filters) && contactsOf(company, {}, ctx, info).catch(() => {})
            const { first, items: whole } = await found
            const owner = first.identifier
            const keys = keysAmong(whole, all ? (await all)?.items : whole, owner, ctx)
            const items = whole.slice(offset, offset + limit).map((item) => ({
              ...item,
              company: owner,
              key: keys.get(item.identifier.contactId),
            }))
            return { items, total: whole.length }
          },
          (item) => ({ node: item }),
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
