/**
 * The `server/discover` probe that opens a connection in `"auto"` or modern mode: one request on the
 * raw transport, before any client is connected to it.
 *
 * @since 0.1.0
 */
import { SdkHttpError, type Transport } from "@modelcontextprotocol/server"
import { type Discovered, MODERN_PROTOCOL_VERSION, parseDiscovered } from "./era.js"

/**
 * What the probe found: a modern server (with what it discovered), or a 2025 one (`closed` when the
 * server ended the connection over the probe, so a new one must be opened for `initialize`).
 *
 * @internal
 * @since 0.1.0
 */
export type ProbeVerdict =
  | { readonly era: "modern"; readonly discovered: Discovered }
  | { readonly era: "legacy"; readonly reason: string; readonly closed: boolean }

/** The probe's JSON-RPC id: a string, so it never meets the client's numeric ids. */
const PROBE_ID = "toolplane-discover"

/** An HTTP status carried by a transport's error (ours in `code`, SDK v2's `SdkHttpError` in `status`). */
const httpStatus = (error: unknown): number | undefined => {
  if (error instanceof SdkHttpError) return error.status
  const code = (error as { code?: unknown })?.code
  // Ours is named StreamableHTTPError; the SDK's keeps the name Error and says so in its message.
  const named =
    (error as Error)?.name === "StreamableHTTPError" ||
    String((error as Error)?.message).startsWith("Streamable HTTP error")
  return named && typeof code === "number" && code >= 100 ? code : undefined
}

/** JSON-RPC UnsupportedProtocolVersion (2026-07-28): `data.supported` lists the versions the server speaks. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022

/**
 * Whether a JSON-RPC error (or an HTTP error whose body carries one) is UnsupportedProtocolVersion naming
 * 2026-07-28 among the supported versions: the request is sent again, once, rather than taken as a 2025
 * server's refusal.
 */
const namesModernAsSupported = (error: unknown): boolean => {
  let e = error as { code?: unknown; data?: { supported?: unknown } } | undefined
  if (error instanceof Error) {
    const text = error.message
    const at = text.indexOf("{")
    try {
      e = at < 0 ? undefined : (JSON.parse(text.slice(at)) as { error?: typeof e }).error
    } catch {
      e = undefined
    }
  }
  const supported = e?.data?.supported
  return (
    e?.code === UNSUPPORTED_PROTOCOL_VERSION &&
    Array.isArray(supported) &&
    supported.includes(MODERN_PROTOCOL_VERSION)
  )
}

/**
 * Sends `server/discover` with the modern envelope and classifies the answer. A JSON-RPC error (method
 * not found, unsupported version, not initialized), an HTTP 4xx other than 401/403, or a result without
 * 2026-07-28 mean a 2025 server (except UnsupportedProtocolVersion naming 2026-07-28 as supported: then
 * the probe is sent once more); over stdio so do a closed connection and no answer in time (some
 * servers ignore or exit on a request before `initialize`). Rejects for what says nothing about the era
 * (connection refused, 401/403, 5xx, an HTTP timeout). Leaves the transport started, its handlers unset.
 *
 * @internal
 * @since 0.1.0
 */
export const probeEra = (
  transport: Transport,
  envelope: Record<string, unknown>,
  timeoutMs: number,
  kind: "stdio" | "http",
): Promise<ProbeVerdict> =>
  new Promise((resolve, reject) => {
    let done = false
    const finish = (verdict: ProbeVerdict | undefined, error?: unknown) => {
      if (done) return
      done = true
      clearTimeout(timer)
      transport.onmessage = undefined
      transport.onclose = undefined
      transport.onerror = undefined
      if (verdict !== undefined) resolve(verdict)
      else reject(error)
    }
    const legacy = (reason: string, closed = false) => finish({ era: "legacy", reason, closed })
    const timer = setTimeout(() => {
      if (kind === "stdio") legacy(`no answer to server/discover within ${timeoutMs} ms`)
      else finish(undefined, new Error(`server/discover timed out after ${timeoutMs} ms`))
    }, timeoutMs)
    transport.onmessage = (message) => {
      const m = message as { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } }
      if (m.id !== PROBE_ID) return
      if (m.error !== undefined) {
        if (!retried && namesModernAsSupported(m.error)) {
          retried = true
          send().catch(failed)
          return
        }
        legacy(`server/discover answered ${String(m.error?.code)} ${String(m.error?.message)}`)
        return
      }
      const discovered = parseDiscovered(m.result)
      if (discovered !== undefined) finish({ era: "modern", discovered })
      else legacy("server/discover did not offer 2026-07-28")
    }
    transport.onclose = () => {
      if (kind === "stdio") legacy("the server closed the connection on server/discover", true)
      else finish(undefined, new Error("connection closed during server/discover"))
    }
    transport.onerror = () => {
      // A failed POST rejects `send` below, with its status; stdio errors end in onclose.
    }
    let retried = false
    const send = () =>
      transport.send({
        jsonrpc: "2.0",
        id: PROBE_ID,
        method: "server/discover",
        params: { _meta: { ...envelope } },
      })
    const failed = (error: unknown): void => {
      const status = httpStatus(error)
      if (status === 400 && !retried && namesModernAsSupported(error)) {
        retried = true
        send().catch(failed)
      } else if (status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403)
        legacy(`server/discover answered HTTP ${status}`)
      else finish(undefined, error)
    }
    transport.start().then(send).catch(failed)
  })
