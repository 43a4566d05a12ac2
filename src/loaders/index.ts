import type { UpstreamClient } from '../upstream/client.js'
import type { ReadScope } from '../upstream/read-scope.js'
import { CompanyDirectory } from './company-directory.js'
import { UpstreamReader } from './upstream-reader.js'

/**
 * Per-operation readers over the upstream client. One set is made for each GraphQL operation in
 * the context factory and dropped with it, so nothing read for one caller is served to another.
 */

export interface Loaders {
  upstream: UpstreamReader
  companies: CompanyDirectory
}

export function createLoaders(client: UpstreamClient, scope: ReadScope): Loaders {
  const upstream = new UpstreamReader(client, scope)
  return { upstream, companies: new CompanyDirectory(upstream) }
}
