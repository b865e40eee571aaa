/**
 * `mcpBackend`: an MCP server (stdio subprocess or Streamable HTTP endpoint) as a Toolplane
 * {@link Backend}. Tools are listed completely (every `tools/list` page), namespaced by the configured
 * name, refreshed on `notifications/tools/list_changed`; calls carry progress, cancellation and
 * timeouts; a dead server fails in-flight calls with {@link BackendUnavailable} and is reconnected with
 * backoff.
 *
 * @since 0.1.0
 */
import type { Client } from "@modelcontextprotocol/client"
import {
  type CallToolResult,
  type Implementation,
  type LoggingLevel,
  type Progress as McpProgress,
  ProtocolError,
  ProtocolErrorCode,
  specTypeSchemas,
} from "@modelcontextprotocol/server"
import {
  type Backend,
  type BackendCall,
  type BackendListener,
  type BackendMetadata,
  type BackendResult,
  BackendUnavailable,
  Cancelled,
  type Conversion,
  causeOf,
  compileJsonSchema,
  type ExecutionContext,
  ExecutionFailed,
  type FeatureLossWarning,
  InvalidArguments,
  isToolError,
  isToolId,
  remainingMs,
  suggestToolIds,
  Timeout,
  type Tool,
  type ToolError,
  ToolNotFound,
  type Validator,
  withResources,
} from "@toolplane/foundation"
import { CURSOR_META_KEY } from "../adapter.js"
import { isJsonRpcError, isUnreachable, mcpFailureToToolError, toolErrorFromResult } from "../errors.js"
import { HOLD_CALL } from "../internal/callMarks.js"
import { relayResult } from "../internal/resultJson.js"
import { type Expiring, type TimeoutList, TimeoutQueue } from "../internal/timeoutQueue.js"
import { answerCallerInputs, callerCapabilities, relayMissingCapabilities } from "./callerInputs.js"
import {
  McpConnection,
  type McpConnectionStatus,
  type McpHttpConfig,
  type McpStdioConfig,
  ORIGIN_META_KEY,
  type ReconnectOptions,
  type SentRequest,
} from "./connection.js"
import { withElicitationDefaults } from "./elicitationDefaults.js"
import { CALL_CAPABILITIES, type McpProtocolChoice, MetaKeys, OWNED_META } from "./era.js"
import { ListenStream } from "./listenStream.js"
import {
  type CacheHint,
  isCallToolResult,
  listRemoteTools,
  type RemoteTool,
  toBackendResult,
  toProgress,
} from "./mapping.js"
import { mcpResourceSide } from "./resources.js"
import {
  awaitUpstreamTask,
  claimHandoff,
  handoffResult,
  isTaskHandle,
  makeUpstreamTaskRelay,
  withUpstreamTasks,
} from "./upstreamTasks.js"

/** SDK v2's `CallToolResult` schema (a zod schema, typed as a Standard Schema), for results the shape check does not take as they are. */
const CallToolResultSchema = specTypeSchemas.CallToolResult as unknown as {
  parse(raw: unknown): CallToolResult
}

/**
 * Which MCP server a backend talks to. `name` is the backend's name and its tools' namespace.
 *
 * @example
 * ```ts
 * const local: McpBackendConfig = { name: "everything", stdio: { command: "mcp-server-everything" } }
 * const remote: McpBackendConfig = {
 *   name: "remote",
 *   http: { url: "http://127.0.0.1:3000/mcp", headers: { Authorization: "Bearer ..." } },
 * }
 * ```
 * @since 0.1.0
 */
export type McpBackendConfig = { readonly name: string; readonly description?: string } & (
  | { readonly stdio: McpStdioConfig; readonly http?: never }
  | { readonly http: McpHttpConfig; readonly stdio?: never }
)

/**
 * A log message an MCP server sent (`notifications/message`).
 *
 * @since 0.1.0
 */
export interface McpLogEntry {
  readonly backend: string
  readonly level: LoggingLevel
  readonly logger?: string
  readonly data: unknown
}

/**
 * Options of {@link mcpBackend}.
 *
 * @since 0.1.0
 */
