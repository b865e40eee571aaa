/**
 * The two protocol eras of an upstream MCP server: the 2025 one (`initialize`, a session, the
 * negotiated version held by the connection) and the modern one (2026-07-28: no handshake and no
 * session; a `server/discover` probe, and every request carrying its protocol version, the client's
 * capabilities and info in `_meta`, over HTTP also the `Mcp-Method`/`Mcp-Name` headers).
 *
 * @since 0.1.0
 */
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCMessage,
  MessageExtraInfo,
  ServerCapabilities,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server"

/**
 * The first (and so far only) protocol revision of the modern era.
 *
 * @since 0.1.0
 */
export const MODERN_PROTOCOL_VERSION = "2026-07-28"

/**
 * Which protocol a backend speaks to its server: `"auto"` (default) probes with `server/discover` and
 * falls back to `initialize` for a 2025 server; `"2026-07-28"` requires the modern protocol (a server
 * without it is reported unavailable); `"2025-11-25"` skips the probe and initializes as before.
 *
 * @since 0.1.0
 */
export type McpProtocolChoice = "auto" | "2026-07-28" | "2025-11-25"

/**
 * `_meta` keys of a modern request. The log level, `traceparent` and `tracestate` are copied into an
 * upstream call's `_meta` from the same keys of the caller's `ExecutionContext.metadata`, so a serving
 * side that puts its caller's values there has them continue upstream.
 *
 * @since 0.1.0
 */
export const MetaKeys = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  traceparent: "traceparent",
  tracestate: "tracestate",
} as const

type Json = Record<string, unknown>

/**
 * What a modern server said about itself in its `server/discover` result.
 *
 * @internal
 * @since 0.1.0
 */
export interface Discovered {
  readonly supportedVersions: readonly string[]
  readonly capabilities: ServerCapabilities
  readonly serverInfo?: Implementation
  readonly instructions?: string
}

/**
 * A `server/discover` result that offers the modern revision, else `undefined` (not a discover result,
 * or one without 2026-07-28).
 *
 * @internal
 * @since 0.1.0
 */
export const parseDiscovered = (result: unknown): Discovered | undefined => {
  if (typeof result !== "object" || result === null) return undefined
  const r = result as Json
  const versions = r.supportedVersions
  if (!Array.isArray(versions) || !versions.includes(MODERN_PROTOCOL_VERSION)) return undefined
  const capabilities = typeof r.capabilities === "object" && r.capabilities !== null ? r.capabilities : {}
  const info = (r._meta as Json | undefined)?.[MetaKeys.serverInfo] as Implementation | undefined
  return {
    supportedVersions: versions.filter((v): v is string => typeof v === "string"),
    capabilities: capabilities as ServerCapabilities,
    ...(typeof info?.name === "string" && typeof info.version === "string" ? { serverInfo: info } : {}),
    ...(typeof r.instructions === "string" ? { instructions: r.instructions } : {}),
  }
}

/** The body field the `Mcp-Name` header mirrors, per method. */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
}

/**
 * A value as an HTTP field value: plain when it is safe visible ASCII, else `=?base64?…?=` of its UTF-8.
 *
 * @internal
 * @since 0.1.0
 */
