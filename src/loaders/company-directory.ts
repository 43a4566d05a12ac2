import type { Endpoint } from '../upstream/endpoint.js'
import type { CompanyIdentifier, CompanyKey } from '../upstream/resources/common.js'
import { financials, statementsFrom } from '../upstream/resources/financials.js'
import type { UpstreamReader } from './upstream-reader.js'

export const companyKeyString = (company: CompanyKey) =>
  `${company.country}:${company.companyNumber}`

/**
 * What this operation knows of companies' names and places, and whether they exist. Every
 * response that carries a company identifier feeds it, so a name costs an upstream call only
 * when nothing in hand or in flight will carry it.
 */
export class CompanyDirectory {
  private readonly known = new Map<string, CompanyIdentifier>()
  /** Every read of each company's own resources: any answer names the company. */
  private readonly readsOf = new Map<string, Promise<CompanyIdentifier>[]>()
  /** Each company's look-up, made once per operation. */
  private readonly lookUps = new Map<string, Promise<CompanyIdentifier>>()

  constructor(private readonly upstream: UpstreamReader) {}

  /** Notes a company's identifier and returns it, ready to back a Company. */
  remember(identifier: CompanyIdentifier): CompanyIdentifier {
    this.known.set(companyKeyString(identifier), identifier)
    return identifier
  }

  /** Reads a company resource; its answer names the company, so it is noted as on its way. */
  read<P extends { company: CompanyKey }, T extends { identifier: CompanyIdentifier }>(
    endpoint: Endpoint<P, T>,
    params: P,
  ): Promise<T> {
    const response = this.upstream.read(endpoint, params)
    const key = companyKeyString(params.company)
    const identifier = response.then((r) => this.remember(r.identifier))
    // Its failure is the response's own, reported by whoever awaits that; lookUp reads it too.
    identifier.catch(() => {})
    const reads = this.readsOf.get(key)
    if (reads) reads.push(identifier)
    else this.readsOf.set(key, [identifier])
    return response
  }

  /**
   * The company's identifier (its name and place): from an answer in hand, else from the first
   * of the reads made for it that succeeds. When none does (or none was made), the read of its
   * statements, which every company has, decides: a lookalikes or contacts read refused (404,
   * 401, 403) says nothing of the company. When that fails too, the answers still on their way in
   * this operation are waited for (one of them may name the company too, as a list's members
   * do), so the name does not depend on which read came first; then its failure.
   */
  identify(company: CompanyKey): Promise<CompanyIdentifier> {
    const key = companyKeyString(company)
    let found = this.lookUps.get(key)
    if (!found) {
      // Once the resolvers of this execution pass have started their reads, so that a name
      // asked beside the company's financials comes from that same call.
      found = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.lookUp(company))
      this.lookUps.set(key, found)
    }
    return found
  }

  /** Resolves once the upstream has shown it has the company; rejects as identify does. */
  async verify(company: CompanyKey): Promise<void> {
    await this.identify(company)
  }

  private async lookUp(company: CompanyKey): Promise<CompanyIdentifier> {
    const key = companyKeyString(company)
    const known = this.known.get(key)
    if (known) return known
    const reads = this.readsOf.get(key)
    if (reads) {
      try {
        return await Promise.any(reads)
      } catch {
        // Each of those reads reports its own failure at its field.
      }
    }
    // The read of its statements that Company.financials makes: asking for both costs one call.
    try {
      return (
        this.known.get(key) ?? (await this.read(financials, statementsFrom(company))).identifier
      )
    } catch (failure) {
      await this.upstream.settled()
      const named = this.known.get(key)
      if (named) return named
      throw failure
    }
  }
}
