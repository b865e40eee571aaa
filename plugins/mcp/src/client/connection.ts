/**
 * One MCP client connection (stdio subprocess or Streamable HTTP) that reconnects with exponential
 * backoff when the server goes away.
 *
 * @since 0.1.0
 */
import { Client, type DiscoverResult, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import {
  type ClientCapabilities,
  type Implementation,
  type Progress,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SERVER_INFO_META_KEY,
  type Transport,
} from "@modelcontextprotocol/server"
import { BackendUnavailable, causeOf } from "@toolplane/foundation"
import { isUnreachable } from "../errors.js"
import {
  type Discovered,
  headerRecord,
  type McpProtocolChoice,
  MODERN_PROTOCOL_VERSION,
  ModernEnvelopeTransport,
  modernEnvelope,
  modernHeaderLines,
} from "./era.js"
import { NodeStreamableHttpTransport } from "./nodeHttpTransport.js"
import { NodeStdioTransport, type NodeStdioTransportOptions } from "./nodeStdioTransport.js"
import { ParamHeaderBindings } from "./paramHeaders.js"
import { probeEra } from "./probe.js"
import { advertisesTasks, withTasksCapability } from "./tasksExtension.js"

/**
 * How to start an MCP server as a subprocess speaking MCP over stdin/stdout.
 *
 * @since 0.1.0
 */
export interface McpStdioConfig {
  readonly command: string
  readonly args?: readonly string[]
  /** Added to a safe default environment (PATH, HOME, ...), as the MCP SDK does. */
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /**
   * What to do with the server's stderr: `"pipe"` (default) keeps the last lines for error messages
   * (see `status().stderrTail`), `"inherit"` passes it through, `"ignore"` drops it.
   */
  readonly stderr?: "pipe" | "inherit" | "ignore"
  /**
   * The client transport: `"node"` (default, except on Windows), a lean one on `node:child_process` (see
   * {@link NodeStdioTransport}); `"sdk"` (default on Windows, where its cross-spawn runs `.cmd` shims), the
   * SDK's `StdioClientTransport`.
   *
   * @since 0.1.0
   */
  readonly transport?: "node" | "sdk"
  /**
   * With the `"node"` transport on POSIX: run the server in its own process group (a new session) and
   * stop the whole group on close, so what a wrapper (`npx`, `sh -c`) started goes too. Default `false`
   * (see {@link NodeStdioTransportOptions.processGroup} for why).
   *
   * @since 0.1.0
   */
  readonly processGroup?: boolean
}

/**
 * How to reach an MCP server over Streamable HTTP.
 *
 * @since 0.1.0
 */
export interface McpHttpConfig {
  readonly url: string | URL
  /** Sent with every request (e.g. `Authorization`). */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * The client transport: `"node"` (default), a lean one on `node:http` with a keep-alive agent (see
   * {@link NodeStreamableHttpTransport}); `"fetch"`, the SDK's `StreamableHTTPClientTransport` on `fetch`
   * and web streams.
   */
  readonly transport?: "node" | "fetch"
  /**
   * Per-request credentials (e.g. from {@link oauthUpstreamAuth}): the `Authorization` header of each
   * request, and what to do on a 401 (refresh and retry once, or fail with a typed error).
   *
   * @since 0.1.0
   */
  readonly auth?: McpUpstreamAuth
}

/**
 * Per-request credentials of an HTTP backend.
 *
 * @since 0.1.0
 */
export interface McpUpstreamAuth {
  /** The `Authorization` header value of the next request, or `undefined` for none. */
  authorization(): Promise<string | undefined>
  /** A 401 arrived with this `WWW-Authenticate`: resolve to retry once, reject to fail the request. */
  onUnauthorized(challenge: string | undefined): Promise<void>
}

/** What our probe's `server/discover` said, as the SDK client's `DiscoverResult`. */
const discoverResult = (discovered: Discovered): DiscoverResult => ({
  supportedVersions: [...discovered.supportedVersions],
  capabilities: discovered.capabilities,
  ...(discovered.instructions !== undefined ? { instructions: discovered.instructions } : {}),
  ...(discovered.serverInfo !== undefined
    ? { _meta: { [SERVER_INFO_META_KEY]: discovered.serverInfo } }
    : {}),
})

/** Clears the session id a transport recorded (ours has a public field, the SDK's a private one). */
const forgetSession = (transport: Transport): void => {
  if (transport.sessionId === undefined) return
  const fields = transport as { sessionId?: string; _sessionId?: string }
  if (transport instanceof NodeStreamableHttpTransport) fields.sessionId = undefined
  else fields._sessionId = undefined
}

/** Wraps a `fetch` with an {@link McpUpstreamAuth}: the header on every request, one retry after a 401. */
const authorizingFetch =
  (auth: McpUpstreamAuth, inner: ReturnType<typeof originMarkingFetch>) =>
  async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const withAuth = async (): Promise<RequestInit> => {
      const headers = new Headers(init?.headers)
      const value = await auth.authorization()
      if (value !== undefined) headers.set("authorization", value)
      return { ...init, headers }
    }
    const response = await inner(url, await withAuth())
    if (response.status !== 401) return response
    await response.body?.cancel()
    await auth.onUnauthorized(response.headers.get("www-authenticate") ?? undefined)
    return inner(url, await withAuth())
  }

