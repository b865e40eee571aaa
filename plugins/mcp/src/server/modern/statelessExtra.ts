/**
 * The `extra` a stateless request's handler gets: what it reads (the request's signal, id, `_meta`,
 * auth and, for a `context` option, request info), notifications on the request's own stream while the
 * client has not gone away, and no server-to-client requests. One object of a fixed shape per call, as
 * a session's direct dispatch makes (an object literal with a getter and optional members is built
 * property by property on every call).
 *
 * @internal
 */
import { CALL_CONTROLLER, type CallController, MODERN_REQUEST, type ModernRequest } from "../serve.js"
import { ModernProtocolError } from "./errors.js"
import { ModernErrorCode } from "./protocol.js"

/** Who made the request (a `ModernCaller`, as far as the handler reads it). */
interface Caller {
  readonly authInfo?: object
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>
}

export class StatelessExtra {
  readonly signal: AbortSignal
  readonly requestId: string | number
  readonly authInfo?: object
  readonly _meta: unknown
  /** Own (not on the prototype): callers take it off the object and call it alone. */
  readonly sendNotification: (notification: Record<string, unknown>) => Promise<void>
  readonly [CALL_CONTROLLER]: CallController
  readonly [MODERN_REQUEST]: ModernRequest
  readonly #caller: Caller

  constructor(
    controller: CallController,
    id: string | number,
    caller: Caller,
    meta: unknown,
    out: { notify(message: Record<string, unknown>): void },
    modern: ModernRequest,
  ) {
    this.signal = controller.signal
    this.requestId = id
    if (caller.authInfo) this.authInfo = caller.authInfo
    this._meta = meta
    this.sendNotification = async (notification) => {
      if (!controller.signal.aborted) out.notify({ jsonrpc: "2.0", ...notification })
    }
    this[CALL_CONTROLLER] = controller
    this[MODERN_REQUEST] = modern
    this.#caller = caller
  }

  /** Read only by a `context` option (a raw-edge request builds its header record on first read). */
  get requestInfo(): { headers: NonNullable<Caller["headers"]> } | undefined {
    const headers = this.#caller.headers
    return headers ? { headers } : undefined
  }

  async sendRequest(): Promise<never> {
    throw new ModernProtocolError(
      ModernErrorCode.InternalError,
      "a stateless request cannot carry server-to-client requests",
    )
  }
}
