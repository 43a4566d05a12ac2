import { belgianCheckDigits, type Country, luhnCheckDigit } from '../domain/company-number.js'
import { Random } from './random.js'
import {
  FAMILY_NAMES,
  FIRST_NAMES,
  LEGAL_FORMS,
  LIST_COLUMNS,
  LIST_OWNERS,
  OFFICIAL_ROLES,
  PLACES,
  POSITIONS,
  type Position,
  SECTORS,
  SENIORITIES,
  type Sector,
} from './vocabulary.js'

/**
 * The demo data set: deterministic (same seed, same data), large enough to exercise paging
 * across upstream pages, and shaped like the real thing (valid numbers, consistent figures,
 * mutual relationships, lists of both kinds).
 */

/**
 * The demo's own types follow contract/upstream-rest-api.md, not the gateway's schemas in
 * src/upstream/: the demo is the upstream, and must not agree with the gateway by construction.
 */

/** A company identifier as the server sends it. */
export interface DemoIdentifier {
  country: Country
  companyNumber: string
  /** Absent (the key is omitted) for the companies the upstream has no name for: `nameless`. */
  name?: string
  /** null for the companies the upstream has no place for: `placeless`. */
  place: string | null
}

/** A List object of the document. */
export interface DemoListBody {
  id: number
  name: string
  type: 'STATIC' | 'SMART'
  columns: string[]
  shared: boolean
  notifications: { enabled: boolean }
  amountOfCompanies: number
  newResults: number | null
  updatedAt: string
  createdAt: string
  createdBy: string
}

/** A financial record of the document, as the demo sends it. */
export interface Financial {
  startDate: string
  endDate: string
  dateReceived: string | null
  healthIndicator: number
  jointCommitteeCodes: string[]
  profitability: {
    revenue: number | null
    grossMargin: number
    ebitda: number
    ebit: number
    netProfit: number
  }
  liquidity: {
    cash: number
    cashFlow: number
    netWorkingCapital: number
    netWorkingCapitalRequirement: number
    currentRatio: number
    quickRatio: number
  }
  solvency: {
    totalAssets: number
    equity: number
    capital: number | null
    retainedEarnings: number
    debt: number
    longTermDebt: number
    longTermDebtFinancial: number
    longTermDebtAccountsPayable: number
    shortTermDebt: number
    shortTermDebtFinancial: number
    shortTermDebtAccountsPayable: number
  }
  people: {
    employees: number
    newHires: number
    employeeMaleRatio: number
    employeeFemaleRatio: number
  }
}

export interface DemoCompany extends DemoIdentifier {
  index: number
  sector: Sector
  employees: number
}

export interface DemoRelationship {
  identifier: DemoIdentifier | null
  function?: string
  percentage?: number
  name?: string
}

export interface DemoContact {
  /**
   * The id the server sends, unless the contact is `volatile`: then it is only the contact's
   * stable key in the data set, and the id sent is `DemoData.contactIdAt(contact, time)`.
   */
  contactId: number
  /** The generated first name; the server sends null instead when `firstNameUnknown`. */
  firstName: string
  lastName: string
  position: Position
  officialRoles: string[]
  /** Its contactId changes every day (see `DemoData.contactIdAt`). */
  volatile?: true
  /** The upstream has no first name for this contact: the server sends `firstName: null`. */
  firstNameUnknown?: true
}

export interface DemoListMember {
  company: DemoCompany
  matchedSince: string
  /** SMART lists only: which view the member shows in. */
  status: 'SAVED' | 'ARCHIVED' | 'NEW'
}

export interface DemoList extends DemoListBody {
  members: DemoListMember[]
  contacts: { contact: DemoContact; company: DemoCompany }[]
}

const COUNTRY_COUNTS: Record<Country, number> = { BE: 1000, NL: 800, FR: 600 }
/** The newest bookkeeping year in the data set. */
const LATEST_YEAR = 2025
const NOW = Date.parse('2026-10-01T09:00:00.000Z')
const DAY = 86_400_000