export interface McpBackendOptions {
  /** How the client introduces itself. Default `{ name: "toolplane", version: "0.1.0" }`. */
  readonly clientInfo?: Implementation
  /** Time allowed for spawning/connecting and `initialize`. Default 30 000 ms. */
  readonly connectTimeoutMs?: number
  /**
   * Timeout of a call when the context has no deadline and the tool no `timeoutMs`; restarted by each
   * progress notification. Default 60 000 ms. A context deadline is a hard limit.
   */
  readonly callTimeoutMs?: number
  /** Timeout of `ping` health checks and of `tools/list`. Default 5 000 ms. */
  readonly healthTimeoutMs?: number
  /** Reconnection backoff, or `false` to stay down. Default: 250 ms doubling to 10 s, forever. */
  readonly reconnect?: ReconnectOptions | false
  /** Whether calls need approval. Default `true` (server annotations are hints, not guarantees). */
  readonly requiresApproval?: boolean | ((tool: Tool) => boolean)
  /**
   * `"throw"` (default): an `isError` result carrying a Toolplane typed error (from a Toolplane
   * server) rejects with that error. `"result"`: keep it as an `isError` result.
   */
  readonly typedErrors?: "throw" | "result"
  /** Upper bound on `tools/list` pages. Default 1000. */
  readonly maxPages?: number
  /** Receives the server's log messages. */
  readonly onLog?: (entry: McpLogEntry) => void
  /**
   * Pass the server's requests and log messages made during a call on to that call's caller: declare the
   * `sampling` and `elicitation` capabilities and forward `sampling/createMessage` and
   * `elicitation/create` to `ctx.client` of the call in flight, and `notifications/message` to its
   * `ctx.log` (besides `onLog`). MCP does not say which call a server request belongs to: over
   * Streamable HTTP, what arrives on a call's response stream goes to that call; otherwise (stdio, the
   * standalone stream) to the call in flight, and when calls of several callers (different
   * `sessionId`/`callerId`) are in flight a request is refused and a log message is not forwarded.
   * Default `true`.
   */
  readonly forwardClientRequests?: boolean
  /**
   * How `tools/call` results are checked: `"structural"` (default) checks their shape (an object whose
   * `content` is an array of well-formed blocks, `structuredContent` and `_meta` objects, `isError` a
   * boolean) and falls back to the SDK's schema, for its error message, only when that check fails;
   * `"schema"` validates every result with the SDK's zod schema (which copies it).
   *
   * @since 0.1.0
   */
  readonly validateResults?: "structural" | "schema"
  /**
   * Which MCP protocol to speak: `"auto"` (default) asks the server with `server/discover` and speaks
   * 2026-07-28 when it offers it, else initializes on the 2025 protocol; `"2026-07-28"` requires the
   * modern protocol (a server without it is unavailable, with the reason); `"2025-11-25"` initializes
   * without asking.
   *
   * @since 0.1.0
   */
  readonly protocol?: McpProtocolChoice
  /**
   * Accept tasks (the `io.modelcontextprotocol/tasks` extension) from a modern server that advertises
   * them: a `tools/call` answered with a task is followed (`tasks/get` at the server's poll interval,
   * input through the caller's hooks with `tasks/update`, `tasks/cancel` when the caller gives up) and
   * resolves with the task's result. Default `true`.
   *
   * @since 0.2.0
   */
  readonly tasks?: boolean
}

/**
 * A backend's status: its connection, how many tools it serves and the conversion warnings of its
 * last listing.
 *
 * @since 0.1.0
 */
export interface McpBackendStatus extends McpConnectionStatus {
  readonly name: string
  readonly kind: "mcp-stdio" | "mcp-http"
  readonly tools: number
  readonly warnings: readonly FeatureLossWarning[]
  /**
   * A modern server's cache hint for the current tool listing, and until when (epoch ms) the listing is
   * fresh; absent for a 2025 server (its listing is kept until it says the list changed).
   *
   * @since 0.1.0
   */
  readonly toolsCache?: CacheHint & { readonly freshUntil: number }
}

