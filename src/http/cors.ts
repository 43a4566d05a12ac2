import type { CORSOptions } from 'graphql-yoga'

/** yoga's `cors` option; no credentials: allowing them would only attach ambient cookies. */
export function corsOptions(
  origins: '*' | readonly string[],
  maxAgeSeconds: number,
): (request: Request) => CORSOptions {
  const allowed = originAllowed(origins)
  // For `*` yoga echoes the request's Origin, here only once it is known to be allowed.
  const options: CORSOptions = {
    origin: '*',
    methods: ['GET', 'POST'],
    credentials: false,
    exposedHeaders: ['X-Request-Id', 'WWW-Authenticate'],
    // Without it Chromium preflights again after 5 s.
    maxAge: maxAgeSeconds,
  }
  return (request) => (allowed(request.headers.get('origin')) ? options : false)
}

export function originAllowed(
  origins: '*' | readonly string[],
): (origin: string | null) => boolean {
  const listed = new Set(origins === '*' ? [] : origins)
  // `null` (a sandboxed page, a file) is no origin: never allowed, even when any may call.
  return (origin) => origin !== null && origin !== 'null' && (origins === '*' || listed.has(origin))
}
