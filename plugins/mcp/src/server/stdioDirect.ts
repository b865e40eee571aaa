/**
 * The 2025-era hot path of `serveStdio`: `tools/call` and `tools/list` with params of the shape their
 * handlers read are answered by the exposure's handlers directly, as the HTTP sessions answer them
 * (`nodeSessions.ts`), without the SDK server's protocol layer (its per-request context, era codec and
 * promise chain); everything else, and anything odd, goes to the SDK server as before. A
 * `notifications/cancelled` for a call dispatched here cancels it (nothing is answered); closing the
 * transport cancels every such call.
 *
 * @internal
 */
import type { AuthInfo, JSONRPCMessage, Server, Transport } from "@modelcontextprotocol/server"
import {
  CALL_CONTROLLER,
  CallController,
  directErrorMember,
  isDirectParams,
  type McpExposure,
  type RequestExtra,
} from "./serve.js"

type RequestId = string | number

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The `extra` of a call dispatched here: notifications and requests to the client related to it. */
class StdioExtra implements RequestExtra {
  readonly requestId: RequestId
  readonly signal: AbortSignal
  readonly _meta: unknown
  readonly authInfo?: AuthInfo
  readonly [CALL_CONTROLLER]: CallController
  readonly #server: Server

  constructor(server: Server, requestId: RequestId, controller: CallController, meta: unknown) {
    this.requestId = requestId
    this.signal = controller.signal
    this._meta = meta
    this[CALL_CONTROLLER] = controller
    this.#server = server
  }

  async sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void> {
    if (!this[CALL_CONTROLLER].cancelled)
      await this.#server.notification(notification as never, { relatedRequestId: this.requestId })
  }

  async sendRequest(request: {
    method: string
    params?: Readonly<Record<string, unknown>>
  }): Promise<unknown> {
    return this.#server.request(request as never, { relatedRequestId: this.requestId })
  }
}

/** Routes a connected transport's well-shaped `tools/call` and `tools/list` to the exposure's handlers. */
export const serveDirectOn = (
  transport: Transport,
  server: Server,
  exposure: McpExposure,
  onError?: (error: unknown) => void,
): void => {
  const handlers = exposure.direct(server)
  if (handlers === undefined) return
  const inner = transport.onmessage
  const previousClose = transport.onclose
  const inFlight = new Map<RequestId, CallController>()
  const send = (message: Record<string, unknown>) =>
    transport.send(message as unknown as JSONRPCMessage).catch((error) => onError?.(error))
  transport.onclose = () => {
    for (const controller of inFlight.values()) controller.cancel(new Error("the transport closed"))
    inFlight.clear()
    previousClose?.()
  }
  transport.onmessage = (message, extra) => {
    const m = message as unknown as Record<string, unknown>
    const method = m.method
    if (method === "notifications/cancelled" && isObject(m.params)) {
      const id = m.params.requestId as RequestId | undefined
      const controller = id !== undefined ? inFlight.get(id) : undefined
      if (controller) {
        inFlight.delete(id!)
        controller.cancel(new Error("the client cancelled the request"))
        return
      }
    }
    const id = m.id as RequestId | undefined
    if (
      (method !== "tools/call" && method !== "tools/list") ||
      id === undefined ||
      id === null ||
      inFlight.has(id) ||
      !isDirectParams(method, m.params)
    ) {
      inner?.(message, extra)
      return
    }
    const controller = new CallController()
    inFlight.set(id, controller)
    const call = new StdioExtra(server, id, controller, (m.params as { _meta?: unknown } | undefined)?._meta)
    handlers[method](m.params, call as never).then(
      (result) => {
        if (inFlight.get(id) === controller) inFlight.delete(id)
        if (!controller.cancelled) void send({ jsonrpc: "2.0", id, result })
      },
      (error: { code?: unknown; message?: unknown; data?: unknown }) => {
        if (inFlight.get(id) === controller) inFlight.delete(id)
        if (!controller.cancelled) void send({ jsonrpc: "2.0", id, error: directErrorMember(error) })
      },
    )
  }
}
