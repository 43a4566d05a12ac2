import type { YogaInitialContext } from 'graphql-yoga'
import { createLoaders, type Loaders } from './loaders.js'
import type { Caller, Language, UpstreamClient } from './upstream/client.js'

/** What every resolver gets: who is asking and this request's own loaders. */
export interface Context {
  caller: Caller
  loaders: Loaders
  /** What this request cost the upstream so far, reported in `extensions.cost`. */
  stats: { readonly upstreamCalls: number }
}

/** The first of nl, fr, en that Accept-Language names (any case, region ignored), if any. */
export function languageOf(acceptLanguage: string | null): Language | undefined {
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim().toLowerCase().split('-')[0]
    if (tag === 'nl' || tag === 'fr' || tag === 'en') return tag.toUpperCase() as Language
  }
  return undefined
}

/** The bearer token of an Authorization header, if it carries one. */
export function bearerToken(authorization: string | null): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')
  return match?.[1]
}

export function contextFactory(client: UpstreamClient) {
  return ({ request }: YogaInitialContext): Context => {
    const caller: Caller = {
      token: bearerToken(request.headers.get('authorization')),
      language: languageOf(request.headers.get('accept-language')),
    }
    const loaders = createLoaders(client, caller)
    return {
      caller,
      loaders,
      stats: {
        get upstreamCalls() {
          return loaders.upstream.attempts.count
        },
      },
    }
  }
}