/**
 * A {@link Backend} over an MCP server, plus connection control.
 *
 * @since 0.1.0
 */
export interface McpBackend extends Backend {
  /**
   * Connects (spawning the server for stdio) and lists its tools; resolves once connected. While the
   * backend is reconnecting, waits for the reconnection. Rejects with {@link BackendUnavailable} when
   * it cannot connect or gives up. Other methods connect lazily, so calling it is optional.
   */
  connect(): Promise<void>
  /** A snapshot of the connection. */
  status(): McpBackendStatus
  /** Subscribes to status changes; returns an unsubscribe function. */
  onStatusChange(listener: (status: McpBackendStatus) => void): () => void
  /** Re-reads the tool list now (listeners fire when it changed). */
  refresh(): Promise<readonly Tool[]>
}

interface Entry extends RemoteTool {
  validator?: Validator
}

/** A call in flight: its context, and its timeout's pause and restart. */
interface InFlightCall {
  readonly ctx: ExecutionContext
  /** The progress token of its request, which identifies it in origin marks. */
  readonly token: string
  suspend(): void
  resume(): void
}

/**
 * One `tools/call` in flight: the request the connection settles ({@link SentRequest}), the listener of the
 * caller's signal (`handleEvent`), the call's timeout (an entry of the backend's {@link TimeoutQueue}, or a
 * timer of its own under a deadline), in one object: no `AbortController` or closures of its own per
 * call.
 */
class ToolCall implements SentRequest, Expiring, InFlightCall {
  requestId = -1
  progressToken = ""
  viaClient: AbortController | undefined = undefined
  expiresAt = 0
  previousExpiring: Expiring | undefined = undefined
  nextExpiring: Expiring | undefined = undefined
  expiringIn: TimeoutList | undefined = undefined
  /** Set when the call timed out (the error it failed with). */
  timedOut: Timeout | undefined = undefined
  /** A deadline's own timer (a deadline is a hard limit, not restarted: not in the shared lists). */
  #timer: ReturnType<typeof setTimeout> | undefined = undefined
  #resolve: ((result: unknown) => void) | undefined = undefined
  #reject: ((error: unknown) => void) | undefined = undefined

  constructor(
    readonly ctx: ExecutionContext,
    readonly toolId: string,
    readonly timeoutMs: number,
    /** The shared timeout list of this call's length; `undefined` under a deadline. */
    readonly timeouts: TimeoutList | undefined,
    readonly connection: McpConnection,
  ) {}

  get token(): string {
    return this.progressToken
  }

  /** Sends the call and waits for its raw result; rejects with the failure, or the abort or timeout reason. */
  run(
    client: Client,
    params: Record<string, unknown> & { _meta: Record<string, unknown> },
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      // Aborted while connecting: an abort listener added now would never run.
      if (this.ctx.signal.aborted) {
        reject(this.ctx.signal.reason)
        return
      }
      this.#resolve = resolve
      this.#reject = reject
      this.#arm()
      this.ctx.signal.addEventListener("abort", this, { once: true })
      this.connection.send(client, "tools/call", params, this)
    })
  }

  resolveRequest(result: unknown): void {
    const resolve = this.#resolve
    this.#settled()
    resolve?.(result)
  }

  rejectRequest(error: unknown): void {
    const reject = this.#reject
    this.#settled()
    reject?.(error)
  }

  progress(params: McpProgress): void {
    // Progress restarts the call timeout (a deadline stays as it is).
    if (this.timeouts !== undefined && this.#resolve !== undefined) this.timeouts.arm(this)
    this.ctx.reportProgress(toProgress(params))
  }

  /** The caller's signal aborted: the server gets notifications/cancelled (see McpConnection.cancel). */
  handleEvent(): void {
    this.connection.cancel(this, this.ctx.signal.reason)
  }

  /** The call timed out: cancelled on the server too. */
  expire(): void {
    this.#timer = undefined
    if (this.#resolve === undefined) return
    this.timedOut = new Timeout({ toolId: this.toolId, timeoutMs: this.timeoutMs })
    this.connection.cancel(this, this.timedOut)
  }

  // While the caller answers a forwarded sampling/elicitation request, the call timeout (not a
  // deadline) is suspended: a human may take longer than the server's work would.
  suspend(): void {
    if (this.timeouts !== undefined) this.timeouts.disarm(this)
  }

  resume(): void {
    if (this.timeouts !== undefined && this.#resolve !== undefined) this.timeouts.arm(this)
  }

  #arm(): void {
    if (this.timeouts !== undefined) this.timeouts.arm(this)
    else this.#timer = setTimeout(expireCall, this.timeoutMs, this)
  }

  #settled(): void {
    this.#resolve = undefined
    this.#reject = undefined
    this.ctx.signal.removeEventListener("abort", this)
    if (this.timeouts !== undefined) this.timeouts.disarm(this)
    else if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
  }
}