/**
 * Seeds (xor-ed with the data set's seed) of the streams that make the additions: what the
 * gateway must cope with. Each addition draws from its own stream, so the streams that make the
 * original data, and therefore that data, stay exactly as they were.
 */
const STREAM = {
  missingNames: 0x6e616d65,
  widelyHeld: 0x77696465,
  namesakes: 0x6e736b73,
  unknownFirstName: 0x66697273,
} as const
/** Per-company stream parts (see randomFor) of the contact additions. */
const CONTACT_CHANGES = 4
const NAMESAKE_PAIR = 5
/** Share of the contacts outside the settled companies that are volatile: about 1 in 25 overall. */
const VOLATILE_SHARE = 1 / 20
const UNKNOWN_FIRST_NAME_SHARE = 1 / 500
/** Volatile contactIds: VOLATILE_BASE + a value below VOLATILE_RANGE, never a stable id. */
const VOLATILE_BASE = 400_000
const VOLATILE_RANGE = 600_000

export function identifierOf(company: DemoCompany): DemoIdentifier {
  return {
    country: company.country,
    companyNumber: company.companyNumber,
    ...(company.name === undefined ? {} : { name: company.name }),
    place: company.place,
  }
}

export class DemoData {
  readonly companies: DemoCompany[] = []
  readonly lists: DemoList[] = []
  private readonly byKey = new Map<string, DemoCompany>()
  private readonly parents = new Map<DemoCompany, DemoRelationship[]>()
  private readonly children = new Map<DemoCompany, DemoRelationship[]>()
  private readonly financialCache = new Map<DemoCompany, Financial[]>()
  private readonly contactCache = new Map<DemoCompany, DemoContact[]>()
  private readonly lookalikeCache = new Map<
    DemoCompany,
    { company: DemoCompany; score: number }[]
  >()

  /** About 1 % of the companies: the upstream has no name for them (`name` is omitted). */
  readonly nameless: readonly DemoCompany[]
  /** A few companies the upstream has no place for (`place: null`). */
  readonly placeless: readonly DemoCompany[]
  /** A company with 60–80 shareholders, companies and persons; member deep in a list. */
  readonly widelyHeld: DemoCompany
  /** Companies whose contacts stay exactly as generated (see settledCompanies). */
  private readonly heads: ReadonlySet<DemoCompany>
  private readonly namesakeCompanies: ReadonlySet<DemoCompany>
  private readonly namesakePairs = new Map<DemoCompany, [DemoContact, DemoContact]>()
  private readonly forcedUnknownFirstName: ReadonlySet<DemoContact>
  private contactChangesReady = false

  constructor(private readonly seed = 20261121) {
    const random = new Random(seed)
    this.makeCompanies(random)
    this.makeRelationships(random)
    this.makeLists(random)
    // What the gateway must cope with, each from its own stream (STREAM).
    const { heads, settled } = this.settledCompanies()
    this.heads = heads
    const free = this.companies.filter((c) => !settled.has(c))
    ;({ nameless: this.nameless, placeless: this.placeless } = this.dropNames(free))
    this.widelyHeld = this.makeWidelyHeld(free)
    this.namesakeCompanies = this.pickNamesakeCompanies()
    this.forcedUnknownFirstName = this.pickUnknownFirstNameInList()
    // Contacts made so far (those of the lists) get their changes now, the others when made.
    this.contactChangesReady = true
    for (const [company, contacts] of this.contactCache) this.changeContacts(company, contacts)
  }

  company(country: string, companyNumber: string): DemoCompany | undefined {
    return this.byKey.get(`${country}:${companyNumber}`)
  }

  list(id: number): DemoList | undefined {
    return this.lists.find((list) => list.id === id)
  }

  relationshipsOf(company: DemoCompany) {
    return { parents: this.parents.get(company) ?? [], children: this.children.get(company) ?? [] }
  }

  /** Newest period first. */
  financialsOf(company: DemoCompany): Financial[] {
    return memo(this.financialCache, company, () =>
      makeFinancials(company, this.randomFor(company, 1)),
    )
  }

