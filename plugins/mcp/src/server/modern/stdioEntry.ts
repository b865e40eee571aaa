/**
 * Stateless serving over stdio: a message that claims 2026-07-28 (its `_meta` names the revision, or it
 * is `server/discover`) is answered by {@link ModernServing} on the same pipe; everything else goes to
 * the 2025 server as before (one stdio connection may carry both eras). There are no HTTP headers to
 * check; `notifications/cancelled` for a stateless request in flight cancels it.
 *
 * @internal
 */
import type { Transport } from "@modelcontextprotocol/server"
import { CallController } from "../serve.js"
import { claimsModern } from "./negotiation.js"
import type { ModernServing } from "./serving.js"

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Routes a connected transport's stateless messages to `serving`, the rest to its server. */
export const serveModernOn = (
  transport: Transport,
  serving: ModernServing,
  onError?: (error: unknown) => void,
) => {
  const legacy = transport.onmessage
  const inFlight = new Map<string | number, CallController>()
  const send = (message: Record<string, unknown>) => {
    transport.send(message as never).catch((error) => onError?.(error))
  }
  transport.onmessage = (message, extra) => {
    const m = message as unknown as Record<string, unknown>
    if (m.method === "notifications/cancelled" && isObject(m.params)) {
      const id = m.params.requestId as string | number | undefined
      const controller = id !== undefined ? inFlight.get(id) : undefined
      if (controller) {
        controller.cancel(new Error("the client cancelled the request"))
        inFlight.delete(id!)
        return
      }
    }
    if (!claimsModern(m)) {
      legacy?.(message, extra)
      return
    }
    const id = m.id as string | number | undefined
    const controller = new CallController()
    if (id !== undefined) inFlight.set(id, controller)
    serving
      .serve(m, {}, { notify: send, answer: (answer) => send(answer) }, controller)
      .catch((error) => onError?.(error))
      .finally(() => {
        if (id !== undefined && inFlight.get(id) === controller) inFlight.delete(id)
      })
  }
}