const expireCall = (call: ToolCall): void => call.expire()

/** The origin mark a Streamable HTTP connection put in `_meta` (the call's progress token), removed. */
const takeOrigin = (params: unknown): { origin?: string; params: Record<string, unknown> } => {
  const p = (params ?? {}) as Record<string, unknown>
  const meta = p._meta as Record<string, unknown> | undefined
  const origin = meta?.[ORIGIN_META_KEY]
  if (meta === undefined || !(ORIGIN_META_KEY in meta)) return { params: p }
  const { [ORIGIN_META_KEY]: _, ...rest } = meta
  const { _meta: __, ...others } = p
  return {
    ...(typeof origin === "string" ? { origin } : {}),
    params: Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others,
  }
}

/** The caller a call belongs to: its session, else its caller id, else the call itself. */
const callerKey = (ctx: ExecutionContext): string => ctx.sessionId ?? ctx.callerId ?? `call:${ctx.callId}`

/**
 * The calls in flight when they all belong to one caller (newest first); `undefined` when there are
 * none or they belong to several callers (a server request or log cannot be attributed then).
 */
const callersOf = (inFlight: ReadonlySet<InFlightCall>): InFlightCall[] | undefined => {
  const calls = [...inFlight].reverse()
  if (calls.length === 0) return undefined
  const key = callerKey(calls[0]!.ctx)
  return calls.every((c) => callerKey(c.ctx) === key) ? calls : undefined
}

/** Forwards a server's sampling or elicitation request to the caller of the call in flight. */
const forwardToCaller = async (
  inFlight: ReadonlySet<InFlightCall>,
  backend: string,
  kind: "createMessage" | "elicitInput",
  method: string,
  raw: unknown,
): Promise<never> => {
  const { origin, params } = takeOrigin(raw)
  const exact = origin === undefined ? undefined : [...inFlight].find((c) => c.token === origin)
  const calls = exact ? [exact] : callersOf(inFlight)
  if (calls === undefined)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      inFlight.size === 0
        ? `${method}: no tool call of ${backend} is in flight to forward it to`
        : `${method}: tool calls of several callers are in flight; cannot tell whose this is`,
    )
  const target = calls.find((c) => c.ctx.client[kind] !== undefined)
  if (target === undefined)
    throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `${method}: the caller does not support it`)
  for (const c of calls) c.suspend()
  try {
    // The upstream call is running: a stateless caller's answer must resume it, not run it again.
    const answer = await target.ctx.client[kind]!({ ...params, [HOLD_CALL]: true })
    return (kind === "elicitInput" ? withElicitationDefaults(params, answer) : answer) as never
  } finally {
    for (const c of calls) c.resume()
  }
}

/** Input rounds a call may take before it is given up (a server asking forever). */
const MAX_INPUT_ROUNDS = 8

/**
 * The `_meta` of one upstream call: the continuation cursor, and the caller's log level and trace
 * context when its context's metadata carries them (under their MCP `_meta` names). Marked as the
 * sender's own, so the modern envelope is added to it in place.
 */