  /** Ordered by seniority, then name. */
  contactsOf(company: DemoCompany): DemoContact[] {
    return memo(this.contactCache, company, () => {
      const contacts = makeContacts(company, this.randomFor(company, 2))
      if (this.contactChangesReady) this.changeContacts(company, contacts)
      return contacts
    })
  }

  /**
   * The contactId the server sends for a contact at `time` (ms since the epoch). A volatile
   * contact gets a new id every day (UTC); at any one time no two contacts share an id.
   */
  contactIdAt(contact: DemoContact, time: number): number {
    if (!contact.volatile) return contact.contactId
    const day = Math.floor(time / DAY)
    // For one day, an injective map of the (unique) stable keys, into a range no stable id uses.
    const spread = (contact.contactId * 7919 + day * 104_729) % VOLATILE_RANGE
    return VOLATILE_BASE + ((spread + VOLATILE_RANGE) % VOLATILE_RANGE)
  }

  /** Every contact whose contactId changes over time, with its company. Makes every contact. */
  volatileContacts(): { company: DemoCompany; contact: DemoContact }[] {
    return this.everyContact().filter(({ contact }) => contact.volatile)
  }

  /** Every contact the server sends with `firstName: null`, with its company. */
  contactsWithoutFirstName(): { company: DemoCompany; contact: DemoContact }[] {
    return this.everyContact().filter(({ contact }) => contact.firstNameUnknown)
  }

  /** Companies with two contacts of one full name and different positions, and those two. */
  namesakes(): { company: DemoCompany; contacts: [DemoContact, DemoContact] }[] {
    return [...this.namesakeCompanies].map((company) => {
      this.contactsOf(company)
      const contacts = this.namesakePairs.get(company)
      if (!contacts) throw new Error(`no namesakes in company ${company.index}`)
      return { company, contacts }
    })
  }

  private everyContact() {
    return this.companies.flatMap((company) =>
      this.contactsOf(company).map((contact) => ({ company, contact })),
    )
  }

  /** Best match first. */
  lookalikesOf(company: DemoCompany) {
    return memo(this.lookalikeCache, company, () => {
      const random = this.randomFor(company, 3)
      if (random.chance(0.06)) return []
      const sameSector = this.companies.filter((c) => c.sector === company.sector && c !== company)
      const picked = random.sample(sameSector, random.int(8, 25))
      let score = random.between(0.9, 0.995)
      return picked.map((other) => {
        score -= random.between(0.004, 0.03)
        return { company: other, score: Math.max(0.05, score) + random.next() * 1e-9 }
      })
    })
  }

  /** Each company's own stream, so lazily made parts do not depend on request order. */
  private randomFor(company: DemoCompany, part: number) {
    return new Random(this.seed ^ Math.imul(company.index + 1, 2654435761) ^ (part << 24))
  }

  /**
   * The companies whose data the additions leave alone, so that tests which pick companies by
   * position (the first that fits, the first members of a list) keep their picks, their answers
   * and their upstream call counts. `heads`: the first 50 companies and the first 60 members of
   * every list; their contacts stay as generated. `settled`: the heads, the first 60 members of
   * every SMART view, the members around the 500-item page boundary of big lists, the 5 best
   * lookalikes of the heads, and every company related to one of those; their names and places
   * stay, and they get no new relationships.
   */
  private settledCompanies() {
    const heads = new Set(this.companies.slice(0, 50))
    for (const list of this.lists) for (const m of list.members.slice(0, 60)) heads.add(m.company)
    const core = new Set(heads)
    for (const list of this.lists) {
      const views = list.type === 'SMART' ? (['SAVED', 'ARCHIVED', 'NEW'] as const) : []
      for (const view of views) {
        const members = list.members.filter((m) => m.status === view)
        for (const m of members.slice(0, 60)) core.add(m.company)
      }
      for (const m of list.members.slice(490, 510)) core.add(m.company)
    }
    const settled = new Set(core)
    for (const company of heads) {
      for (const { company: other } of this.lookalikesOf(company).slice(0, 5)) settled.add(other)
    }
    for (const company of core) {
      const { parents, children } = this.relationshipsOf(company)
      for (const { identifier } of [...parents, ...children]) {
        const related = identifier && this.company(identifier.country, identifier.companyNumber)
        if (related) settled.add(related)
      }
    }
    return { heads, settled }
  }

