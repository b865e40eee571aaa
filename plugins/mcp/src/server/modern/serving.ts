/**
 * Stateless serving of 2026-07-28 requests: one request in, one answer out, no session. The request is
 * answered by the same handlers a 2025 session's server has (one SDK `Server` made by the exposure,
 * connected to nothing), so auth, scopes, filters, aliases, composites and search or code mode hold
 * for both eras; what a session held comes from the request itself (`_meta`: protocol version, client
 * capabilities, log level) and client requests become multi round-trip input requests. Every result
 * gets `resultType`, the server's info in `_meta` and, when cacheable, cache hints; errors carry the
 * request's id.
 *
 * @internal
 */
import type { LoggingLevel, Server, Transport } from "@modelcontextprotocol/server"
import { callerIdOf } from "../callerIdentity.js"
import type { ReplicaBus } from "../replicaBus.js"
import {
  CallController,
  isDirectParams,
  isWireError,
  type McpExposure,
  type ModernRequest,
} from "../serve.js"
import { cacheHintFor, type McpCacheHints } from "./cacheHints.js"
import { errorMessage, httpStatusOf, ModernProtocolError } from "./errors.js"
import { type HeldCallOptions, HeldCalls, HeldSink } from "./heldCalls.js"
import { InputRound } from "./inputRequests.js"
import { type ModernEnvelope, readEnvelope } from "./negotiation.js"
import { PendingInputRegistry, recordPending } from "./pendingInputs.js"
import {
  MODERN_PROTOCOL_VERSIONS,
  ModernErrorCode,
  REMOVED_METHODS,
  SERVED_PROTOCOL_VERSIONS,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
} from "./protocol.js"
import { type RequestStateClaims, RequestStates } from "./requestState.js"
import { StatelessExtra } from "./statelessExtra.js"
import type { TaskSource } from "./taskSource.js"
import { declaresTasks, TASK_METHODS, TaskHost, type TaskHostOptions, withTasksExtension } from "./tasks.js"
import { remoteParent, withRemoteParent } from "./traceContext.js"
import { UpstreamHandoff, type UpstreamTaskRelays, UpstreamTaskSource } from "./upstreamTaskSource.js"

/** Where a request's notifications and its answer go (an HTTP response, a stdio line writer). */
export interface ModernSink {
  /** A notification about this request (progress, a log message): on the request's own stream. */
  notify(message: Record<string, unknown>): void
  /** The answer, once; `status` is the HTTP status the revision asks for. */
  answer(message: Record<string, unknown>, status: number): void
}

/** Who made a request. */
export interface ModernCaller {
  readonly authInfo?: {
    readonly token: string
    readonly clientId: string
    readonly scopes: string[]
    readonly expiresAt?: number
    /** `subject`: the token's user (`McpCaller.subject`), when known. */
    readonly extra?: Record<string, unknown>
  }
  /** The request's HTTP headers (for a `context` option that reads them). */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>
}

/** Options of {@link ModernServing}. */
export interface ModernServingOptions {
  /** The secret request states are signed with (shared by replicas). */
  readonly secret?: string | Uint8Array
  readonly cacheHints?: McpCacheHints
  /** How long an `InputRequiredResult`'s state stays valid. Default 10 minutes. */
  readonly requestStateTtlMs?: number
  /** Replicas tell each other which request states were used, so a replay is refused on any of them. */
  readonly bus?: ReplicaBus
  /** Receives internal failures. */
  readonly onError?: (error: unknown) => void
  /** The tasks extension (`io.modelcontextprotocol/tasks`): task lifetime, polling interval, limits. */
  readonly tasks?: TaskHostOptions
  /** Limits of calls held open while their client answers (see `heldCalls.ts`). */
  readonly heldCalls?: HeldCallOptions
  /**
   * Relays tasks of MCP backends (by backend name) to clients that declared the tasks extension, under
   * this server's handles; without it a backend follows its upstream's task to the end.
   */
  readonly upstreamTasks?: UpstreamTaskRelays
  /** Further task sources, asked after this process's tasks and the relayed upstream ones. */
  readonly taskSources?: readonly TaskSource[]
}

/** The bus message saying a request state was used or rejected (other kinds on the bus are not ours). */
interface UsedStateMessage {
  readonly k: "request-state-used" | "request-state-rejected"
  readonly n: string
  readonly e: number
}

