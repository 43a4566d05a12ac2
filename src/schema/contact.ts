import { z } from 'zod'
import { builder } from '../builder.js'
import { badUserInput } from '../errors.js'
import { pageOverOffsets, sliceOf } from '../paging.js'
import { type CompanyIdentifier, country } from '../upstream/common.js'
import { type CompanyContact, companyContacts } from '../upstream/company-contacts.js'
import { listContacts } from '../upstream/list-contacts.js'
import { CompanyType, companyKey } from './company.js'
import { ListNode } from './list.js'

/** Contact persons, of a company or saved in a list. */

export type ContactRef = CompanyContact & { company: CompanyIdentifier }

const contactOf = (item: CompanyContact, company: CompanyIdentifier): ContactRef => ({
  ...item,
  company,
})

/** The natural key inside a Contact ID: contactId alone can change, so names come along. */
const contactKey = z.tuple([
  country,
  z.string(),
  z.number().int(),
  z.string().nullable(),
  z.string().nullable(),
])

export const ContactNode = builder.node(builder.objectRef<ContactRef>('Contact'), {
  description: 'A contact person of a company.',
  id: {
    description:
      'Stable global ID: built from the company, contactId and name, because contactId alone can change.',
    resolve: (c) =>
      JSON.stringify([
        c.company.country,
        c.company.companyNumber,
        c.identifier.contactId,
        c.identifier.firstName,
        c.identifier.lastName,
      ]),
  },
  // Found again by searching the company's contacts for the name, then matching id and name,
  // or the name alone when the contactId has changed since the ID was made.
  loadOne: async (id, ctx) => {
    let key: z.output<typeof contactKey>
    try {
      key = contactKey.parse(JSON.parse(id))
    } catch {
      throw badUserInput('Malformed Contact ID.', 'id')
    }
    const [country, number, contactId, firstName, lastName] = key
    const company = companyKey(country, number, 'id')
    const found = await ctx.loaders.companies.read(companyContacts, {
      company,
      q: lastName || firstName || undefined,
      limit: 500,
      offset: 0,
    })
    const sameName = found.data.filter(
      (c) => c.identifier.firstName === firstName && c.identifier.lastName === lastName,
    )
    const match =
      sameName.find((c) => c.identifier.contactId === contactId) ??
      (sameName.length === 1 ? sameName[0] : undefined)
    return match ? contactOf(match, ctx.loaders.companies.remember(found.identifier)) : null
  },
  fields: (t) => ({
    contactId: t.int({
      description:
        'Upstream identifier of the contact. It can change, rarely: use `id` as the key.',
      resolve: (c) => c.identifier.contactId,
    }),
    firstName: t.string({
      nullable: true,
      description: 'First name.',
      resolve: (c) => c.identifier.firstName,
    }),
    lastName: t.string({
      nullable: true,
      description: 'Last name.',
      resolve: (c) => c.identifier.lastName,
    }),
    jobTitle: t.exposeString('jobTitle', {
      nullable: true,
      description: 'Job title, in the language selected by Accept-Language (nl, fr or en).',
    }),
    company: t.expose('company', {
      type: CompanyType,
      description: 'The company the contact works for.',
    }),
  }),
})

const ContactConnection = builder.connectionObject(
  { type: ContactNode, name: 'ContactConnection', description: 'A page of contact persons.' },
  { name: 'ContactEdge', description: 'A contact person and its cursor.' },
)

/** A filter value goes upstream comma-separated: it must be non-empty and hold no comma. */
function filterValues(values: readonly string[] | null | undefined, argument: string) {
  if (values?.some((v) => v.trim() === '' || v.includes(','))) {
    throw badUserInput(`${argument} values must be non-empty and contain no comma.`, argument)
  }
  return values ?? undefined
}

builder.objectField(CompanyType, 'contacts', (t) =>
  t.connection(
    {
      type: ContactNode,
      description:
        'Contact persons of the company, filtered upstream. Relay paging, at most 500 per page, 20 by default.',
      args: {
        q: t.arg.string({ description: 'Searches first name, last name and job title.' }),
        onlyOfficialRoles: t.arg.boolean({
          defaultValue: false,
          required: false,
          description: 'Only contacts with an official role (founder, director …).',
        }),
        seniorities: t.arg.stringList({
          description:
            'Only these seniorities, e.g. C_LEVEL, NON_MANAGEMENT (any of them matches).',
        }),
        departments: t.arg.stringList({
          description: 'Only these departments, e.g. SOFTWARE_ENGINEERING, PRODUCT_MANAGEMENT.',
        }),
        officialRoles: t.arg.stringList({
          description: 'Only these official roles, e.g. FOUNDER, COOWNER.',
        }),
      },
      resolve: (
        company,
        { q, onlyOfficialRoles, seniorities, departments, officialRoles, ...args },
        ctx,
      ) => {
        if (q?.trim() === '')
          throw badUserInput('q must not be empty; leave it out to search nothing.', 'q')
        const filters = {
          q: q ?? undefined,
          // false is the documented upstream default: leaving it out makes equal reads one read.
          onlyOfficialRoles: onlyOfficialRoles === true ? true : undefined,
          seniorities: filterValues(seniorities, 'seniorities'),
          departments: filterValues(departments, 'departments'),
          officialRoles: filterValues(officialRoles, 'officialRoles'),
        }
        return pageOverOffsets('companyContacts', args, async (offset, limit) => {
          const page = await ctx.loaders.companies.read(companyContacts, {
            company,
            ...filters,
            limit,
            offset,
          })
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
      type: ContactNode,
      description:
        'Contact persons saved in the list, each with its company. Relay paging, at most 500 per page.',
      resolve: (list, args, ctx) =>
        pageOverOffsets(
          'listContacts',
          args,
          (offset, limit) =>
            ctx.loaders.upstream
              .read(listContacts, { listId: list.id, limit, offset })
              .then(sliceOf),
          ({ company, ...item }) => ({
            node: contactOf(item, ctx.loaders.companies.remember(company)),
          }),
        ),
    },
    ContactConnection,
  ),
)