  /**
   * About 1 % of the companies lose their name (one of them has contacts in a list), a few others
   * their place. Relationship items naming such a company drop the name too.
   */
  private dropNames(free: DemoCompany[]) {
    const random = new Random(this.seed ^ STREAM.missingNames)
    const inListContacts = new Set(
      this.lists.flatMap((list) => list.contacts.map(({ company }) => company)),
    )
    const first = random.pick(free.filter((c) => inListContacts.has(c)))
    const nameless = [
      first,
      ...random.sample(
        free.filter((c) => c !== first),
        Math.round(this.companies.length / 100) - 1,
      ),
    ].sort((a, b) => a.index - b.index)
    const placeless = random
      .sample(
        free.filter((c) => !nameless.includes(c)),
        6,
      )
      .sort((a, b) => a.index - b.index)
    for (const company of nameless) delete company.name
    for (const company of placeless) company.place = null
    const changed = new Set([...nameless, ...placeless])
    for (const map of [this.parents, this.children]) {
      for (const [at, items] of map) {
        map.set(
          at,
          items.map((item) => {
            const { identifier } = item
            const related = identifier && this.company(identifier.country, identifier.companyNumber)
            if (!related || !changed.has(related)) return item
            const { name: _name, ...unnamed } = item
            return {
              ...(related.name === undefined ? unnamed : item),
              identifier: identifierOf(related),
            }
          }),
        )
      }
    }
    return { nameless, placeless }
  }

  /**
   * A company with 60–80 shareholders: some companies (one of them nameless), each listing it
   * among its children with the same share, and persons without identifier. It had no
   * shareholders before, and is a member of a list, beyond its first 60 members.
   */
  private makeWidelyHeld(free: DemoCompany[]): DemoCompany {
    const random = new Random(this.seed ^ STREAM.widelyHeld)
    const deepMembers = new Set(
      this.lists.flatMap((list) => list.members.slice(60).map((m) => m.company)),
    )
    const held = random.pick(
      free.filter(
        (c) =>
          deepMembers.has(c) && c.name !== undefined && c.place !== null && !this.parents.has(c),
      ),
    )
    const count = random.int(60, 80)
    const nameless = random.pick(this.nameless)
    const companies = [
      nameless,
      ...random.sample(
        free.filter((c) => c !== held && c !== nameless),
        random.int(17, 27),
      ),
    ]
    const persons = new Set<string>()
    while (companies.length + persons.size < count) {
      persons.add(
        `${random.pick(FIRST_NAMES[held.country])} ${random.pick(FAMILY_NAMES[held.country])}`,
      )
    }
    const parties: (DemoCompany | string)[] = random.sample([...companies, ...persons], count)
    // Many small stakes that add up to (about) the whole.
    const weights = parties.map(() => random.between(0.05, 1) ** 2)
    const sum = weights.reduce((a, b) => a + b, 0)
    const parents = parties.map((party, i): DemoRelationship => {
      const percentage = Math.max(0.0001, round((weights[i] ?? 0) / sum, 4))
      if (typeof party === 'string') {
        return { identifier: null, function: 'SHAREHOLDER', percentage, name: party }
      }
      this.children.set(party, [
        ...(this.children.get(party) ?? []),
        {
          identifier: identifierOf(held),
          function: 'SHAREHOLDER',
          percentage,
          ...(held.name === undefined ? {} : { name: held.name }),
        },
      ])
      return {
        identifier: identifierOf(party),
        function: 'SHAREHOLDER',
        percentage,
        ...(party.name === undefined ? {} : { name: party.name }),
      }
    })
    this.parents.set(held, parents)
    return held
  }