/**
 * Where an MCP server is: a command to spawn, or a Streamable HTTP endpoint.
 *
 * @since 0.1.0
 */
export type McpTransportConfig = { readonly stdio: McpStdioConfig } | { readonly http: McpHttpConfig }

/**
 * Reconnection with exponential backoff: the n-th retry waits `initialDelayMs * factor^n`, capped at
 * `maxDelayMs`, spread by ±`jitter`.
 *
 * @since 0.1.0
 */
export interface ReconnectOptions {
  /** Default 250 ms. */
  readonly initialDelayMs?: number
  /** Default 10 000 ms. */
  readonly maxDelayMs?: number
  /** Default 2. */
  readonly factor?: number
  /** Fraction of the delay added or removed at random. Default 0.2. */
  readonly jitter?: number
  /** Give up after this many failed attempts in a row. Default: never. */
  readonly maxAttempts?: number
  /**
   * Attempts a backend that has never connected makes before it is `failed` (until `connect()` or a
   * use of the backend tries again). Default 1: a server that cannot be started is not respawned in
   * the background; retries with backoff start only once a connection was made and then lost.
   */
  readonly initialAttempts?: number
}

/**
 * The state of a connection: `idle` (never connected), `connecting`, `connected`, `reconnecting`
 * (lost or failed, retrying with backoff), `failed` (gave up after `maxAttempts`; `connect()` starts
 * again) or `closed`.
 *
 * @since 0.1.0
 */
export type McpConnectionState = "idle" | "connecting" | "connected" | "reconnecting" | "failed" | "closed"

/**
 * A snapshot of a connection.
 *
 * @since 0.1.0
 */
export interface McpConnectionStatus {
  readonly state: McpConnectionState
  /** Failed attempts since the last successful connection. */
  readonly attempts: number
  /** How many times the connection was (re)established. */
  readonly connections: number
  readonly lastError?: string
  readonly serverInfo?: Implementation
  /** Subprocess id (stdio). */
  readonly pid?: number
  /** The last lines the subprocess wrote to stderr (stdio with `stderr: "pipe"`). */
  readonly stderrTail?: string
  /** Epoch ms of the next reconnection attempt, while reconnecting. */
  readonly nextAttemptAt?: number
  /**
   * The protocol spoken on the current connection: `"2026-07-28"` (modern) or the version `initialize`
   * negotiated.
   *
   * @since 0.1.0
   */
  readonly protocolVersion?: string
}

/**
 * @internal
 * @since 0.1.0
 */
export interface ConnectionHooks {
  readonly name: string
  readonly clientInfo: Implementation
  /** Capabilities the client declares (e.g. sampling and elicitation it forwards). Default none. */
  readonly capabilities?: ClientCapabilities
  readonly connectTimeoutMs: number
  readonly probeTimeoutMs: number
  /** Which protocol to speak (default `"auto"`). */
  readonly protocol?: McpProtocolChoice
  /**
   * Declare the tasks extension in the per-request capabilities of a modern server that advertises it
   * (see tasksExtension.ts). Default `false`.
   *
   * @since 0.2.0
   */
  readonly tasks?: boolean
  readonly reconnect: ReconnectOptions | false
  /** Installs notification handlers on a fresh client, before it connects. */
  readonly setup: (client: Client) => void
  /** Runs after each successful connection (loads tools); a failure counts as a failed attempt. */
  readonly onConnected: (client: Client) => Promise<void>
  /** Runs once a connection is established and current (`client` is the connection's client). */
  readonly onReady?: (client: Client) => void
  readonly onStatus: (status: McpConnectionStatus) => void
}

const STDERR_TAIL_BYTES = 2048