type Handler = (request: unknown, extra: unknown) => Promise<Record<string, unknown>>

/**
 * The transport of the exposure's server for stateless requests: no session to send on; what the server
 * sends on its own (list changes) goes to `onSend`, which hands it to the open listen streams.
 */
class NoTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: Transport["onmessage"]
  constructor(private readonly onSend: (message: Record<string, unknown>) => void) {}
  async start(): Promise<void> {}
  async send(message: unknown): Promise<void> {
    if (isObject(message)) this.onSend(message)
  }
  async close(): Promise<void> {
    this.onclose?.()
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The list-change notifications a listen stream can ask for, by filter flag. */
const LIST_CHANGES: Readonly<Record<string, string>> = {
  "notifications/tools/list_changed": "toolsListChanged",
  "notifications/prompts/list_changed": "promptsListChanged",
  "notifications/resources/list_changed": "resourcesListChanged",
}

/** An open `subscriptions/listen` stream. */
interface Listener {
  readonly id: string | number
  readonly agreed: Readonly<Record<string, boolean>>
  /** The resources whose updates it receives (subscribed through the exposure's handlers). */
  readonly resources: ReadonlySet<string>
  readonly sink: ModernSink
  readonly end: () => void
}

/**
 * What a request's input requests are bound to, for the methods that may ask the client for input
 * (`tools/call`, `prompts/get`, `resources/read`); undefined for the others, which never ask.
 */
const inputBindingOf = (
  method: string,
  params: Record<string, unknown>,
): { method: string; arguments: unknown } | undefined =>
  method === "tools/call" || method === "prompts/get"
    ? { method: `${method} ${String(params.name)}`, arguments: params.arguments }
    : method === "resources/read"
      ? { method: `${method} ${String(params.uri)}`, arguments: undefined }
      : undefined

const LOG_LEVELS = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])

/** Serves stateless requests from an exposure's handlers. */
export class ModernServing {
  readonly #exposure: McpExposure
  readonly #options: ModernServingOptions
  readonly states: RequestStates
  /** Tasks of the tasks extension (handles signed with the same secret as request states). */
  readonly tasks: TaskHost
  /** Upstream calls held open while their client answers their questions. */
  readonly held: HeldCalls
  /** Stateless HTTP requests in flight, for `notifications/cancelled` (keys: see `httpEntry.ts`). */
  readonly inFlight = new Map<string, CallController>()
  /** The input_required answers waiting for their retry (listed, and rejectable, by an operator). */
  readonly pendingInputs = new PendingInputRegistry((n, e) => this.#rejectState(n, e))
  readonly #upstream: UpstreamTaskSource | undefined
  #server: Server | undefined
  #handlers: Map<string, Handler> | undefined
  #unsubscribe: Promise<() => Promise<void>> | undefined
  readonly #listeners = new Set<Listener>()
  /** Listen streams per subscribed resource URI (the catalog subscription is held while any is open). */
  readonly #resourceRefs = new Map<string, number>()

  constructor(exposure: McpExposure, options: ModernServingOptions = {}) {
    this.#exposure = exposure
    this.#options = options
    this.states = new RequestStates(options.secret, {
      ...(options.requestStateTtlMs !== undefined ? { ttlMs: options.requestStateTtlMs } : {}),
    })
    this.tasks = new TaskHost(options.secret, options.tasks)
    this.#upstream = options.upstreamTasks && new UpstreamTaskSource(options.secret, options.upstreamTasks)
    if (this.#upstream) this.tasks.addSource(this.#upstream)
    for (const source of options.taskSources ?? []) this.tasks.addSource(source)
    this.#unsubscribe = options.bus?.subscribe((text) => {
      if (!text.includes('"request-state-')) return
      try {
        const message = JSON.parse(text) as UsedStateMessage
        if (typeof message.n !== "string" || typeof message.e !== "number") return
        if (message.k === "request-state-used") this.states.markUsed(message.n, message.e)
        else if (message.k === "request-state-rejected") this.states.reject(message.n, message.e)
        else return
        this.pendingInputs.remove(message.n)
      } catch {
        // not a message of ours
      }
    })
    this.#unsubscribe?.catch((error) => options.onError?.(error))
    this.held = new HeldCalls(this.states, () => this.#serverInfo, {
      ...options.heldCalls,
      ...(options.bus ? { bus: options.bus } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    })
  }

