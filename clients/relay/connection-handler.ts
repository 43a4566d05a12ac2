import {
  ConnectionHandler,
  DefaultHandlerProvider,
  type HandleFieldPayload,
  type PayloadError,
  type RecordProxy,
  type RecordSourceProxy,
} from 'relay-runtime'
import { type GatewayError, gatewayError } from './gateway-answers.js'

/**
 * The errors of the last page of a connection that failed, by parent record and connection key,
 * until a page of it arrives.
 */
export class FailedPages {
  readonly #pages = new Map<string, GatewayError[]>()

  static key(parentId: string, handleKey: string) {
    // The handle's storage key without its filters' arguments: `__<key>_connection`.
    return `${parentId}\u0000${handleKey.replace(/\(.*$/s, '')}`
  }

  set(key: string, errors: GatewayError[]) {
    this.#pages.set(key, errors)
  }

  delete(key: string) {
    this.#pages.delete(key)
  }

  /** The errors of the last page fetched for that connection (`__<key>_connection`), if it failed. */
  get(parentId: string, handleKey: string): GatewayError[] | undefined {
    return this.#pages.get(FailedPages.key(parentId, handleKey))
  }
}

/** RecordProxy.getErrors: in relay-runtime 21, not yet in @types/relay-runtime 20. */
type WithErrors = RecordProxy & { getErrors?(key: string): readonly PayloadError[] | undefined }

/**
 * Relay's connection handler, but a failed page never replaces the rows already shown. The
 * gateway answers a failed page with the connection null and its error (contract/runtime.md);
 * Relay's own ConnectionHandler would write that null over the whole client-side connection (all
 * rows gone, no cursor left to retry from). Here a null page fetched with `after` or `before`
 * leaves the connection as it was and records its errors for useLoadMore; a null first page
 * (no cursor) is written as the gateway says, like any field with an error.
 */
export function handlerProvider(failed: FailedPages) {
  const connection = {
    update(store: RecordSourceProxy, payload: HandleFieldPayload) {
      const parent = store.get(payload.dataID) as WithErrors | null | undefined
      const key = FailedPages.key(payload.dataID, payload.handleKey)
      const isPage = payload.args.after != null || payload.args.before != null
      if (
        parent &&
        isPage &&
        parent.getLinkedRecord(payload.fieldKey) == null &&
        parent.getLinkedRecord(payload.handleKey) != null
      ) {
        failed.set(
          key,
          (parent.getErrors?.(payload.fieldKey) ?? []).map((e) => gatewayError(e)),
        )
        return
      }
      failed.delete(key)
      ConnectionHandler.update(store, payload)
    },
  }
  return (handle: string) => (handle === 'connection' ? connection : DefaultHandlerProvider(handle))
}