  /** Four companies with 6 or more contacts, outside the heads, get a pair of namesakes. */
  private pickNamesakeCompanies(): Set<DemoCompany> {
    const random = new Random(this.seed ^ STREAM.namesakes)
    const candidates = this.companies.filter((c) => !this.heads.has(c))
    const picked = new Set<DemoCompany>()
    for (const company of random.sample(candidates, candidates.length)) {
      if (picked.size === 4) break
      if (this.contactsOf(company).length >= 6) picked.add(company)
    }
    return picked
  }

  /** One list contact (outside the heads) is certain to have no first name. */
  private pickUnknownFirstNameInList(): Set<DemoContact> {
    const random = new Random(this.seed ^ STREAM.unknownFirstName)
    const candidates = this.lists.flatMap((list) =>
      list.contacts.filter(({ company }) => !this.heads.has(company)).map((c) => c.contact),
    )
    return new Set([random.pick(candidates)])
  }

  /**
   * The contact additions of one company, from its own stream: outside the heads, about 1 in 20
   * contacts is volatile and about 1 in 500 has no first name; a namesake company has two contacts
   * of one full name. Changes the contacts in place: list contacts are the same objects.
   */
  private changeContacts(company: DemoCompany, contacts: DemoContact[]) {
    if (!this.heads.has(company)) {
      const random = this.randomFor(company, CONTACT_CHANGES)
      for (const contact of contacts) {
        if (random.chance(VOLATILE_SHARE)) contact.volatile = true
        if (random.chance(UNKNOWN_FIRST_NAME_SHARE) || this.forcedUnknownFirstName.has(contact)) {
          contact.firstNameUnknown = true
        }
      }
    }
    if (this.namesakeCompanies.has(company)) {
      const random = this.randomFor(company, NAMESAKE_PAIR)
      const named = contacts.filter((c) => !c.firstNameUnknown)
      const first = random.pick(named)
      const second = random.pick(
        named.filter((c) => c.position.title.EN !== first.position.title.EN),
      )
      second.firstName = first.firstName
      second.lastName = first.lastName
      contacts.sort(contactOrder)
      this.namesakePairs.set(company, [first, second])
    }
  }

  private makeCompanies(random: Random) {
    const taken = new Set<string>()
    for (const country of ['BE', 'NL', 'FR'] as const) {
      for (let i = 0; i < COUNTRY_COUNTS[country]; i++) {
        let companyNumber: string
        do companyNumber = makeNumber(country, random)
        while (taken.has(`${country}:${companyNumber}`))
        taken.add(`${country}:${companyNumber}`)
        const sector = random.pick(SECTORS)
        const company: DemoCompany = {
          index: this.companies.length,
          country,
          companyNumber,
          name: makeName(country, sector, random),
          place: random.pick(PLACES[country]),
          sector,
          // Most companies are small, a few are large: a log-uniform head count.
          employees: Math.round(Math.exp(random.between(0, Math.log(2500)))),
        }
        this.companies.push(company)
        this.byKey.set(`${country}:${companyNumber}`, company)
      }
    }
  }

  /** Groups with a holding that owns shares of its subsidiaries; both sides list the link. */
  private makeRelationships(random: Random) {
    const push = (
      map: Map<DemoCompany, DemoRelationship[]>,
      at: DemoCompany,
      item: DemoRelationship,
    ) => map.set(at, [...(map.get(at) ?? []), item])
    const holdings = random.sample(this.companies, 320)
    const owned = new Set<DemoCompany>(holdings)
    for (const holding of holdings) {
      const candidates = this.companies.filter((c) => !owned.has(c))
      for (const subsidiary of random.sample(candidates, random.int(1, 5))) {
        owned.add(subsidiary)
        let left = 1
        const share = round(random.pick([1, 0.51, 0.6, 0.75, random.between(0.2, 0.95)]), 4)
        left -= share
        push(this.parents, subsidiary, {
          identifier: identifierOf(holding),
          function: 'SHAREHOLDER',
          percentage: share,
          name: holding.name,
        })
        push(this.children, holding, {
          identifier: identifierOf(subsidiary),
          function: 'SHAREHOLDER',
          percentage: share,
          name: subsidiary.name,
        })
        // The rest is held by people or parties the upstream has no identifier for.
        if (left > 0.01) {
          const person = `${random.pick(FIRST_NAMES[subsidiary.country])} ${random.pick(FAMILY_NAMES[subsidiary.country])}`
          push(this.parents, subsidiary, {
            identifier: null,
            function: 'SHAREHOLDER',
            percentage: round(left, 4),
            name: person,
          })
        }
        if (random.chance(0.15)) push(this.parents, subsidiary, { identifier: null })
      }
    }
  }

