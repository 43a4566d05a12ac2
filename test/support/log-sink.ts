import { Writable } from 'node:stream'

/** A destination for the gateway's logger that keeps every line, for tests to read. */
export function logSink() {
  let text = ''
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk
      done()
    },
  })
  return {
    stream,
    /** Everything logged since the last clear(). */
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    clear: () => {
      text = ''
    },
  }
}