const callMeta = (
  call: BackendCall,
  ctx: ExecutionContext,
  modern: boolean,
  forward: boolean,
): Record<string, unknown> => {
  const meta: Record<string, unknown> & {
    [OWNED_META]?: true
    [CALL_CAPABILITIES]?: Record<string, unknown>
  } = { [OWNED_META]: true }
  // A modern server learns per request which input it may ask for: what this caller can answer.
  const capabilities = modern && forward ? callerCapabilities(ctx) : undefined
  if (capabilities !== undefined) meta[CALL_CAPABILITIES] = capabilities
  if (typeof call.resume === "string") meta[CURSOR_META_KEY] = call.resume
  const md = ctx.metadata
  const traceparent = md[MetaKeys.traceparent]
  if (typeof traceparent === "string") {
    meta[MetaKeys.traceparent] = traceparent
    const tracestate = md[MetaKeys.tracestate]
    if (typeof tracestate === "string") meta[MetaKeys.tracestate] = tracestate
  }
  const level = md[MetaKeys.logLevel]
  // A 2025 server sends a call's log messages unasked and the caller's own session filters them; a
  // modern one sends them only when the request asks, so the gateway asks for all of them.
  if (typeof level === "string") meta[MetaKeys.logLevel] = level
  else if (modern) meta[MetaKeys.logLevel] = "debug"
  return meta
}

/**
 * Makes a backend for one MCP server. Nothing is spawned or connected until the first use (or
 * {@link McpBackend.connect}).
 *
 * @example
 * ```ts
 * const everything = mcpBackend({
 *   name: "everything",
 *   stdio: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
 * })
 * await everything.connect()
 * const tools = await everything.toolSchemas() // everything/echo, everything/get-sum, ...
 * const result = await everything.execute(
 *   { toolId: "everything/echo", arguments: { message: "hi" } },
 *   makeContext({ timeoutMs: 5000, onProgress: console.log }),
 * )
 * ```
 * @since 0.1.0
 */
