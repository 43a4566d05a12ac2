import type { CORSOptions } from 'graphql-yoga'

/**
 * yoga's `cors` option for CORS_ORIGINS (config.ts resolves it when unset): which browser origins
 * may call and read the answer. Never with credentials: the gateway's credential is the
 * `Authorization` header, which a page sets itself (CORS lets it, `Access-Control-Allow-Headers`),
 * and it reads no cookie; allowing credentials would only let browsers attach ambient ones. A
 * preflight (OPTIONS) is answered 204 by yoga before anything else runs, whatever the origin:
 * an origin not allowed simply gets no CORS headers, and the browser refuses.
 */
export function corsOptions(origins: '*' | readonly string[]): (request: Request) => CORSOptions {
  const allowed = new Set(origins === '*' ? [] : origins)
  // For `*` yoga answers with the request's own Origin, and `Vary: Origin`: here only once the
  // origin is known to be allowed.
  const options: CORSOptions = {
    origin: '*',
    methods: ['GET', 'POST'],
    credentials: false,
    exposedHeaders: ['X-Request-Id', 'WWW-Authenticate'],
  }
  return (request) => {
    const origin = request.headers.get('origin')
    // `null` (a sandboxed page, a file) is no origin: never echoed, even when any may call.
    if (origin === null || origin === 'null') return false
    return origins === '*' || allowed.has(origin) ? options : false
  }
}
