import type { Endpoint } from '../upstream/endpoint.js'
import type { CompanyIdentifier, CompanyKey } from '../upstream/resources/common.js'
import { financials, statementsFrom } from '../upstream/resources/financials.js'
import type { UpstreamReader } from './upstream-reader.js'

export const companyKeyString = (company: CompanyKey) =>
  `${company.country}:${company.companyNumber}`

/**
 * The part of an answer a read or a look-up is made for: the first payload, or a later one
 * (@defer). The first never waits for a later part's reads, nor takes a name from them: what it
 * says does not depend on how fast they came.
 */
export type Part = 'first' | 'later'

/** What a part may use of what another part asked for: the first only its own, a later one all. */
const serves = (madeFor: Part, part: Part) => part === 'later' || madeFor === 'first'

/**
 * What this operation knows of companies' names and places, and whether they exist. Every
 * response that carries a company identifier feeds it, so a name costs an upstream call only
 * when nothing in hand or in flight will carry it.
 */
export class CompanyDirectory {
  private readonly known = new Map<string, { identifier: CompanyIdentifier; part: Part }>()
  /** Every read of each company's own resources: any answer names the company. */
  private readonly readsOf = new Map<string, { named: Promise<CompanyIdentifier>; part: Part }[]>()
  /** The reads in flight whose answers may name companies, and the part they are made for. */
  private readonly inFlight = new Map<Promise<unknown>, Part>()
  /** Each company's look-up for each part, made once per operation. */
  private readonly lookUps = new Map<string, Promise<CompanyIdentifier>>()

  constructor(private readonly upstream: UpstreamReader) {}

  /** Notes a company's identifier and returns it, ready to back a Company. */
  remember(identifier: CompanyIdentifier, part: Part): CompanyIdentifier {
    const key = companyKeyString(identifier)
    const first = this.known.get(key)?.part === 'first'
    this.known.set(key, { identifier, part: first ? 'first' : part })
    return identifier
  }

  /** A read whose answer names companies (a list's members): look-ups may wait for it. */
  naming<T>(read: Promise<T>, part: Part): Promise<T> {
    if (this.inFlight.get(read) === 'first') return read
    this.inFlight.set(read, part)
    // Its failure is reported by whoever awaits the read; here it only leaves the map.
    const leave = () => this.inFlight.delete(read)
    read.then(leave, leave)
    return read
  }

  /** Reads a company resource; its answer names the company, so it is noted as on its way. */
  read<P extends { company: CompanyKey }, T extends { identifier: CompanyIdentifier }>(
    endpoint: Endpoint<P, T>,
    params: P,
    part: Part,
  ): Promise<T> {
    const response = this.naming(this.upstream.read(endpoint, params), part)
    const key = companyKeyString(params.company)
    const named = response.then((r) => this.remember(r.identifier, part))
    // Its failure is the response's own, reported by whoever awaits that; lookUp reads it too.
    named.catch(() => {})
    const reads = this.readsOf.get(key)
    if (reads) reads.push({ named, part })
    else this.readsOf.set(key, [{ named, part }])
    return response
  }

  /**
   * The company's identifier (its name and place): from an answer in hand, else from the first
   * of the reads made for it that succeeds. When none does (or none was made), the read of its
   * statements, which every company has, decides: a lookalikes or contacts read refused (404,
   * 401, 403) says nothing of the company. When that fails too, the answers still on their way in
   * this operation are waited for (one of them may name the company too, as a list's members
   * do), so the name does not depend on which read came first; then its failure. For the first
   * part, only what the first part reads counts (see Part).
   */
  identify(company: CompanyKey, part: Part): Promise<CompanyIdentifier> {
    const key = `${part}|${companyKeyString(company)}`
    let found = this.lookUps.get(key)
    if (!found) {
      // Once the resolvers of this execution pass have started their reads, so that a name
      // asked beside the company's financials comes from that same call.
      found = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
        this.lookUp(company, part),
      )
      this.lookUps.set(key, found)
    }
    return found
  }

  /** Resolves once the upstream has shown it has the company; rejects as identify does. */
  async verify(company: CompanyKey, part: Part): Promise<void> {
    await this.identify(company, part)
  }

  private knownTo(key: string, part: Part): CompanyIdentifier | undefined {
    const entry = this.known.get(key)
    return entry && serves(entry.part, part) ? entry.identifier : undefined
  }

  private async lookUp(company: CompanyKey, part: Part): Promise<CompanyIdentifier> {
    const key = companyKeyString(company)
    const known = this.knownTo(key, part)
    if (known) return known
    const reads = (this.readsOf.get(key) ?? []).filter((read) => serves(read.part, part))
    if (reads.length > 0) {
      try {
        return await Promise.any(reads.map((read) => read.named))
      } catch {
        // Each of those reads reports its own failure at its field.
      }
    }
    // The read of its statements that Company.financials makes: asking for both costs one call.
    try {
      return (
        this.knownTo(key, part) ??
        (await this.read(financials, statementsFrom(company), part)).identifier
      )
    } catch (failure) {
      await this.settled(part)
      const named = this.knownTo(key, part)
      if (named) return named
      throw failure
    }
  }

  /**
   * Resolves once every read now in flight that may name companies for `part` has settled and
   * what was waiting on their answers has run (the next macrotask): what those answers carry is
   * then in hand, however fast they came.
   */
  private async settled(part: Part): Promise<void> {
    const reads = [...this.inFlight].filter(([, madeFor]) => serves(madeFor, part))
    await Promise.allSettled(reads.map(([read]) => read))
    await new Promise((resolve) => setImmediate(resolve))
  }
}