export const mcpBackend = (config: McpBackendConfig, options: McpBackendOptions = {}): McpBackend => {
  const name = config.name
  const kind = config.stdio ? "mcp-stdio" : "mcp-http"
  const healthTimeoutMs = options.healthTimeoutMs ?? 5000
  const callTimeoutMs = options.callTimeoutMs ?? 60_000
  const maxPages = options.maxPages ?? 1000
  const typedErrors = options.typedErrors ?? "throw"
  const toolListeners = new Set<BackendListener>()
  const statusListeners = new Set<(status: McpBackendStatus) => void>()
  let entries = new Map<string, Entry>()
  let tools: readonly Tool[] = []
  let loaded = false
  let signature = ""
  let warnings: readonly FeatureLossWarning[] = []
  let refreshing: Promise<readonly Tool[]> | undefined
  let refreshAgain = false
  /** A modern server's cache hint for the listing, and until when it is fresh (forever for a 2025 one). */
  /** The last listing's tool conversions, by the tool's JSON (see `listRemoteTools`). */
  const conversions = new Map<string, Conversion<Tool>>()
  let listingHint: CacheHint | undefined
  let freshUntil = Number.POSITIVE_INFINITY
  const forward = options.forwardClientRequests ?? true
  // The shape check returns the parsed result itself; the SDK schema (on request, or for what the check
  // rejects: its defaults, its error message) returns a copy, which carries no upstream text.
  const checkResult =
    options.validateResults === "schema"
      ? (raw: unknown): CallToolResult => CallToolResultSchema.parse(raw)
      : (raw: unknown): CallToolResult => (isCallToolResult(raw) ? raw : CallToolResultSchema.parse(raw))
  /** Calls in flight, in start order, for forwarding the server's requests and logs to their callers. */
  const inFlight = new Set<ToolCall>()
  /** Call timeouts without a deadline, one list per length (see `internal/timeoutQueue.ts`). */
  const timeouts = new TimeoutQueue()

  const status = (): McpBackendStatus => ({
    ...connection.status(),
    name,
    kind,
    tools: tools.length,
    warnings,
    ...(listingHint !== undefined ? { toolsCache: { ...listingHint, freshUntil } } : {}),
  })

  const fireToolsChanged = () => {
    for (const listener of [...toolListeners]) {
      try {
        listener()
      } catch {
        // A listener's failure is not the backend's.
      }
    }
  }

  const load = async (client: Client): Promise<readonly Tool[]> => {
    // A server without the tools capability (resources or prompts only) has no tools to list.
    const listed = client.getServerCapabilities()?.tools
      ? await listRemoteTools(client, name, {
          maxPages,
          timeoutMs: healthTimeoutMs,
          memo: conversions,
          paramHeaders: connection.paramHeaders,
        })
      : { tools: [], warnings: [] }
    listingHint = connection.era === "modern" ? listed.cache : undefined
    freshUntil = listingHint !== undefined ? Date.now() + listingHint.ttlMs : Number.POSITIVE_INFINITY
    const next = new Map<string, Entry>()
    for (const remote of listed.tools) next.set(remote.tool.name, { ...remote })
    const nextTools = listed.tools.map((r) => r.tool)
    const nextSignature = JSON.stringify(listed.tools)
    const changed = loaded && nextSignature !== signature
    entries = next
    tools = nextTools
    signature = nextSignature
    warnings = listed.warnings
    loaded = true
    if (changed) fireToolsChanged()
    return nextTools
  }

  const refresh = (): Promise<readonly Tool[]> => {
    if (refreshing) {
      refreshAgain = true
      return refreshing
    }
    const run = async (): Promise<readonly Tool[]> => {
      try {
        let result: readonly Tool[]
        do {
          refreshAgain = false
          const client = await connection.connect({ failFast: true })
          result = await load(client)
        } while (refreshAgain)
        return result
      } catch (error) {
        if (isUnreachable(error)) connection.suspect(error)
        throw isToolError(error)
          ? error
          : new BackendUnavailable({ backend: name, reason: `tools/list failed: ${causeOf(error).message}` })
      } finally {
        refreshing = undefined
      }
    }
    refreshing = run()
    return refreshing
  }

  const resourceSide = mcpResourceSide({
    backend: name,
    connect: () => connection.connect({ failFast: true }),
    maxPages,
    timeoutMs: callTimeoutMs,
    modern: () => connection.era === "modern",
    onSubscriptionsChanged: () => listen.update(),
    forwardClientRequests: forward,
  })

  // The modern era's notifications arrive on a `subscriptions/listen` stream (see listenStream.ts).
  const listen = new ListenStream({
    filter: (client) => {
      const caps = client.getServerCapabilities()
      return {
        toolsListChanged: caps?.tools?.listChanged === true,
        promptsListChanged: caps?.prompts?.listChanged === true,
        resourcesListChanged: caps?.resources?.listChanged === true,
        ...(caps?.resources?.subscribe === true
          ? { resourceSubscriptions: resourceSide.subscriptions() }
          : {}),
      }
    },
    isCurrent: (client) => connection.client === client,
  })

  const connection = new McpConnection(config.stdio ? { stdio: config.stdio } : { http: config.http! }, {
    name,
    clientInfo: options.clientInfo ?? { name: "toolplane", version: "0.1.0" },
    connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
    probeTimeoutMs: Math.min(healthTimeoutMs, 2000),
    reconnect: options.reconnect ?? {},
    protocol: options.protocol ?? "auto",
    tasks: options.tasks ?? true,
    ...(forward ? { capabilities: { sampling: {}, elicitation: {} } } : {}),
    setup: (client) => {
      resourceSide.setup(client)
      client.setNotificationHandler("notifications/tools/list_changed", () => {
        refresh().catch(() => {})
      })
      if (options.onLog || forward) {
        const onLog = options.onLog
        client.setNotificationHandler("notifications/message", (notification) => {
          const { origin, params } = takeOrigin(notification.params)
          const { level, logger, data } = params as typeof notification.params
          onLog?.({ backend: name, level, data, ...(logger !== undefined ? { logger } : {}) })
          if (!forward) return
          const exact = origin === undefined ? undefined : [...inFlight].find((c) => c.token === origin)
          for (const call of exact ? [exact] : (callersOf(inFlight) ?? [])) {
            try {
              call.ctx.log({ level, data, ...(logger !== undefined ? { logger } : {}) })
            } catch {
              // A caller's log sink failing is not the backend's problem.
            }
          }
        })
      }
      if (forward) {
        client.setRequestHandler(
          "sampling/createMessage",
          (request) =>
            forwardToCaller(
              inFlight,
              name,
              "createMessage",
              "sampling/createMessage",
              request.params,
            ) as never,
        )
        client.setRequestHandler(
          "elicitation/create",
          (request) =>
            forwardToCaller(inFlight, name, "elicitInput", "elicitation/create", request.params) as never,
        )
      }
    },
    onConnected: async (client) => {
      await load(client)
      await resourceSide.onConnected(client)
    },
    onReady: (client) => {
      if (connection.era === "modern") listen.start(client)
    },
    onStatus: () => {
      if (statusListeners.size === 0) return
      const snapshot = status()
      for (const listener of [...statusListeners]) listener(snapshot)
    },
  })

  const ensureTools = async (): Promise<void> => {
    if (!loaded) {
      await connection.connect({ failFast: true })
      return
    }
    // A modern server's listing past its `ttlMs` is listed again (the stale one serves if that fails).
    if (Date.now() >= freshUntil) await refresh().catch(() => {})
  }

  const toolNotFound = (toolId: string): ToolNotFound =>
    new ToolNotFound({
      toolId,
      suggestions: suggestToolIds(
        toolId,
        tools.map((t) => t.id),
      ),
    })

  const abortError = (toolId: string, signal: AbortSignal): ToolError => {
    const reason = signal.reason
    if (isToolError(reason)) return reason
    return new Cancelled({ toolId, reason: reason instanceof Error ? reason.message : undefined })
  }

  /** A call; fails with typed errors only (one async function: no wrapper promise per call). */
  const execute = async (call: BackendCall, ctx: ExecutionContext): Promise<BackendResult> => {
    try {
      const toolId = call.toolId
      if (!isToolId(toolId) || !toolId.startsWith(`${name}/`)) throw toolNotFound(toolId)
      if (ctx.signal.aborted) throw abortError(toolId, ctx.signal)
      const client =
        connection.client ??
        (await connection.connect({ failFast: true }).catch((error: ToolError) => {
          throw new BackendUnavailable({
            backend: name,
            toolId,
            reason: (error as BackendUnavailable).reason,
          })
        }))
      const entry = entries.get(toolId.slice(name.length + 1))
      if (!entry) throw toolNotFound(toolId)
      if (!call.validated) {
        entry.validator ??= compileJsonSchema(entry.tool.inputSchema, toolId)
        let checked = entry.validator.validate(call.arguments ?? {})
        if (checked instanceof Promise) checked = await checked
        if (!checked.ok) throw new InvalidArguments({ toolId, issues: checked.issues })
      }
      const hasDeadline = ctx.deadline !== undefined
      const timeoutMs = hasDeadline ? remainingMs(ctx) : (entry.tool.timeoutMs ?? callTimeoutMs)
      if (timeoutMs <= 0) throw new Timeout({ toolId, timeoutMs: 0 })
      // Timeouts are ours (not the SDK's) so that progress can restart them; a timed-out or cancelled call
      // gets notifications/cancelled, so it stops on the server too.
      const flight = new ToolCall(
        ctx,
        toolId,
        timeoutMs,
        hasDeadline ? undefined : timeouts.list(timeoutMs),
        connection,
      )
      const params = {
        name: entry.mcpName,
        arguments: call.arguments ?? {},
        _meta: callMeta(call, ctx, connection.era === "modern", forward),
      }
      let result: BackendResult
      // Claimed before the call goes out: a serving side that offered it makes no task of its own now.
      const handoff = connection.tasks && claimHandoff(ctx.metadata, name, toolId)
      inFlight.add(flight)
      try {
        let raw = await flight.run(client, params)
        // A modern server asking for input first (multi round-trip): answered by the caller, then the
        // call is sent again with the answers, never without them.
        for (let round = 1; (raw as { resultType?: unknown })?.resultType === "input_required"; round++) {
          if (round > MAX_INPUT_ROUNDS)
            throw new ExecutionFailed({
              toolId,
              cause: {
                name: "InputRequired",
                message: `${name} asked for input more than ${MAX_INPUT_ROUNDS} times`,
              },
              retryable: false,
            })
          const asked = raw as { inputRequests?: unknown; requestState?: unknown }
          const inputResponses = await answerCallerInputs(ctx, toolId, name, asked.inputRequests, handoff)
          raw = await flight.run(client, {
            ...params,
            _meta: callMeta(call, ctx, connection.era === "modern", forward),
            inputResponses,
            ...(typeof asked.requestState === "string" ? { requestState: asked.requestState } : {}),
          })
        }
        // A task (the tasks extension): followed to its end here, or handed to a serving side that relays it.
        if (isTaskHandle(raw))
          raw =
            handoff && connection.tasks
              ? handoffResult(name, toolId, raw)
              : await awaitUpstreamTask(
                  {
                    connection,
                    client,
                    backend: name,
                    toolId,
                    ctx,
                    requestTimeoutMs: healthTimeoutMs,
                    idleTimeoutMs: hasDeadline ? undefined : timeoutMs,
                    answer: (requests) => answerCallerInputs(ctx, toolId, name, requests),
                  },
                  raw,
                )
        const checked = checkResult(raw)
        result = relayResult(toBackendResult(checked), checked)
      } catch (error) {
        if (ctx.signal.aborted) throw abortError(toolId, ctx.signal)
        if (flight.timedOut !== undefined) throw flight.timedOut
        await relayMissingCapabilities(ctx, error)
        const typed = mcpFailureToToolError(error, { backend: name, toolId, timeoutMs })
        if (typed._tag === "BackendUnavailable" && !isJsonRpcError(error)) connection.suspect(error)
        if (typed._tag === "ToolNotFound") refresh().catch(() => {})
        // The server names the tool and its suggestions in its own MCP names; callers of this backend use ids.
        throw typed._tag === "ToolNotFound" ? toolNotFound(toolId) : typed
      } finally {
        inFlight.delete(flight)
      }
      if (result.isError && typedErrors === "throw") {
        const carried = toolErrorFromResult(result)
        if (carried) throw carried
      }
      return result
    } catch (error) {
      if (isToolError(error)) throw error
      throw mcpFailureToToolError(error, { backend: name, toolId: call.toolId })
    }
  }

  let closed = false
  const backend: McpBackend = {
    name,
    execute,
    toolSchemas: async () => {
      await ensureTools()
      return tools
    },
    supportedTools: async () => {
      await ensureTools()
      return tools.map((t) => t.id)
    },
    metadata: (): BackendMetadata => {
      const info = connection.status().serverInfo
      return {
        name,
        kind,
        ...(config.description !== undefined ? { description: config.description } : {}),
        ...(info ? { version: info.version, server: info.name } : {}),
        transport: config.stdio ? "stdio" : "streamable-http",
      }
    },
    healthCheck: async () => {
      try {
        const client = await connection.connect({ failFast: true })
        await connection.ping(client, healthTimeoutMs)
        return true
      } catch (error) {
        connection.suspect(error)
        return false
      }
    },
    requiresApproval: async (toolId) => {
      const policy = options.requiresApproval ?? true
      if (typeof policy === "boolean") return policy
      const entry = toolId.startsWith(`${name}/`) ? entries.get(toolId.slice(name.length + 1)) : undefined
      return entry ? policy(entry.tool) : true
    },
    onToolsChanged: (listener) => {
      toolListeners.add(listener)
      return () => {
        toolListeners.delete(listener)
      }
    },
    close: async () => {
      if (closed) return
      closed = true
      toolListeners.clear()
      listen.stop()
      await connection.close()
      statusListeners.clear()
    },
    connect: async () => {
      await connection.connect()
    },
    status,
    onStatusChange: (listener) => {
      statusListeners.add(listener)
      return () => {
        statusListeners.delete(listener)
      }
    },
    refresh,
  }
  return withUpstreamTasks(
    withResources(backend, resourceSide.provider),
    makeUpstreamTaskRelay(name, connection, healthTimeoutMs),
  )
}