/** Windows resolves `npx` and friends to `.cmd` shims only the SDK's cross-spawn runs without a shell. */
const DEFAULT_STDIO_TRANSPORT = process.platform === "win32" ? "sdk" : "node"

/** The longest delay `setTimeout` accepts: the SDK's own request timeout is disabled with it. */
const MAX_TIMER_MS = 2_147_483_647

/**
 * A result schema (Standard Schema) for `client.request` that takes the result as it is (callers check it).
 *
 * @internal
 */
export const RAW_RESULT = {
  "~standard": { version: 1, vendor: "toolplane", validate: (value: unknown) => ({ value }) },
} as never

/**
 * `_meta` key under which a Streamable HTTP connection marks server requests and notifications that
 * arrived on the response stream of a `tools/call`, with that call's progress token: MCP itself does not
 * say which call a server's `sampling/createMessage`, `elicitation/create` or log message belongs to.
 *
 * @internal
 * @since 0.1.0
 */
export const ORIGIN_META_KEY = "toolplane.dev/origin"

type Json = Record<string, unknown>

/**
 * A request sent with {@link McpConnection.send}, past the SDK client's bookkeeping: the connection
 * settles it exactly once (unless its owner cancels it first) and hands it the progress notifications
 * sent for its token. One object per call carries all of this (no closures, promises or maps of the
 * connection's own per call).
 *
 * @internal
 * @since 0.1.0
 */
export interface SentRequest {
  /** The JSON-RPC id (set by `send`; `-1` when it went through the SDK client). */
  requestId: number
  /** The `_meta.progressToken` `send` gave the request. */
  progressToken: string
  /** While it goes through the SDK client (see `send`): aborting this cancels it. */
  viaClient: AbortController | undefined
  /** Its raw result (unvalidated). */
  resolveRequest(result: unknown): void
  /** A `ProtocolError` (JSON-RPC error), an `SdkError` (closed connection), the transport's failure, or the cancel reason. */
  rejectRequest(error: unknown): void
  /** A progress notification for its token, as it arrives. */
  progress(params: Progress): void
}

/** A progress token of a request sent directly: `tp-<id>`, so the id finds the request (no map of tokens). */
const TOKEN_PREFIX = "tp-"
/** Progress tokens of requests sent through the SDK client: `tp-c<n>`. */
const CLIENT_TOKEN_PREFIX = "tp-c"

/** The requests one connected client sent directly, by id (ids taken from the SDK client's own counter). */
interface DirectSession {
  readonly client: Client
  readonly transport: Transport
  readonly pending: Map<number, SentRequest>
}

/** The SDK client's next request id (a private field; checked before use). */
type WithRequestIds = { _requestMessageId?: unknown }

/** Adds the origin token to the `_meta` of server requests and notifications in one SSE event. */
const markEvent = (event: string, token: string): string => {
  const lines = event.split(/\r?\n/)
  const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(l.startsWith("data: ") ? 6 : 5))
  if (data.length === 0) return event
  let message: Json
  try {
    message = JSON.parse(data.join("\n")) as Json
  } catch {
    return event
  }
  if (typeof message?.method !== "string" || message.method === "notifications/progress") return event
  const params = (message.params ?? {}) as Json
  const marked = {
    ...message,
    params: { ...params, _meta: { ...((params._meta as Json | undefined) ?? {}), [ORIGIN_META_KEY]: token } },
  }
  return [...lines.filter((l) => !l.startsWith("data:")), `data: ${JSON.stringify(marked)}`].join("\n")
}

/**
 * A fetch for the SDK's Streamable HTTP client transport that marks what arrives on the response stream
 * of a request carrying a `_meta.progressToken` (every `tools/call` of the backend) with that token.
 */
