import type { CORSOptions } from 'graphql-yoga'

/**
 * yoga's `cors` option for CORS_ORIGINS (config.ts resolves it when unset): which browser origins
 * may call and read the answer. Never with credentials: the gateway's credential is the
 * `Authorization` header, which a page sets itself (CORS lets it, `Access-Control-Allow-Headers`),
 * and it reads no cookie; allowing credentials would only let browsers attach ambient ones. A
 * preflight (OPTIONS) is answered 204 by yoga before anything else runs, whatever the origin:
 * an origin not allowed simply gets no CORS headers, and the browser refuses. Its answer says
 * how long the browser may reuse it (`Access-Control-Max-Age`).
 */
export function corsOptions(
  origins: '*' | readonly string[],
  maxAgeSeconds: number,
): (request: Request) => CORSOptions {
  const allowed = originAllowed(origins)
  // For `*` yoga answers with the request's own Origin, and `Vary: Origin`: here only once the
  // origin is known to be allowed.
  const options: CORSOptions = {
    origin: '*',
    methods: ['GET', 'POST'],
    credentials: false,
    exposedHeaders: ['X-Request-Id', 'WWW-Authenticate'],
    // CORS_MAX_AGE_SECONDS: without it a browser preflights again after 5 s (Chromium), so a
    // page whose clicks are further apart pays a preflight for each POST.
    maxAge: maxAgeSeconds,
  }
  return (request) => (allowed(request.headers.get('origin')) ? options : false)
}

/** Whether a page of `origin` may call (CORS_ORIGINS). */
export function originAllowed(
  origins: '*' | readonly string[],
): (origin: string | null) => boolean {
  const listed = new Set(origins === '*' ? [] : origins)
  // `null` (a sandboxed page, a file) is no origin: never allowed, even when any may call.
  return (origin) => origin !== null && origin !== 'null' && (origins === '*' || listed.has(origin))
}