  /** Marks a state used here and tells the other replicas. */
  #consume(claims: RequestStateClaims): boolean {
    if (!this.states.consume(claims)) return false
    this.pendingInputs.remove(claims.n)
    const message: UsedStateMessage = { k: "request-state-used", n: claims.n, e: claims.e }
    this.#options.bus?.publish(JSON.stringify(message)).catch((error) => this.#options.onError?.(error))
    return true
  }

  /** Rejects a state here and tells the other replicas (an operator refused its retry). */
  #rejectState(nonce: string, expiresAt: number): void {
    this.states.reject(nonce, expiresAt)
    const message: UsedStateMessage = { k: "request-state-rejected", n: nonce, e: expiresAt }
    this.#options.bus?.publish(JSON.stringify(message)).catch((error) => this.#options.onError?.(error))
  }

  /** Resolves once subscribed to the bus (if any). */
  async start(): Promise<void> {
    await this.#unsubscribe
    await this.held.start()
  }

  /** The handlers, from one server of the exposure (made on first use). */
  #ready(): Map<string, Handler> {
    if (this.#handlers) return this.#handlers
    const server = this.#exposure.createServer()
    void server.connect(new NoTransport((message) => this.#broadcast(message)))
    this.#server = server
    this.#handlers = this.#exposure.handlers(server) as Map<string, Handler>
    return this.#handlers
  }

  get #capabilities(): Record<string, unknown> {
    this.#ready()
    const caps: Record<string, unknown> = this.#server?.getCapabilities() ?? {}
    // 2026-07-28 has no logging/setLevel (the level travels in each request's _meta); list changes and
    // resource updates come on subscriptions/listen streams.
    const { logging: _logging, ...out } = caps
    return out
  }

  get #serverInfo(): Record<string, unknown> {
    return (this.#exposure.options.serverInfo ?? { name: "toolplane", version: "0.1.0" }) as Record<
      string,
      unknown
    >
  }

  /** The `server/discover` result. */
  discover(): Record<string, unknown> {
    const instructions = this.#exposure.options.instructions
    return {
      resultType: "complete",
      supportedVersions: SERVED_PROTOCOL_VERSIONS,
      capabilities: withTasksExtension(this.#capabilities),
      ...(instructions !== undefined ? { instructions } : {}),
      // the same for every caller; as long-lived as a listing (DiscoverResult requires the hints)
      ...cacheHintFor("tools/list", this.#options.cacheHints, false),
      _meta: { [SERVER_INFO_META_KEY]: this.#serverInfo },
    }
  }

  /** Hands a notification the server sent on its own to the listen streams that asked for it. */
  #broadcast(message: Record<string, unknown>): void {
    if (message.method === "notifications/tools/list_changed") this.tasks.support.clear()
    if (message.method === "notifications/resources/updated") {
      const uri = isObject(message.params) ? message.params.uri : undefined
      for (const listener of this.#listeners)
        if (typeof uri === "string" && listener.resources.has(uri))
          listener.sink.notify({
            jsonrpc: "2.0",
            method: message.method,
            params: { uri, _meta: { [SUBSCRIPTION_ID_META_KEY]: listener.id } },
          })
      return
    }
    const flag = typeof message.method === "string" ? LIST_CHANGES[message.method] : undefined
    if (flag === undefined) return
    for (const listener of this.#listeners)
      if (listener.agreed[flag])
        listener.sink.notify({
          jsonrpc: "2.0",
          method: message.method,
          params: {
            ...(isObject(message.params) ? message.params : {}),
            _meta: { [SUBSCRIPTION_ID_META_KEY]: listener.id },
          },
        })
  }

  /**
   * A `subscriptions/listen` stream: acknowledged with what it will carry (the list changes it asked for
   * that this server offers), then open until the client goes away or the server closes, when it is
   * answered with its subscription id.
   */
  async #listen(
    id: string | number,
    params: Record<string, unknown>,
    caller: ModernCaller,
    sink: ModernSink,
    controller: CallController,
  ): Promise<Record<string, unknown>> {
    const asked = params.notifications
    if (!isObject(asked))
      throw new ModernProtocolError(
        ModernErrorCode.InvalidParams,
        "Invalid params: subscriptions/listen needs params.notifications (the notification filter)",
      )
    const caps = this.#capabilities
    const offers = (kind: string) =>
      isObject(caps[kind]) && (caps[kind] as Record<string, unknown>).listChanged === true
    const agreed: Record<string, boolean> = {}
    if (asked.toolsListChanged === true && offers("tools")) agreed.toolsListChanged = true
    if (asked.promptsListChanged === true && offers("prompts")) agreed.promptsListChanged = true
    if (asked.resourcesListChanged === true && offers("resources")) agreed.resourcesListChanged = true
    // Each resource is subscribed through the exposure's own handler (the catalog's visibility check for
    // this caller); one it refuses (unknown, hidden, not subscribable) is left out of the acknowledgement.
    const resources = new Set<string>()
    const subscribe = this.#handlers?.get("resources/subscribe")
    if (Array.isArray(asked.resourceSubscriptions) && subscribe && this.#subscribable())
      for (const uri of asked.resourceSubscriptions) {
        if (typeof uri !== "string" || resources.has(uri)) continue
        try {
          await subscribe(
            { method: "resources/subscribe", params: { uri } },
            {
              signal: controller.signal,
              requestId: id,
              ...(caller.authInfo ? { authInfo: caller.authInfo } : {}),
            },
          )
          resources.add(uri)
          this.#resourceRefs.set(uri, (this.#resourceRefs.get(uri) ?? 0) + 1)
        } catch {
          // not subscribable for this caller
        }
      }
    const ackFilter: Record<string, unknown> = { ...agreed }
    if (resources.size > 0) ackFilter.resourceSubscriptions = [...resources]
    const meta = { [SUBSCRIPTION_ID_META_KEY]: id }
    sink.notify({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: ackFilter, _meta: meta },
    })
    return new Promise((resolve) => {
      const listener: Listener = {
        id,
        agreed,
        resources,
        sink,
        end: () => {
          this.#listeners.delete(listener)
          for (const uri of resources) this.#release(uri)
          controller.signal.removeEventListener("abort", listener.end)
          resolve({ resultType: "complete", _meta: { ...meta, [SERVER_INFO_META_KEY]: this.#serverInfo } })
        },
      }
      this.#listeners.add(listener)
      if (controller.signal.aborted) listener.end()
      else controller.signal.addEventListener("abort", listener.end, { once: true })
    })
  }

  /** Whether the exposure's server offers resource subscriptions. */
  #subscribable(): boolean {
    return this.#server?.getCapabilities().resources?.subscribe === true
  }

  /** One listen stream less for `uri`; the last one unsubscribes the catalog. */
  #release(uri: string): void {
    const left = (this.#resourceRefs.get(uri) ?? 1) - 1
    if (left > 0) {
      this.#resourceRefs.set(uri, left)
      return
    }
    this.#resourceRefs.delete(uri)
    this.#handlers
      ?.get("resources/unsubscribe")?.({ method: "resources/unsubscribe", params: { uri } }, {})
      .catch(() => {})
  }

  /** Ends every listen stream (answered with its subscription id), for a server that is shutting down. */
  endListeners(): void {
    for (const listener of [...this.#listeners]) listener.end()
  }

  /** Stops the server behind the handlers. */
  close(): void {
    this.endListeners()
    this.held.close()
    void this.#unsubscribe?.then((off) => off()).catch(() => {})
    this.#unsubscribe = undefined
    void this.#server?.close().catch(() => {})
    this.#server = undefined
    this.#handlers = undefined
  }

  /** The `x-mcp-header` declarations of the served tool named `mcpName` (see {@link McpExposure}). */
  paramHeadersOf(mcpName: string) {
    return this.#exposure.paramHeadersOf(mcpName)
  }

  /**
   * Serves one stateless request (the envelope not read yet) or notification; the answer goes to `sink`.
   * `signal` aborts when the client goes away (the call is cancelled, nothing is answered).
   */
  async serve(
    message: Record<string, unknown>,
    caller: ModernCaller,
    sink: ModernSink,
    controller: CallController = new CallController(),
    /** The request's envelope, when the entry has read it already. */
    read?: ModernEnvelope,
  ): Promise<void> {
    const id = message.id as string | number | undefined
    const method = message.method as string
    if (id === undefined) return // notifications of the stateless era carry nothing the server keeps
    try {
      const envelope = read ?? readEnvelope(message.params)
      if (envelope instanceof ModernProtocolError) throw envelope
      const result = await this.#dispatch(id, method, message, envelope, caller, sink, controller)
      if (controller.cancelled) return
      sink.answer({ jsonrpc: "2.0", id, result }, 200)
    } catch (error) {
      if (controller.cancelled) return
      const { code, message: text, data, status } = this.#errorOf(error, method, message.params)
      sink.answer(errorMessage(id, code, text, data), status)
    }
  }

  /**
   * A `tools/call` that may become a task (`undefined`: run it as any other call); see
   * {@link TaskHost.maybeTask}.
   */
  #asTask(
    name: string,
    callerId: string,
    round: InputRound,
    envelope: ModernEnvelope,
    extra: Record<string | symbol, unknown>,
    run: (x: never) => Promise<Record<string, unknown>>,
    handoff?: UpstreamHandoff,
  ): Promise<{ task: Record<string, unknown> } | { done: Record<string, unknown> } | undefined> {
    const list = this.#ready().get("tools/list")
    return this.tasks.maybeTask({
      name,
      caller: callerId,
      round,
      capabilities: envelope.clientCapabilities,
      extra,
      listTools: (params, x) => (list ? list({ method: "tools/list", params }, x) : Promise.resolve({})),
      run: (x) =>
        withRemoteParent(remoteParent(envelope.traceparent, envelope.tracestate), () => run(x as never)),
      errorOf: (error) => this.#errorOf(error, "tools/call", undefined),
      ...(handoff ? { mayBecomeTask: handoff.mayBecomeTask } : {}),
    })
  }

  #errorOf(
    error: unknown,
    method: string,
    params: unknown,
  ): { code: number; message: string; data: unknown; status: number } {
    if (error instanceof ModernProtocolError)
      return {
        code: error.code,
        message: error.message,
        data: error.data,
        status: error.httpStatus === 200 ? httpStatusOf(error.code) : error.httpStatus,
      }
    if (isWireError(error)) {
      let code = error.code
      let data = error.data
      // 2026-07-28: an unknown resource is Invalid Params naming the URI (-32002 was the 2025 code).
      if (code === -32002 || (method === "resources/read" && code === ModernErrorCode.InvalidParams)) {
        code = ModernErrorCode.InvalidParams
        const uri = isObject(params) ? params.uri : undefined
        data = { ...(isObject(data) ? data : {}), ...(typeof uri === "string" ? { uri } : {}) }
      }
      return { code, message: error.message.replace(/^MCP error -?\d+: /, ""), data, status: 200 }
    }
    this.#exposure.options.onError?.(error)
    return { code: ModernErrorCode.InternalError, message: "Internal error", data: undefined, status: 200 }
  }

  async #dispatch(
    id: string | number,
    method: string,
    message: Record<string, unknown>,
    envelope: ModernEnvelope,
    caller: ModernCaller,
    sink: ModernSink,
    controller: CallController,
  ): Promise<Record<string, unknown>> {
    if (method === "server/discover") return this.discover()
    if (method === "subscriptions/listen")
      return this.#listen(id, isObject(message.params) ? message.params : {}, caller, sink, controller)
    if (TASK_METHODS.has(method))
      return this.tasks.serve(
        method,
        isObject(message.params) ? message.params : {},
        envelope.clientCapabilities,
        caller.authInfo === undefined ? "" : callerIdOf(caller.authInfo),
      )
    const handlers = this.#ready()
    const handler = REMOVED_METHODS.has(method) ? undefined : handlers.get(method)
    if (handler === undefined)
      throw new ModernProtocolError(
        ModernErrorCode.MethodNotFound,
        REMOVED_METHODS.has(method)
          ? `Method not found: ${method} was removed in protocol revision ${MODERN_PROTOCOL_VERSIONS[0]}`
          : `Method not found: ${method}`,
      )
    const params = isObject(message.params) ? message.params : {}
    const callerId = caller.authInfo === undefined ? "" : callerIdOf(caller.authInfo)
    let round: InputRound | undefined
    let binding: { caller: string; method: string; arguments: unknown } | undefined
    let resumed: Record<string, unknown> | undefined
    const asks = inputBindingOf(method, params)
    if (asks !== undefined) {
      binding = { caller: callerId, ...asks }
      const opened = InputRound.open(this.states, binding, params, envelope.clientCapabilities)
      round = opened.round
      // A state is used once: the retry that consumes it is the only one to go on with its answers.
      if (opened.claims && !this.#consume(opened.claims))
        throw new ModernProtocolError(
          ModernErrorCode.InvalidParams,
          "Invalid requestState: it was already used",
          {
            data: { reason: "replayed" },
          },
        )
      // A held call's retry resumes the call where it waits (here, or on the replica holding it).
      if (opened.claims?.h !== undefined)
        resumed = await this.held.resume(opened.claims, binding, params.inputResponses, controller, sink)
    }
    // an upstream's task is relayed only to a client that declared the extension (set here, never from _meta)
    const handoff =
      round && method === "tools/call" && this.#upstream && declaresTasks(envelope.clientCapabilities)
        ? new UpstreamHandoff()
        : undefined
    const modern: ModernRequest = {
      logLevel: LOG_LEVELS.has(envelope.logLevel ?? "") ? (envelope.logLevel as LoggingLevel) : undefined,
      client: round?.client ?? {},
      ...(handoff ? { metadataFor: handoff.metadataFor } : {}),
    }
    const out = round ? new HeldSink(sink) : sink
    // The SDK's handler sees the request without the fields only the stateless era has.
    // (and without a 2025 client's `task` hint: under the tasks extension the server alone decides)
    const { inputResponses: _responses, requestState: _state, task: _task, ...rest } = params
    const extra = new StatelessExtra(controller, id, caller, params._meta, out, modern)
    const parent = remoteParent(envelope.traceparent, envelope.tracestate)
    // tools/call and tools/list with well-shaped params skip the SDK's schema validation, as on a session
    const direct = isDirectParams(method, rest) ? this.#exposure.direct(this.#server!) : undefined
    const run = (x: typeof extra = extra) =>
      direct
        ? (direct[method as "tools/call" | "tools/list"](rest, x as never) as Promise<
            Record<string, unknown>
          >)
        : handler({ method, params: rest }, x)
    let result: Record<string, unknown>
    const task =
      resumed === undefined &&
      round &&
      method === "tools/call" &&
      !this.tasks.runsWithoutTask(String(params.name), callerId, envelope.clientCapabilities)
        ? await this.#asTask(
            String(params.name),
            callerId,
            round,
            envelope,
            extra as unknown as Record<string | symbol, unknown>,
            run,
            handoff,
          )
        : undefined
    if (task !== undefined && "task" in task)
      return { ...task.task, _meta: { [SERVER_INFO_META_KEY]: this.#serverInfo } }
    if (task !== undefined) result = task.done
    else if (resumed !== undefined) result = resumed
    else {
      const go = () => withRemoteParent(parent, () => run())
      result = await (round && binding && out instanceof HeldSink
        ? this.held.run(round, binding, controller, out, go)
        : go()
      ).catch((error: unknown) => {
        // A read or a prompt stopped by a client request it needs: answered below from the round.
        if (round && (round.needsInput || Object.keys(round.missing).length > 0))
          return {} as Record<string, unknown>
        throw error
      })
    }
    if (this.held.asks(result)) return result
    if (handoff) {
      const settled = handoff.settle(result, {
        host: this.tasks,
        source: this.#upstream!,
        caller: callerId,
        tool: String(params.name),
        ttlMs: this.#options.tasks?.ttlMs ?? 60 * 60_000,
      })
      if ("task" in settled) return { ...settled.task, _meta: { [SERVER_INFO_META_KEY]: this.#serverInfo } }
      result = settled.result
    }
    if (round && Object.keys(round.missing).length > 0)
      throw new ModernProtocolError(
        ModernErrorCode.MissingRequiredClientCapability,
        `Missing required client capability: ${Object.keys(round.missing).join(", ")}`,
        { httpStatus: 400, data: { requiredCapabilities: round.missing } },
      )
    if (round?.needsInput && binding) {
      const keys = Object.keys(round.pending)
      const requestState = this.states.sign(binding, keys, round.answers)
      recordPending(
        this.pendingInputs,
        this.states,
        requestState,
        binding,
        params,
        caller.authInfo,
        round.pending,
      )
      return {
        resultType: "input_required",
        inputRequests: round.pending,
        requestState,
        _meta: { [SERVER_INFO_META_KEY]: this.#serverInfo },
      }
    }
    const hint = cacheHintFor(method, this.#options.cacheHints, caller.authInfo !== undefined)
    return {
      ...result,
      resultType: "complete",
      ...(hint ?? {}),
      _meta: { ...(isObject(result._meta) ? result._meta : {}), [SERVER_INFO_META_KEY]: this.#serverInfo },
    }
  }
}
