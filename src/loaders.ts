import DataLoader from 'dataloader'
import {
  type Caller,
  type Endpoint,
  type PreparedRequest,
  prepare,
  type UpstreamClient,
} from './upstream/client.js'
import type { CompanyIdentifier, CompanyKey } from './upstream/common.js'
import { financials } from './upstream/financials.js'

/**
 * Per-request readers over the upstream client. One set is made for each GraphQL request in the
 * context factory and dropped with it, so nothing read for one caller is served to another.
 */

/** Every upstream read of a request: identical reads (same path and query) are made once. */
export class UpstreamReader {
  private readonly loader: DataLoader<PreparedRequest, unknown, string>
  /** HTTP requests made for this GraphQL request, retries included. */
  readonly attempts = { count: 0 }

  constructor(client: UpstreamClient, caller: Caller) {
    this.loader = new DataLoader(
      // The REST service has no batch endpoint: the batch sends its reads in parallel, and a
      // failed read fails only the fields that wait for it.
      (requests) =>
        Promise.all(
          requests.map((request) =>
            client.send(request, caller, this.attempts).catch((error: Error) => error),
          ),
        ),
      { cacheKeyFn: (request) => request.key },
    )
  }

  read<P, T>(endpoint: Endpoint<P, T>, params: P): Promise<T> {
    return this.loader.load(prepare(endpoint, params)) as Promise<T>
  }
}

export const companyKeyString = (company: CompanyKey) =>
  `${company.country}:${company.companyNumber}`

/**
 * What this request knows of companies' names and places. Every response that carries a company
 * identifier feeds it, so a name costs an upstream call only when nothing in hand or in flight
 * will carry it.
 */
export class CompanyDirectory {
  private readonly known = new Map<string, CompanyIdentifier>()
  private readonly expected = new Map<string, Promise<CompanyIdentifier>>()
  private readonly loader: DataLoader<CompanyKey, CompanyIdentifier, string>

  constructor(private readonly upstream: UpstreamReader) {
    this.loader = new DataLoader((keys) => Promise.all(keys.map((key) => this.lookUp(key))), {
      cacheKeyFn: companyKeyString,
      // Wait until the resolvers of this execution pass have started their reads, so that a
      // name asked beside the company's financials comes from that same call.
      batchScheduleFn: (dispatch) => setImmediate(dispatch),
    })
  }

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
    if (!this.known.has(key) && !this.expected.has(key)) {
      const identifier = response.then((r) => r.identifier)
      // A failure here is reported by the read itself; the directory just stops expecting.
      identifier.then(
        (id) => this.remember(id),
        () => this.expected.delete(key),
      )
      this.expected.set(key, identifier)
    }
    return response
  }

  identify(company: CompanyKey): Promise<CompanyIdentifier> {
    return this.loader.load(company)
  }

  private lookUp(company: CompanyKey): Promise<CompanyIdentifier> {
    const key = companyKeyString(company)
    const known = this.known.get(key)
    if (known) return Promise.resolve(known)
    const expected = this.expected.get(key)
    if (expected) return expected
    // The smallest answer that carries the identifier: one financial record.
    return this.read(financials, { company, limit: 1, offset: 0 }).then((r) => r.identifier)
  }
}

export interface Loaders {
  upstream: UpstreamReader
  companies: CompanyDirectory
}

export function createLoaders(client: UpstreamClient, caller: Caller): Loaders {
  const upstream = new UpstreamReader(client, caller)
  return { upstream, companies: new CompanyDirectory(upstream) }
}
