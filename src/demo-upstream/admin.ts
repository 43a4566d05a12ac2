import type { IncomingMessage, ServerResponse } from 'node:http'
import { type FaultSettings, faultSettings, invalidSetting, NO_FAULTS, shown } from './settings.js'

/**
 * `/_demo/faults` on the demo's own port, for a frontend developer to turn faults on and off
 * while the UI runs: GET shows the fault settings, PUT replaces them (a JSON object of the
 * settings' names, as GET shows them; a name left out is unset), DELETE clears them. No token:
 * it is a development tool, served by default only when the demo listens on loopback. PUT and
 * DELETE are not simple requests, so a web page of another origin cannot send them.
 */

export const ADMIN_PATH = '/_demo/faults'
/** Far more than any fault settings take. */
const MAX_BODY_BYTES = 16 * 1024

/** What the start-up logs add about the endpoint, served at `url` (nothing when it is off). */
export const adminNote = (url: string | undefined) =>
  url === undefined
    ? ''
    : `; turn faults on and off (error states for a UI) with GET, PUT, DELETE ${url} (docs/demo-upstream.md)`

/** What the endpoint changes. */
export interface FaultTarget {
  readonly faultSettings: FaultSettings
  configure(settings: FaultSettings): void
}

export async function answerAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  target: FaultTarget,
  enabled: boolean,
): Promise<void> {
  const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { ...headers, 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  const refuse = (status: number, message: string, headers?: Record<string, string>) =>
    send(status, { error: { status, message } }, headers)

  if (!enabled) {
    return refuse(
      403,
      'the fault settings endpoint is off: the demo listens beyond loopback (DEMO_ADMIN=true serves it anyway) or DEMO_ADMIN=false',
    )
  }
  if (new URL(req.url ?? '/', 'http://demo').pathname !== ADMIN_PATH) {
    return refuse(404, `nothing here: the fault settings are at ${ADMIN_PATH}`)
  }
  if (req.method === 'DELETE') target.configure(NO_FAULTS)
  else if (req.method === 'PUT') {
    const body = await readJson(req)
    if ('refused' in body) return refuse(body.refused, body.message)
    const parsed = faultSettings.strict().safeParse(body.json)
    if (!parsed.success) return refuse(400, invalidSetting(parsed.error))
    target.configure(parsed.data)
  } else if (req.method !== 'GET') {
    return refuse(405, 'GET, PUT or DELETE', { allow: 'GET, PUT, DELETE' })
  }
  send(200, shown(target.faultSettings))
}

/** The request body as JSON, or the status and message that refuse it. */
async function readJson(
  req: IncomingMessage,
): Promise<{ json: unknown } | { refused: number; message: string }> {
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        return { refused: 413, message: `the body is over ${MAX_BODY_BYTES} bytes` }
      }
      chunks.push(chunk)
    }
  } catch {
    // The caller went away mid-body: nobody reads the answer, and the demo goes on.
    return { refused: 400, message: 'the body did not arrive whole' }
  }
  try {
    return { json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }
  } catch {
    return {
      refused: 400,
      message: 'the body is not JSON: send an object such as {"DEMO_FAULTS": "financials:503"}',
    }
  }
}