  private makeLists(random: Random) {
    LIST_SPECS.forEach((spec, i) => {
      const pool = this.companies.filter(spec.pool)
      // A SMART list holds every company that matches its filters.
      const chosen = spec.type === 'SMART' ? pool : random.sample(pool, spec.size)
      const createdAt = NOW - random.int(200, 900) * DAY
      const members = listMembers(spec, chosen, createdAt, random)
      const contacts = members
        .slice(0, 220)
        .flatMap(({ company }) =>
          random
            .sample(this.contactsOf(company), random.int(0, 2))
            .map((contact) => ({ contact, company })),
        )
      const type = spec.type
      this.lists.push({
        id: 1001 + i,
        name: spec.name,
        type,
        columns: random.sample(LIST_COLUMNS, random.int(2, LIST_COLUMNS.length)),
        shared: random.chance(0.4),
        // Notifications can only be enabled for STATIC lists.
        notifications: { enabled: type === 'STATIC' && random.chance(0.5) },
        amountOfCompanies: members.length,
        newResults: type === 'SMART' ? members.filter((m) => m.status === 'NEW').length : null,
        createdAt: new Date(createdAt).toISOString(),
        updatedAt: new Date(NOW - random.int(0, 30) * DAY).toISOString(),
        createdBy: random.pick(LIST_OWNERS),
        members,
        contacts,
      })
    })
  }
}

/** A demo list: its name and type, how many companies it holds and which it may hold. */
interface ListSpec {
  name: string
  type: 'STATIC' | 'SMART'
  size: number
  pool: (c: DemoCompany) => boolean
}

const LIST_SPECS: ListSpec[] = [
  { name: 'Key accounts Benelux', type: 'STATIC', size: 1234, pool: (c) => c.country !== 'FR' },
  {
    name: 'Fast-growing software France',
    type: 'SMART',
    size: 0,
    pool: (c) => c.country === 'FR' || c.sector.key === 'software',
  },
  {
    name: 'Prospects Antwerp logistics',
    type: 'STATIC',
    size: 42,
    pool: (c) => c.sector.key === 'logistics',
  },
  {
    name: 'Dutch installers 50+ FTE',
    type: 'SMART',
    size: 0,
    pool: (c) => c.country === 'NL' && c.employees >= 50,
  },
  { name: 'Competitors', type: 'STATIC', size: 12, pool: (c) => c.sector.key === 'consulting' },
  {
    name: 'Walloon manufacturing',
    type: 'SMART',
    size: 0,
    pool: (c) => c.country === 'BE' && c.sector.key === 'manufacturing',
  },
  { name: 'Partners', type: 'STATIC', size: 25, pool: () => true },
  {
    name: 'Healthcare Randstad',
    type: 'SMART',
    size: 0,
    pool: (c) => c.sector.key === 'healthcare',
  },
  { name: 'Churned customers', type: 'STATIC', size: 310, pool: () => true },
  { name: 'Empty shortlist', type: 'STATIC', size: 0, pool: () => false },
]

/** A list's members, newest first, with their status and since when they are in the list. */
function listMembers(
  spec: ListSpec,
  chosen: DemoCompany[],
  createdAt: number,
  random: Random,
): DemoListMember[] {
  return chosen
    .map((company) => {
      const status =
        spec.type === 'SMART'
          ? random.pick(['SAVED', 'SAVED', 'ARCHIVED', 'NEW'] as const)
          : 'SAVED'
      const since =
        status === 'NEW' ? NOW - random.int(0, 14) * DAY : random.int(createdAt, NOW - 15 * DAY)
      return {
        company,
        status,
        matchedSince: new Date(since - random.int(0, DAY)).toISOString(),
      }
    })
    .sort(
      (a, b) => b.matchedSince.localeCompare(a.matchedSince) || a.company.index - b.company.index,
    )
}

