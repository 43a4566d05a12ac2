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
 * The key inside a Contact ID: `<country>:<number>:<person>.<role>[.<rank>]`. contactId is left
 * out, because the upstream may change it; `person` is a keyed hash (GATEWAY_SECRET) of the
 * company and the full name, so the ID reveals no name; `role` a short keyed hash of the job
 * title, which tells apart two people of one name; `rank`, for people of one company who agree
 * on both, their place among them in contactId order (the first has none). Ranks are counted
 * over the company's contacts read whole, so a person has the same ID on every page and filter.
 * Where that read is not in hand (it failed, or it no longer holds the person: renumbered since
 * it was cached), `~<id>`, a short keyed hash of the contactId, stands in for the rank: unique
 * still, though not the ID the person has elsewhere.
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

/** The key of a contact its company's contacts read does not rank (see baseKey). */
function unrankedKey(contact: CompanyContact, company: CompanyKey, ctx: Context) {
  const id = ctx.keyedHash(['contact-id', String(contact.identifier.contactId)], 6)
  return `${baseKey(contact, company, ctx)}~${id}`
}

/** Whether a Contact ID's key is well formed (node() refuses others before running). */
export function contactKeyProblem(key: string): string | undefined {
  return CONTACT_KEY.test(key) ? undefined : 'Malformed Contact ID.'
}

/** Each contact's key in a company's contacts read whole, by contactId: made once per answer. */
const keysByAnswer = new WeakMap<object, Map<number, string>>()

export function keysOf(items: readonly CompanyContact[], company: CompanyKey, ctx: Context) {
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
export function contactsOf(
  company: CompanyKey,
  filters: ContactFilters,
  ctx: Context,
  info: GraphQLResolveInfo,
) {
  return readWhole(ctx, info, companyContacts, { company, ...filters })
}

/**
 * The keys of the contacts `within` (a filtered read, a list's contacts), ranked over `all`, the
 * company's contacts read whole. One `all` does not hold (renumbered since it was read, in the
 * cache) keeps its rank where its namesakes in `within` are as many as in `all` (renumbering
 * keeps their order); otherwise it is unranked. Without `all` (its read failed), unranked too.
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
    keys.set(
      id,
      ranked.get(id) ??
        (group.length === inAll.get(base)
          ? rank === 0
            ? base
            : `${base}.${rank}`
          : unrankedKey(item, company, ctx)),
    )
  }
  return keys
}

/**
 * A contact's key, from its company's contacts read whole (what a list's contacts lack). That read
 * failing costs this contact its usual ID, not the page: the ID is never null.
 */
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