const originMarkingFetch =
  (paramHeaders: ParamHeaderBindings) =>
  async (url: string | URL, init?: RequestInit): Promise<Response> => {
    if (
      init?.method === "POST" &&
      typeof init.body === "string" &&
      init.body.includes(MODERN_PROTOCOL_VERSION)
    ) {
      let headers: Record<string, string> = {}
      const merged = new Headers(init.headers)
      // A request of a 2025 session keeps its negotiated headers, even when its `_meta` carries a
      // downstream client's 2026 protocol version.
      if (!merged.has("mcp-session-id"))
        try {
          const message: unknown = JSON.parse(init.body)
          const lines = modernHeaderLines(message)
          headers = headerRecord(lines === "" ? lines : lines + paramHeaders.lines(message))
        } catch {
          // Not JSON: sent as it is.
        }
      if (Object.keys(headers).length > 0) {
        for (const [name, value] of Object.entries(headers)) merged.set(name, value)
        init = { ...init, headers: merged }
      }
    }
    const response = await fetch(url, init)
    if (
      init?.method !== "POST" ||
      typeof init.body !== "string" ||
      !response.body ||
      !response.headers.get("content-type")?.includes("text/event-stream")
    )
      return response
    let token: unknown
    try {
      token = (JSON.parse(init.body) as { params?: { _meta?: { progressToken?: unknown } } })?.params?._meta
        ?.progressToken
    } catch {
      return response
    }
    if (typeof token !== "string") return response
    const origin = token
    const decoder = new TextDecoder()
    const encoder = new TextEncoder()
    let buffer = ""
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          buffer += decoder.decode(chunk, { stream: true })
          let out = ""
          for (let end = buffer.search(/\r?\n\r?\n/); end >= 0; end = buffer.search(/\r?\n\r?\n/)) {
            const separator = /\r?\n\r?\n/.exec(buffer.slice(end))![0]
            out += markEvent(buffer.slice(0, end), origin) + separator
            buffer = buffer.slice(end + separator.length)
          }
          if (out !== "") controller.enqueue(encoder.encode(out))
        },
        flush(controller) {
          buffer += decoder.decode()
          if (buffer !== "") controller.enqueue(encoder.encode(buffer))
        },
      }),
    )
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }

/**
 * Owns the SDK client; callers ask it for a connected client and report transport failures.
 *
 * @internal
 * @since 0.1.0
 */
export class McpConnection {
  readonly #config: McpTransportConfig
  /** The `x-mcp-header` bindings of the last tool listing, for the `Mcp-Param-*` headers of its calls. */
  readonly paramHeaders = new ParamHeaderBindings()
  readonly #hooks: ConnectionHooks
  #state: McpConnectionState = "idle"
  #client: Client | undefined
  #transport: Transport | undefined
  #attempts = 0
  #connections = 0
  #lastError: string | undefined
  #stderrTail = ""
  #timer: ReturnType<typeof setTimeout> | undefined
  #nextAttemptAt: number | undefined
  #pending: Promise<Client> | undefined
  #probing = false
  #connectedAt = 0
  /** Requests sent through the SDK client, by progress token (see `send`). */
  readonly #progress = new Map<string, SentRequest>()
  #progressSeq = 0
  readonly #waiters = new Set<{ resolve: (c: Client) => void; reject: (e: unknown) => void }>()
  #direct: DirectSession | undefined
  /** What `server/discover` said, while connected in the modern era. */
  #discovered: Discovered | undefined
  /** Set when a stdio server exited on the probe: later attempts (in `"auto"`) initialize without one. */
  #skipProbe = false
  /** Whether this connection declares the tasks extension (a modern server that advertises it). */
  #tasks = false
  /** The version `initialize` negotiated, while connected in the 2025 era. */
  #legacyVersion: string | undefined

  constructor(config: McpTransportConfig, hooks: ConnectionHooks) {
    this.#config = config
    this.#hooks = hooks
  }

  get state(): McpConnectionState {
    return this.#state
  }