export const encodeHeaderValue = (value: string): string => {
  let plain =
    value.length > 0 && value === value.trim() && !(value.startsWith("=?base64?") && value.endsWith("?="))
  for (let i = 0; plain && i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c !== 9 && (c < 32 || c > 126)) plain = false
  }
  return plain ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`
}

/**
 * The `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` header lines (each ending in CRLF) of a modern request; `""` for a
 * message that carries no modern protocol version in `_meta` (a 2025 exchange gets none).
 *
 * @internal
 * @since 0.1.0
 */
export const modernHeaderLines = (message: unknown): string => {
  const m = message as { method?: unknown; id?: unknown; params?: Json }
  if (typeof m.method !== "string" || m.id === undefined) return ""
  const params = m.params
  const version = (params?._meta as Json | undefined)?.[MetaKeys.protocolVersion]
  if (typeof version !== "string") return ""
  let lines = `mcp-protocol-version: ${encodeHeaderValue(version)}\r\nmcp-method: ${encodeHeaderValue(m.method)}\r\n`
  const field = Object.hasOwn(NAME_SOURCE, m.method) ? NAME_SOURCE[m.method] : undefined
  const name = field === undefined ? undefined : params?.[field]
  if (typeof name === "string") lines += `mcp-name: ${encodeHeaderValue(name)}\r\n`
  return lines
}

/**
 * The same headers as a record (for `fetch` and `node:http`).
 *
 * @internal
 * @since 0.1.0
 */
export const modernHeaders = (message: unknown): Record<string, string> =>
  headerRecord(modernHeaderLines(message))

/**
 * Header lines (each ending in CRLF) as a record.
 *
 * @internal
 * @since 0.2.0
 */
export const headerRecord = (lines: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const line of lines.split("\r\n")) {
    const colon = line.indexOf(": ")
    if (colon > 0) out[line.slice(0, colon)] = line.slice(colon + 2)
  }
  return out
}

/**
 * The `_meta` envelope of every modern request and notification the client sends.
 *
 * @internal
 * @since 0.1.0
 */
export const modernEnvelope = (clientInfo: Implementation, capabilities: ClientCapabilities): Json => ({
  [MetaKeys.protocolVersion]: MODERN_PROTOCOL_VERSION,
  [MetaKeys.clientCapabilities]: capabilities,
  [MetaKeys.clientInfo]: clientInfo,
})

/**
 * A transport that speaks the modern era over another one: every request and notification the client
 * sends gets the modern `_meta` envelope (which wins over the same keys in the request; its other keys, e.g. a
 * log level, stay), and a result's
 * `resultType: "complete"` stays on the object (callers read a result without `resultType` as complete,
 * which is what a 2025 server sends). Handlers set on it are the inner transport's.
 *
 * @internal
 * @since 0.1.0
 */
export class ModernEnvelopeTransport implements Transport {
  readonly inner: Transport
  readonly #envelope: Json
  #started = false

  constructor(inner: Transport, envelope: Json, started: boolean) {
    this.inner = inner
    this.#envelope = envelope
    this.#started = started
  }

  get onmessage(): Transport["onmessage"] {
    return this.inner.onmessage
  }
  set onmessage(handler: ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined) {
    this.inner.onmessage = handler
  }
  get onclose(): (() => void) | undefined {
    return this.inner.onclose
  }
  set onclose(handler: (() => void) | undefined) {
    this.inner.onclose = handler
  }
  get onerror(): ((error: Error) => void) | undefined {
    return this.inner.onerror
  }
  set onerror(handler: ((error: Error) => void) | undefined) {
    this.inner.onerror = handler
  }

  async start(): Promise<void> {
    if (this.#started) return
    this.#started = true
    await this.inner.start()
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Json & { method?: unknown; params?: Json }
    if (typeof m.method !== "string") return this.inner.send(message, options)
    const params = m.params
    const meta = params?._meta as Json | undefined
    // The direct call path hands over a `_meta` object of its own: filled in place (no copies per call).
    // The envelope's keys (this client's protocol version, capabilities and info) win over any a request
    // carries, e.g. a downstream client's forwarded by the gateway; a request's own log level and trace
    // context stay.
    // A request may narrow the capabilities to its caller's (CALL_CAPABILITIES).
    const narrowed = this.#narrowed((meta as { [CALL_CAPABILITIES]?: Json } | undefined)?.[CALL_CAPABILITIES])
    if (meta !== undefined && (meta as { [OWNED_META]?: true })[OWNED_META] === true) {
      for (const key in this.#envelope) meta[key] = this.#envelope[key]
      if (narrowed !== undefined) meta[MetaKeys.clientCapabilities] = narrowed
      return this.inner.send(message, options)
    }
    const enveloped = {
      ...m,
      params: {
        ...params,
        _meta: {
          ...meta,
          ...this.#envelope,
          ...(narrowed !== undefined ? { [MetaKeys.clientCapabilities]: narrowed } : {}),
        },
      },
    } as unknown as JSONRPCMessage
    return this.inner.send(enveloped, options)
  }

  /**
   * A caller's capabilities as declared upstream: what it can answer (elicitation, sampling, roots), plus
   * the extensions this connection itself negotiated (tasks: the backend follows a task whoever calls).
   */
  #narrowed(caller: Json | undefined): Json | undefined {
    if (caller === undefined) return undefined
    const own = (this.#envelope[MetaKeys.clientCapabilities] as Json | undefined)?.extensions
    return own === undefined ? caller : { ...caller, extensions: own }
  }

  close(): Promise<void> {
    return this.inner.close()
  }

  get sessionId(): string | undefined {
    return undefined
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version)
  }
}

/**
 * Marks a `_meta` object the sender owns (created for this one request), so the envelope is added to it
 * in place instead of copying the message.
 *
 * @internal
 * @since 0.1.0
 */
export const OWNED_META: unique symbol = Symbol("toolplane.ownedMeta")

/**
 * Marks the client capabilities one request declares instead of the connection's (a backend relaying
 * for a caller declares what it can forward for that caller); a symbol key of the request's `_meta`, so
 * it is never sent as such.
 *
 * @internal
 * @since 0.2.0
 */
export const CALL_CAPABILITIES: unique symbol = Symbol("toolplane.callCapabilities")
