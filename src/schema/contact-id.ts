import type { GraphQLResolveInfo } from 'graphql'
import type { Context } from '../context.js'
import { notFound } from '../errors/graphql-errors.js'
import type { CompanyIdentifier, CompanyKey } from '../upstream/resources/common.js'
import {
  type CompanyContact,
  type ContactFilters,
  companyContacts,
} from '../upstream/resources/company-contacts.js'
import { readWhole } from './reads.js'

/** Contact IDs: stable, unique among a company's contacts, revealing no name. */

/** A contact and its company; `key` is its ID's key when the read that brought it told it. */
export type ContactRef = CompanyContact & { company: CompanyIdentifier; key?: string }

/**
 * The key inside a Contact ID: `<country>:<number>:<person>.<role>[.<rank>]`, without contactId,
 * which the upstream may change. `person`: a keyed hash of company and full name (no name shows);
 * `role`: of the job title; `rank`: the place among namesakes in contactId order, counted over
 * the company's contacts read whole so it is the same on every page and filter. Without that
 * read, `~<id>` (a keyed hash of contactId) stands in: unique, though not the usual ID.
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

const CONTACT_KEY =
  /^(BE|NL|FR):(\d{1,20}):([\w-]{16})\.([\w-]{6})(?:\.([1-9]\d{0,3})|~([\w-]{6}))?$/

/** The key of a contact its company's contacts read does not rank. */
function unrankedKey(contact: CompanyContact, company: CompanyKey, ctx: Context) {
  const id = ctx.keyedHash(['contact-id', String(contact.identifier.contactId)], 6)
  return `${baseKey(contact, company, ctx)}~${id}`
}

export function contactKeyProblem(key: string): string | undefined {
  return CONTACT_KEY.test(key) ? undefined : 'Malformed Contact ID.'
}

/** Each contact's key in a company's contacts read whole, by contactId: made once per answer. */
const keysByAnswer = new WeakMap<object, Map<number, string>>()

function keysOf(items: readonly CompanyContact[], company: CompanyKey, ctx: Context) {
  let keys = keysByAnswer.get(items)
  if (keys) return keys
  keys = new Map()
  const seen = new Map<string, number>()
  for (const item of items.toSorted((a, b) => a.identifier.contactId - b.identifier.contactId)) {
    const base = baseKey(item, company, ctx)
    const rank = seen.get(base) ?? 0
    seen.set(base, rank + 1)
    keys.set(item.identifier.contactId, withRank(base, rank))
  }
  keysByAnswer.set(items, keys)
  return keys
}

const withRank = (base: string, rank: number) => (rank === 0 ? base : `${base}.${rank}`)

export function contactsOf(
  company: CompanyKey,
  filters: ContactFilters,
  ctx: Context,
  info: GraphQLResolveInfo,
) {
  return readWhole(ctx, info, companyContacts, { company, ...filters })
}

/**
 * The keys of the contacts `within` (a filtered read, a list's contacts), ranked over `all`. One
 * `all` does not hold (renumbered since it was cached) keeps its rank where its namesakes are as
 * many in both (renumbering keeps their order); otherwise, or without `all`, it is unranked.
 */
export function keysAmong(
  within: readonly CompanyContact[],
  all: readonly CompanyContact[] | undefined,
  company: CompanyKey,
  ctx: Context,
): Map<number, string> {
  const ranked = all ? keysOf(all, company, ctx) : new Map<number, string>()
  if (within === all) return ranked
  const baseOf = (key: string) => key.replace(/\.\d+$/, '')
  const inAll = new Map<string, number>()
  for (const key of ranked.values()) inAll.set(baseOf(key), (inAll.get(baseOf(key)) ?? 0) + 1)
  const namesakes = new Map<string, number[]>()
  for (const item of within) {
    const base = baseKey(item, company, ctx)
    namesakes.set(base, [...(namesakes.get(base) ?? []), item.identifier.contactId])
  }
  const keys = new Map<number, string>()
  for (const item of within) {
    const id = item.identifier.contactId
    const base = baseKey(item, company, ctx)
    const group = (namesakes.get(base) ?? []).toSorted((a, b) => a - b)
    const rank = group.indexOf(id)
    const own = group.length === inAll.get(base) ? withRank(base, rank) : undefined
    keys.set(id, ranked.get(id) ?? own ?? unrankedKey(item, company, ctx))
  }
  return keys
}

/** A contact's key; its company's contacts read failing costs it its usual ID, never null. */
export async function keyOf(
  contact: ContactRef,
  ctx: Context,
  info: GraphQLResolveInfo,
): Promise<string> {
  if (contact.key !== undefined) return contact.key
  const all = await contactsOf(contact.company, {}, ctx, info).catch(() => undefined)
  const key = keysAmong([contact], all?.items, contact.company, ctx).get(
    contact.identifier.contactId,
  )
  return key ?? unrankedKey(contact, contact.company, ctx)
}

/** A contact by its ID's key. Without a rank the key may be older, its job title in another
 *  language: then the only person of that name. NOT_FOUND when nobody has it any more. */
export async function contactByKey(
  key: string,
  ctx: Context,
  info: GraphQLResolveInfo,
): Promise<ContactRef> {
  const [country, companyNumber] = key.split(':') as [CompanyKey['country'], string]
  const { first, items } = await contactsOf({ country, companyNumber }, {}, ctx, info)
  const keys = keysOf(items, first.identifier, ctx)
  const unranked = key.includes('~')
  const found = items.filter((item) =>
    unranked
      ? unrankedKey(item, first.identifier, ctx) === key
      : keys.get(item.identifier.contactId) === key,
  )
  const person = key.slice(0, key.indexOf('.'))
  const match = CONTACT_KEY.exec(key)
  const namesakes =
    match?.[5] || match?.[6]
      ? []
      : items.filter((item) => keys.get(item.identifier.contactId)?.startsWith(`${person}.`))
  const [only] = found.length > 0 ? found : namesakes.length === 1 ? namesakes : []
  if (!only) {
    throw notFound('No contact with this ID: the person is no longer among the company’s contacts.')
  }
  return { ...only, company: first.identifier, key }
}