function memo<K, V>(cache: Map<K, V>, key: K, make: () => V): V {
  let value = cache.get(key)
  if (value === undefined) {
    value = make()
    cache.set(key, value)
  }
  return value
}

function round(value: number, decimals = 2): number {
  const f = 10 ** decimals
  return Math.round(value * f) / f
}

function makeNumber(country: Country, random: Random): string {
  switch (country) {
    case 'BE': {
      const firstEight = `0${random.int(2, 9)}${random.digits(6)}`
      return `${firstEight}${belgianCheckDigits(firstEight)}`
    }
    case 'NL':
      return `${random.int(1, 9)}${random.digits(7)}`
    case 'FR': {
      const firstEight = `${random.int(3, 9)}${random.digits(7)}`
      return `${firstEight}${luhnCheckDigit(firstEight)}`
    }
  }
}

function makeName(country: Country, sector: Sector, random: Random): string {
  const family = random.pick(FAMILY_NAMES[country])
  const word = random.pick(sector.words[country])
  const form = random.pick(LEGAL_FORMS[country])
  const style = random.int(0, 2)
  if (style === 0) return `${family} ${word} ${form}`
  if (style === 1) return `${word} ${family} ${form}`
  return `${family} & ${random.pick(FAMILY_NAMES[country])} ${form}`
}

/** 0–10 years of statements whose figures hang together; some unknown, some negative. */
function makeFinancials(company: DemoCompany, random: Random): Financial[] {
  const years = random.chance(0.08) ? 0 : random.int(1, 10)
  const fiscalYearEndsInJune = random.chance(0.15)
  // Small Belgian companies file abbreviated accounts without revenue.
  const revenueUnknown = company.country === 'BE' && company.employees < 20 && random.chance(0.6)
  const capital = random.chance(0.85)
    ? round(random.pick([18_550, 61_500, 62_000, 100_000, 250_000, 1_000_000]))
    : null
  const records: Financial[] = []
  let employees = company.employees
  for (let k = 0; k < years; k++) {
    const year = LATEST_YEAR - k
    const period = fiscalYearEndsInJune
      ? { startDate: `${year - 1}-07-01`, endDate: `${year}-06-30` }
      : { startDate: `${year}-01-01`, endDate: `${year}-12-31` }
    records.push(
      makeStatement(company, random, {
        ...period,
        latest: k === 0,
        employees,
        revenueUnknown,
        capital,
      }),
    )
    // Going back in time, the company was a little smaller (or larger).
    employees = Math.max(1, Math.round(employees / random.between(0.9, 1.2)))
  }
  return records
}

/** What one year's statement is made from. */
interface StatementBasis {
  startDate: string
  endDate: string
  /** The most recent statement: the only one that may not have been received yet. */
  latest: boolean
  employees: number
  revenueUnknown: boolean
  capital: number | null
}