  /** `"modern"` (2026-07-28) or `"legacy"` (2025, `initialize`) while connected, else `undefined`. */
  get era(): "modern" | "legacy" | undefined {
    if (this.#client === undefined) return undefined
    return this.#discovered !== undefined ? "modern" : "legacy"
  }

  /**
   * A liveness check of `client`: `ping` in the 2025 era, `server/discover` in the modern one (which has
   * no `ping`).
   */
  ping(client: Client, timeoutMs: number): Promise<unknown> {
    if (this.#discovered !== undefined && this.#client === client)
      return client.request({ method: "server/discover" } as never, RAW_RESULT, { timeout: timeoutMs })
    return client.ping({ timeout: timeoutMs })
  }

  /**
   * Whether the current connection declares the tasks extension to its server (modern, and the server
   * advertised it): only then may a `tools/call` be answered with a task.
   *
   * @since 0.2.0
   */
  get tasks(): boolean {
    return this.#tasks && this.#discovered !== undefined && this.#state === "connected"
  }

  /** The connected client, or `undefined`. */
  get client(): Client | undefined {
    return this.#state === "connected" ? this.#client : undefined
  }

  /**
   * Sends a request of `client`; `request` is settled with its raw `result` (unvalidated), a
   * `ProtocolError` for a JSON-RPC error, or a closed-connection `SdkError` when the connection closes. Puts a fresh
   * `progressToken` in `params._meta` (an object `params` owns) and routes the progress notifications for
   * it to `request.progress`, synchronously as messages arrive (the SDK's own progress callbacks run a
   * microtask late and lose the last notification when it arrives together with the response). The
   * response is taken off the transport before the SDK client sees it: no zod type guards, no result
   * schema, no timer of the SDK's (callers keep their own). The id comes from the SDK client's counter, so
   * ids never clash with its own requests. Goes through `client.request` when that counter is not there
   * (another SDK version) or `client` is not the current connection's.
   */
  send(client: Client, method: string, params: Json & { _meta: Json }, request: SentRequest): void {
    const direct = this.#direct
    const ids = client as unknown as WithRequestIds
    if (direct === undefined || direct.client !== client || typeof ids._requestMessageId !== "number") {
      const token = `${CLIENT_TOKEN_PREFIX}${++this.#progressSeq}`
      params._meta.progressToken = token
      request.requestId = -1
      request.progressToken = token
      const controller = new AbortController()
      request.viaClient = controller
      this.#progress.set(token, request)
      client
        .request({ method, params } as never, RAW_RESULT, {
          signal: controller.signal,
          timeout: MAX_TIMER_MS,
        })
        .then(
          (result) => request.resolveRequest(result),
          (error: unknown) => request.rejectRequest(error),
        )
        .finally(() => {
          this.#progress.delete(token)
          request.viaClient = undefined
        })
      return
    }
    const id = ids._requestMessageId
    ids._requestMessageId = id + 1
    const token = `${TOKEN_PREFIX}${id}`
    params._meta.progressToken = token
    request.requestId = id
    request.progressToken = token
    direct.pending.set(id, request)
    direct.transport.send({ jsonrpc: "2.0", id, method, params }).catch((error: unknown) => {
      if (direct.pending.get(id) !== request) return
      direct.pending.delete(id)
      request.rejectRequest(error)
    })
  }

  /**
   * Cancels a request `send` sent and not settled yet: it is forgotten, the server gets
   * `notifications/cancelled` with `reason`, and the request is rejected with `reason`. Does nothing for
   * a request that was settled.
   */
  cancel(request: SentRequest, reason: unknown): void {
    if (request.viaClient !== undefined) {
      // The SDK client sends notifications/cancelled and rejects with the reason.
      request.viaClient.abort(reason)
      return
    }
    const direct = this.#direct
    const id = request.requestId
    if (direct === undefined || direct.pending.get(id) !== request) return
    direct.pending.delete(id)
    direct.transport
      .send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: String(reason) },
      })
      .catch(() => {})
    request.rejectRequest(reason)
  }

  status(): McpConnectionStatus {
    const transport = this.#transport
    const pid =
      transport instanceof NodeStdioTransport || transport instanceof StdioClientTransport
        ? transport.pid
        : null
    const serverInfo = this.#client?.getServerVersion()
    const protocolVersion =
      this.#state !== "connected"
        ? undefined
        : this.#discovered !== undefined
          ? MODERN_PROTOCOL_VERSION
          : this.#legacyVersion
    return {
      state: this.#state,
      attempts: this.#attempts,
      connections: this.#connections,
      ...(this.#lastError !== undefined ? { lastError: this.#lastError } : {}),
      ...(serverInfo ? { serverInfo } : {}),
      ...(pid !== null && pid !== undefined && this.#state === "connected" ? { pid } : {}),
      ...(this.#stderrTail !== "" ? { stderrTail: this.#stderrTail } : {}),
      ...(this.#nextAttemptAt !== undefined ? { nextAttemptAt: this.#nextAttemptAt } : {}),
      ...(protocolVersion !== undefined ? { protocolVersion } : {}),
    }
  }

  /**
   * A connected client. From `idle` or `failed` it connects now; while connecting or reconnecting it
   * waits for the connection (or the next failure when `failFast`). Rejects with
   * {@link BackendUnavailable}.
   */
  connect(options: { readonly failFast?: boolean } = {}): Promise<Client> {
    switch (this.#state) {
      case "connected":
        return Promise.resolve(this.#client!)
      case "closed":
        return Promise.reject(this.#unavailable("backend is closed"))
      case "idle":
      case "failed":
        this.#attempts = 0
        return this.#attempt()
      case "connecting":
        return this.#pending!
      case "reconnecting":
        if (options.failFast)
          return Promise.reject(
            this.#unavailable(
              `reconnecting (${this.#attempts} failed attempt${this.#attempts === 1 ? "" : "s"})${this.#lastError ? `: ${this.#lastError}` : ""}`,
            ),
          )
        return new Promise((resolve, reject) => this.#waiters.add({ resolve, reject }))
    }
  }

  /**
   * Reports that a request failed in a way that suggests the server is gone. The connection is
   * probed with a ping; if that fails too, the client is closed (failing every in-flight request with
   * a closed-connection error) and reconnection starts.
   */
  suspect(error: unknown): void {
    const client = this.#client
    if (this.#state !== "connected" || !client || this.#probing) return
    this.#probing = true
    this.#lastError = causeOf(error).message
    this.ping(client, this.#hooks.probeTimeoutMs)
      .then(
        () => {},
        (probeError) => {
          if (this.#client === client && this.#state === "connected")
            this.#lost(client, `server stopped answering: ${causeOf(probeError).message}`)
        },
      )
      .finally(() => {
        this.#probing = false
      })
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return
    this.#state = "closed"
    clearTimeout(this.#timer)
    this.#nextAttemptAt = undefined
    const closed = this.#unavailable("backend is closed")
    for (const waiter of this.#waiters) waiter.reject(closed)
    this.#waiters.clear()
    const client = this.#client
    this.#client = undefined
    this.#emit()
    await client?.close().catch(() => {})
    await this.#transport?.close().catch(() => {})
  }

  #unavailable(reason: string): BackendUnavailable {
    return new BackendUnavailable({ backend: this.#hooks.name, reason })
  }

  #emit(): void {
    try {
      this.#hooks.onStatus(this.status())
    } catch {
      // A listener's failure is not the connection's.
    }
  }

  #makeTransport(): Transport {
    if ("stdio" in this.#config) {
      const stdio = this.#config.stdio
      const stderr = stdio.stderr ?? "pipe"
      const params = {
        command: stdio.command,
        ...(stdio.args ? { args: [...stdio.args] } : {}),
        ...(stdio.env ? { env: { ...stdio.env } } : {}),
        ...(stdio.cwd ? { cwd: stdio.cwd } : {}),
        stderr,
      }
      const transport =
        (stdio.transport ?? DEFAULT_STDIO_TRANSPORT) === "node"
          ? new NodeStdioTransport({ ...params, processGroup: stdio.processGroup === true })
          : new StdioClientTransport(params)
      if (stderr === "pipe") {
        transport.stderr?.on("data", (chunk: Buffer) => {
          this.#stderrTail = (this.#stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES)
        })
      }
      return transport
    }
    const http = this.#config.http
    if ((http.transport ?? "node") === "node")
      return new NodeStreamableHttpTransport(new URL(http.url), {
        originMetaKey: ORIGIN_META_KEY,
        paramHeaders: this.paramHeaders,
        ...(http.headers ? { headers: http.headers } : {}),
        ...(http.auth
          ? {
              authorization: () => http.auth!.authorization(),
              onUnauthorized: (c: string | undefined) => http.auth!.onUnauthorized(c),
            }
          : {}),
      })
    return new StreamableHTTPClientTransport(new URL(http.url), {
      fetch: http.auth
        ? authorizingFetch(http.auth, originMarkingFetch(this.paramHeaders))
        : originMarkingFetch(this.paramHeaders),
      ...(http.headers ? { requestInit: { headers: { ...http.headers } } } : {}),
      reconnectionOptions: {
        initialReconnectionDelay: 250,
        maxReconnectionDelay: 2000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 1,
      },
    })
  }

  #attempt(): Promise<Client> {
    this.#state = "connecting"
    this.#nextAttemptAt = undefined
    this.#emit()
    const pending = this.#open().then(
      (client) => {
        this.#pending = undefined
        return client
      },
      (error) => {
        this.#pending = undefined
        throw error
      },
    )
    this.#pending = pending
    return pending
  }

  async #open(): Promise<Client> {
    const transport = this.#makeTransport()
    const capabilities = this.#hooks.capabilities ?? {}
    const client = new Client(this.#hooks.clientInfo, { capabilities })
    this.#hooks.setup(client)
    this.#transport = transport
    this.#client = client
    this.#discovered = undefined
    this.#legacyVersion = undefined
    let connected: Transport = transport
    try {
      const choice = this.#hooks.protocol ?? "auto"
      const envelope = modernEnvelope(this.#hooks.clientInfo, capabilities)
      let discovered: Discovered | undefined
      if (choice === MODERN_PROTOCOL_VERSION || (choice === "auto" && !this.#skipProbe)) {
        const verdict = await probeEra(
          transport,
          envelope,
          // A slow start (a loaded machine, `npx` fetching) is no evidence of a 2025 server: the whole
          // connect timeout is the probe's.
          this.#hooks.connectTimeoutMs,
          "stdio" in this.#config ? "stdio" : "http",
        )
        if (this.#isClosed()) throw this.#unavailable("backend was closed while connecting")
        if (verdict.era === "modern") discovered = verdict.discovered
        else if (choice === MODERN_PROTOCOL_VERSION)
          throw new Error(`the server does not speak MCP ${MODERN_PROTOCOL_VERSION} (${verdict.reason})`)
        else if (verdict.closed) {
          // The server exited over the probe (or at start, which looks the same): this attempt fails, and
          // later ones initialize without a probe, so a server that cannot start is not spawned twice per
          // attempt, and one that exits on requests before `initialize` is reached on the next attempt.
          this.#skipProbe = true
          throw new Error(`${verdict.reason}; the next attempt initializes on the 2025 protocol`)
        } else {
          // Started by the probe; the SDK client starts the transports it connects.
          transport.start = () => Promise.resolve()
          // A session id a 2025 server put on its answer to the probe is not a session: the SDK client
          // takes a transport with one for a reconnection and would skip `initialize`.
          forgetSession(transport)
        }
      }
      if (discovered !== undefined) {
        // The tasks extension is declared only to a server that advertises it.
        this.#tasks = this.#hooks.tasks === true && advertisesTasks(discovered.capabilities)
        connected = new ModernEnvelopeTransport(
          transport,
          this.#tasks ? modernEnvelope(this.#hooks.clientInfo, withTasksCapability(capabilities)) : envelope,
          true,
        )
        // The modern era has no handshake: the client adopts what our probe's `server/discover` said (no
        // second probe). The HTTP transports derive the 2026 headers from each request's envelope, and
        // only when no version was set on them (a set one means a 2025 session): the client's call is
        // not passed on.
        connected.setProtocolVersion = () => {}
        await client.connect(connected, { prior: { kind: "modern", discover: discoverResult(discovered) } })
        this.#discovered = discovered
      } else {
        // The version `initialize` negotiated (the SDK tells the transport; stdio ones have no slot for it).
        const legacy = transport
        const setVersion = legacy.setProtocolVersion
        legacy.setProtocolVersion = (version: string) => {
          this.#legacyVersion = version
          setVersion?.call(legacy, version)
        }
        await client.connect(transport, { prior: { kind: "legacy" }, timeout: this.#hooks.connectTimeoutMs })
      }
      if (this.#isClosed()) throw this.#unavailable("backend was closed while connecting")
      await this.#hooks.onConnected(client)
      if (this.#isClosed()) throw this.#unavailable("backend was closed while connecting")
    } catch (error) {
      const reason = this.#describe(error)
      await client.close().catch(() => {})
      await transport.close().catch(() => {})
      if (this.#client === client) this.#client = undefined
      this.#discovered = undefined
      if (this.#isClosed()) throw this.#unavailable("backend is closed")
      this.#lastError = reason
      this.#attempts++
      // Waiters keep waiting while retries go on; #scheduleRetry rejects them when it gives up. A
      // backend that never connected stops after its initial attempts (no respawning in the background).
      this.#scheduleRetry(false, this.#connections === 0)
      throw this.#unavailable(`cannot connect: ${reason}`)
    }
    const direct: DirectSession = { client, transport: connected, pending: new Map() }
    this.#direct = direct
    const sdkOnMessage = connected.onmessage
    connected.onmessage = (message, extra) => {
      // A response to a request sent directly (see request()): settled here, the SDK never sees it.
      if (direct.pending.size > 0 && (message as { method?: unknown }).method === undefined) {
        const m = message as { id?: unknown; result?: unknown; error?: unknown }
        const key = typeof m.id === "number" ? m.id : Number(m.id)
        const pending = direct.pending.get(key)
        if (pending !== undefined) {
          direct.pending.delete(key)
          if (m.error === undefined) pending.resolveRequest(m.result)
          else {
            const e = (typeof m.error === "object" && m.error !== null ? m.error : {}) as {
              code?: unknown
              message?: unknown
              data?: unknown
            }
            pending.rejectRequest(
              ProtocolError.fromError(
                typeof e.code === "number" ? e.code : ProtocolErrorCode.InternalError,
                typeof e.message === "string" ? e.message : "invalid error response",
                e.data,
              ),
            )
          }
          return
        }
      }
      if ((message as { method?: string }).method === "notifications/progress" && !("id" in message)) {
        const params = (message as { params?: Progress & { progressToken?: unknown } }).params
        const token = params?.progressToken
        const request =
          typeof token !== "string" || !token.startsWith(TOKEN_PREFIX)
            ? undefined
            : token.startsWith(CLIENT_TOKEN_PREFIX)
              ? this.#progress.get(token)
              : direct.pending.get(Number(token.slice(TOKEN_PREFIX.length)))
        if (request !== undefined && request.progressToken === token) {
          try {
            request.progress(params!)
          } catch {
            // A progress listener's failure is not the connection's.
          }
          return
        }
      }
      sdkOnMessage?.call(connected, message, extra)
    }
    client.onclose = () => {
      if (this.#direct === direct) this.#direct = undefined
      if (direct.pending.size > 0) {
        const closed = new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed")
        const pending = [...direct.pending.values()]
        direct.pending.clear()
        for (const p of pending) p.rejectRequest(closed)
      }
      if (this.#client === client && this.#state === "connected") this.#lost(client, "connection closed")
    }
    client.onerror = (error) => {
      if (this.#client !== client || this.#state !== "connected") return
      if (isUnreachable(error) || /SSE stream disconnected|terminated|closed/i.test(error.message))
        this.suspect(error)
    }
    this.#state = "connected"
    this.#attempts = 0
    this.#connectedAt = Date.now()
    this.#connections++
    this.#emit()
    for (const waiter of this.#waiters) waiter.resolve(client)
    this.#waiters.clear()
    try {
      this.#hooks.onReady?.(client)
    } catch {
      // A listener's failure is not the connection's.
    }
    return client
  }

  #isClosed(): boolean {
    return this.#state === "closed"
  }

  #describe(error: unknown): string {
    const exit = this.#transport instanceof NodeStdioTransport ? this.#transport.exitStatus : undefined
    const message = `${causeOf(error).message}${exit === undefined ? "" : ` (server exited with ${exit})`}`
    const tail = this.#stderrTail.trim().split("\n").slice(-3).join(" | ")
    return tail && "stdio" in this.#config ? `${message} (stderr: ${tail})` : message
  }

  #lost(client: Client, reason: string): void {
    const tail = this.#stderrTail.trim().split("\n").slice(-2).join(" | ")
    this.#lastError = tail && "stdio" in this.#config ? `${reason} (stderr: ${tail})` : reason
    this.#client = undefined
    // Closing the client rejects every in-flight request with a closed-connection error.
    void client.close().catch(() => {})
    // A connection that dies right after it was made counts as a failed attempt (no crash loop).
    const shortLived = Date.now() - this.#connectedAt < 1000
    this.#attempts = shortLived ? 1 : 0
    this.#scheduleRetry(!shortLived)
  }

  #scheduleRetry(immediate = false, neverConnected = false): void {
    const options = this.#hooks.reconnect
    if (this.#isClosed()) return
    const limit =
      options === false
        ? 0
        : neverConnected
          ? Math.min(
              Math.max(1, options.initialAttempts ?? 1),
              options.maxAttempts ?? Number.POSITIVE_INFINITY,
            )
          : (options.maxAttempts ?? Number.POSITIVE_INFINITY)
    if (options === false || this.#attempts >= limit) {
      this.#state = "failed"
      this.#nextAttemptAt = undefined
      const failure = this.#unavailable(
        `${neverConnected ? "gave up connecting" : "gave up reconnecting"}: ${this.#lastError ?? "unknown error"}`,
      )
      for (const waiter of this.#waiters) waiter.reject(failure)
      this.#waiters.clear()
      this.#emit()
      return
    }
    const initial = options.initialDelayMs ?? 250
    const base = Math.min(
      options.maxDelayMs ?? 10_000,
      initial * (options.factor ?? 2) ** Math.max(0, this.#attempts - 1),
    )
    const jitter = options.jitter ?? 0.2
    const delay = immediate
      ? Math.min(initial, 50)
      : Math.max(0, base * (1 + jitter * (2 * Math.random() - 1)))
    this.#state = "reconnecting"
    this.#nextAttemptAt = Date.now() + delay
    this.#emit()
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      if (this.#state !== "reconnecting") return
      this.#attempt().catch(() => {})
    }, delay)
    this.#timer.unref?.()
  }
}
