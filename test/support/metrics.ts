import { expect } from 'vitest'
import type { Client } from './stack.js'

/** A gateway's /metrics, as Prometheus scrapes it. */
export async function metricsOf(client: Pick<Client, 'request'>): Promise<string> {
  const response = await client.request({ path: '/metrics' })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
  return response.text
}

/** The value of one sample (`name{labels}`) of /metrics, 0 when it is absent. */
export function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}