/** One year's statement, its figures derived from the company's size and sector. */
function makeStatement(company: DemoCompany, random: Random, basis: StatementBasis): Financial {
  const { sector } = company
  const { startDate, endDate, employees, capital } = basis
  const received = new Date(Date.parse(endDate) + random.int(90, 210) * DAY)
    .toISOString()
    .slice(0, 10)
  const revenue = employees * sector.revenuePerEmployee * random.between(0.7, 1.3)
  const grossMargin = revenue * sector.grossMargin * random.between(0.85, 1.15)
  const ebitda = revenue * sector.ebitdaMargin * random.between(-0.6, 1.6)
  const ebit = ebitda - revenue * random.between(0.01, 0.05)
  const netProfit = ebit > 0 ? ebit * 0.75 - revenue * 0.005 : ebit - revenue * 0.005
  const totalAssets = revenue * random.between(0.4, 1.1)
  const equity = totalAssets * random.between(-0.1, 0.6)
  const debt = totalAssets - equity
  const longTermDebt = debt * random.between(0.2, 0.6)
  const shortTermDebt = debt - longTermDebt
  const ltFinancial = longTermDebt * random.between(0.6, 1)
  const stPayable = shortTermDebt * random.between(0.4, 0.8)
  const currentAssets = totalAssets * random.between(0.3, 0.7)
  const inventory = currentAssets * random.between(0, 0.4)
  const cash = currentAssets * random.between(0.1, 0.5)
  const male = round(random.between(0.25, 0.85), 4)
  const newHires = Math.round(employees * random.between(0, 0.25))
  return {
    startDate,
    endDate,
    dateReceived: basis.latest && random.chance(0.1) ? null : received,
    healthIndicator: random.int(1, 10),
    jointCommitteeCodes:
      company.country === 'BE' ? random.sample(sector.jointCommittees, random.int(1, 2)) : [],
    profitability: {
      revenue: basis.revenueUnknown ? null : round(revenue),
      grossMargin: round(grossMargin),
      ebitda: round(ebitda),
      ebit: round(ebit),
      netProfit: round(netProfit),
    },
    liquidity: {
      cash: round(cash),
      cashFlow: round(netProfit + revenue * random.between(0.01, 0.05)),
      netWorkingCapital: round(currentAssets - shortTermDebt),
      netWorkingCapitalRequirement: round(currentAssets - cash - stPayable),
      currentRatio: round(currentAssets / shortTermDebt, 4),
      quickRatio: round((currentAssets - inventory) / shortTermDebt, 4),
    },
    solvency: {
      totalAssets: round(totalAssets),
      equity: round(equity),
      capital,
      retainedEarnings: round(equity - (capital ?? 0)),
      debt: round(debt),
      longTermDebt: round(longTermDebt),
      longTermDebtFinancial: round(ltFinancial),
      longTermDebtAccountsPayable: round(longTermDebt - ltFinancial),
      shortTermDebt: round(shortTermDebt),
      shortTermDebtFinancial: round(shortTermDebt - stPayable),
      shortTermDebtAccountsPayable: round(stPayable),
    },
    people: {
      employees,
      newHires,
      employeeMaleRatio: male,
      employeeFemaleRatio: round(1 - male, 4),
    },
  }
}

function makeContacts(company: DemoCompany, random: Random): DemoContact[] {
  const count = Math.min(30, random.int(0, 3) + Math.round(Math.log2(company.employees + 1) * 2))
  const contacts: DemoContact[] = []
  // Every company with contacts has one chief executive, listed first.
  const [chief, ...others] = POSITIONS
  const names = new Set<string>()
  for (let i = 0; i < count; i++) {
    // Two people of one company never share a full name here (the namesakes come later).
    let firstName: string
    let lastName: string
    do {
      firstName = random.pick(FIRST_NAMES[company.country])
      lastName = random.pick(FAMILY_NAMES[company.country])
    } while (names.has(`${firstName} ${lastName}`))
    names.add(`${firstName} ${lastName}`)
    const position = i === 0 && chief ? chief : random.pick(others)
    const senior = position.seniority === 'C_LEVEL' || position.seniority === 'VP'
    contacts.push({
      // Stable per company and position in it, so identical on every run.
      contactId: company.index * 100 + i + 100_000,
      firstName,
      lastName,
      position,
      officialRoles: senior
        ? random.sample(OFFICIAL_ROLES, random.int(1, 2))
        : random.chance(0.05)
          ? ['DIRECTOR']
          : [],
    })
  }
  return contacts.sort(contactOrder)
}

/** Seniority, then last name, then the stable key. */
function contactOrder(a: DemoContact, b: DemoContact): number {
  const seniorityRank = (p: Position) => SENIORITIES.indexOf(p.seniority)
  return (
    seniorityRank(a.position) - seniorityRank(b.position) ||
    a.lastName.localeCompare(b.lastName) ||
    a.contactId - b.contactId
  )
}
