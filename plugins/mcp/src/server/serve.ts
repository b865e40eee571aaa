/**
 * Exposes a {@link ToolService} (with all its middleware) as an MCP server, on the official SDK's
 * low-level `Server`: `tools/list` pages pass the service's signed cursors through unchanged,
 * `tools/call` carries structured content, progress, logging and cancellation, typed errors map to
 * JSON-RPC errors or `isError` results (see `errors.ts`), and `notifications/tools/list_changed` is
 * sent when the service's tools change.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import {
  type AuthInfo,
  type BaseContext,
  type CallToolResult,
  type Implementation,
  type JSONRPCRequest,
  type LoggingLevel,
  type MessageExtraInfo,
  ProtocolError,
  ProtocolErrorCode,
  type RequestMethod,
  type RequestTypeMap,
  type Result,
  Server,
  type ServerCapabilities,
  type ServerContext,
  specTypeSchemas,
} from "@modelcontextprotocol/server"
import {
  type ClientRequests,
  type ExecutionContext,
  type ExecutionContextInit,
  isToolError,
  listAllTools,
  makeContext,
  type ResourceCatalog,
  suggestToolIds,
  type Tool,
  ToolNotFound,
  type ToolResult,
  type ToolService,
} from "@toolplane/foundation"
import {
  CURSOR_META_KEY,
  canonicalIdOf,
  type McpNaming,
  mcpToolName,
  NEXT_CURSOR_META_KEY,
  toMcpTool,
} from "../adapter.js"
import { type ParamHeaderDeclaration, paramHeaderDeclarations } from "../client/paramHeaders.js"
import type { UpstreamTaskRelay } from "../client/upstreamTasks.js"
import { callFailureToMcp, toolErrorToMcpError, unprefixed, withoutMcpErrorPrefix } from "../errors.js"
import { resultJson } from "../internal/resultJson.js"
import { AUTHENTICATED_CALLER_KEY, callerIdOf } from "./callerIdentity.js"
import type { McpCacheHints } from "./modern/cacheHints.js"
import { isInputSignal } from "./modern/inputRequests.js"
import type { TaskSource as McpTaskSource } from "./modern/taskSource.js"

/** A readable account of a zod error (`params.name: expected string, received number`). */
const describeIssues = (error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }) =>
  error.issues
    .slice(0, 5)
    .map(
      (i) => `${i.path.map(String).join(".") || "(request)"}: ${i.message.replace(/^Invalid input: /, "")}`,
    )
    .join("; ")

/** The spec schema each method's params are checked with (only methods this server answers). */
const REQUEST_SCHEMAS: Readonly<Record<string, keyof typeof specTypeSchemas>> = {
  "tools/call": "CallToolRequest",
  "tools/list": "ListToolsRequest",
  "logging/setLevel": "SetLevelRequest",
  "resources/list": "ListResourcesRequest",
  "resources/templates/list": "ListResourceTemplatesRequest",
  "resources/read": "ReadResourceRequest",
  "resources/subscribe": "SubscribeRequest",
  "resources/unsubscribe": "UnsubscribeRequest",
  "prompts/list": "ListPromptsRequest",
  "prompts/get": "GetPromptRequest",
  "completion/complete": "CompleteRequest",
}

/**
 * Whether `error` is a JSON-RPC error to send as is (the SDK's `ProtocolError`, or an error of another
 * SDK generation with an integer `code`, such as the wire errors of `errors.ts`).
 */
export const isWireError = (error: unknown): error is Error & { code: number; data?: unknown } =>
  error instanceof ProtocolError ||
  (error instanceof Error &&
    Number.isSafeInteger((error as { code?: unknown }).code) &&
    (error.name === "McpError" || error.name === "ProtocolError"))

/**
 * The request's params checked against its method's spec schema: `-32602 Invalid params` with a
 * readable message when they do not match (the SDK would answer a dump of the schema error).
 */
const checkParams = (method: string, request: unknown): void => {
  const name = REQUEST_SCHEMAS[method]
  if (name === undefined) return
  const outcome = specTypeSchemas[name]["~standard"].validate(request)
  if (outcome instanceof Promise) return
  if (outcome.issues !== undefined)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid params for ${method}: ${describeIssues(outcome as never)}`,
    )
}

/**
 * One of this plugin's request handlers (`request` is the JSON-RPC request, `extra` what the request
 * brings), with its params checked first and wire errors sent without their prefix.
 *
 * @internal
 */
export type OwnHandler = (request: { method: string; params?: unknown }, extra: Extra) => Promise<unknown>

/** Registers one of this plugin's handlers on a server (and in the exposure's own map). */
type On = <M extends RequestMethod>(
  method: M,
  handler: (request: RequestTypeMap[M], extra: Extra) => Promise<unknown>,
) => void

const checked =
  (method: string, handler: OwnHandler): OwnHandler =>
  async (request, extra) => {
    checkParams(method, request)
    try {
      return await handler(request, extra)
    } catch (error) {
      throw isWireError(error) ? unprefixed(error) : error
    }
  }

/**
 * The SDK server (`@modelcontextprotocol/server`), with two corrections to what its handlers send: a
 * request whose params do not match the method's schema is `-32602 Invalid params` with a readable
 * message, and an error message is sent without the "MCP error CODE:" prefix (the client adds it).
 * It also hands a transport's `requestInfo` (headers of the HTTP request) to the handlers' context.
 */
class GatewayServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    // `tools/call` as the sessions' direct dispatch answers it: the SDK validated the params already (in
    // the handler it stores); its second validation of them, its validation of the result and its
    // 2026-07-28 input-required seam are left out (2026-07-28 requests never reach this server).
    const inner = method === "tools/call" ? handler : super._wrapHandler(method, handler)
    return async (request, ctx) => {
      try {
        return await inner(request, ctx)
      } catch (error) {
        // The SDK validated the params first: only a failure is checked again, for the readable message.
        checkParams(method, request)
        throw isWireError(error) ? unprefixed(error) : error
      }
    }
  }

  protected override buildContext(ctx: BaseContext, transportInfo?: MessageExtraInfo): ServerContext {
    const built = super.buildContext(ctx, transportInfo)
    const requestInfo = (transportInfo as { requestInfo?: unknown } | undefined)?.requestInfo
    return requestInfo === undefined ? built : Object.assign(built, { [REQUEST_INFO]: requestInfo })
  }
}

/** Where the context of a request carries its transport's `requestInfo`. */
const REQUEST_INFO: unique symbol = Symbol("toolplane.requestInfo")

/**
 * Information about the MCP request a call came from, for mapping it to a context.
 *
 * @since 0.1.0
 */
export interface McpRequestInfo {
  readonly sessionId?: string
  /** The OAuth client id, when an auth middleware validated a token. */
  readonly clientId?: string
  /**
   * The validated token's scopes (with `serveHttp`'s `auth`).
   *
   * @since 0.1.0
   */
  readonly scopes?: readonly string[]
  readonly requestId: string | number
  /** HTTP request headers (Streamable HTTP only). */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>
}

/**
 * Options shared by {@link createMcpServer}, `serveStdio` and `serveHttp`.
 *
 * @since 0.1.0
 */
export interface McpServeOptions {
  /** Default `{ name: "toolplane", version: "0.1.0" }`. */
  readonly serverInfo?: Implementation
  /** Sent to clients in the `initialize` result. */
  readonly instructions?: string
  /** How tool ids become MCP tool names. Default `"dotted"` (`namespace.name`). */
  readonly naming?: McpNaming
  /** Carry Toolplane-only tool fields in `_meta`. Default `true`. */
  readonly extensions?: boolean
  /** Include stack traces in error JSON sent to clients. Default `false`. */
  readonly exposeStacks?: boolean
  /**
   * Subscribes to changes of the service's tool list; each `notify()` sends
   * `notifications/tools/list_changed` to every connected client. Returns an unsubscribe function.
   */
  readonly watch?: (notify: () => void) => () => void
  /**
   * Extra context for a call or listing (caller id, deadline, metadata); by default the session id and
   * the authenticated client id (as `callerId`).
   */
  readonly context?: (info: McpRequestInfo) => Partial<ExecutionContextInit>
  /** Receives internal failures (anything that is not a typed error). */
  readonly onError?: (error: unknown) => void
  /**
   * Resources, resource templates, prompts and completions served next to the tools (e.g.
   * `@toolplane/compose`'s `resourceCatalog` over the backends). Only the kinds it offers are
   * advertised; its list changes and resource updates are sent to the clients concerned.
   *
   * @since 0.1.0
   */
  readonly catalog?: ResourceCatalog
  /**
   * Cache hints (`ttlMs`, `cacheScope`) on listings and resource reads answered to 2026-07-28 clients.
   * Default: listings 30 s, reads 0, `private` when the request was authenticated, else `public`.
   *
   * @since 0.1.0
   */
  readonly cacheHints?: McpCacheHints
  /**
   * Relays the tasks of MCP backends (the tasks extension) to 2026-07-28 clients that declared it: given a
   * backend's name, its relay (`upstreamTasksOf(backend)`). A call whose upstream answers with a task is
   * answered with this server's own signed, caller-bound handle, and `tasks/get`, `tasks/update` and
   * `tasks/cancel` of it go to the backend. Default: none (the backend follows the task to its end).
   *
   * @example
   * ```ts
   * const ci = mcpBackend({ name: "ci", http: { url: "http://127.0.0.1:3000/mcp" } })
   * await serveHttp(runner, { upstreamTasks: (name) => (name === "ci" ? upstreamTasksOf(ci) : undefined) })
   * ```
   * @since 0.2.0
   */
  readonly upstreamTasks?: (backend: string) => UpstreamTaskRelay | undefined
  /**
   * More places a task's state may live (the tasks extension), asked in order after this process's own
   * tasks and the relayed upstream tasks: a task whose tool bound its state (foundation's
   * `bindTaskState`, e.g. a durable skill's run) is answered by the source that understands its reference,
   * on any replica sharing the secret. `@toolplane/cli` serves durable skills' runs this way.
   *
   * @since 0.2.0
   */
  readonly taskSources?: readonly McpTaskSource[]
}

/**
 * The context metadata key under which a call or listing made with a validated token carries the
 * token's scopes (`readonly string[]`), for middleware that narrows what a caller sees.
 *
 * @since 0.1.0
 */
export const CALLER_SCOPES_KEY = "toolplane.dev/scopes"

/**
 * The scopes of the token a call or listing was made with, or `undefined` when it was not authenticated.
 *
 * @since 0.1.0
 */
export const callerScopes = (ctx: ExecutionContext): readonly string[] | undefined => {
  const scopes = ctx.metadata[CALLER_SCOPES_KEY]
  return Array.isArray(scopes) ? (scopes as string[]) : undefined
}

/**
 * Sends a log message (`notifications/message`) to the MCP client that made the call `ctx` belongs
 * to, when it was made through MCP and the client's log level lets it through; a no-op otherwise.
 * The same as `ctx.log({ level, data, logger })`.
 *
 * @example
 * ```ts
 * defineTool({
 *   id: "web/fetch",
 *   handler: async (_args, ctx) => {
 *     mcpLog(ctx, "info", { step: "fetching" })
 *     // ... the work
 *     return "done"
 *   },
 * })
 * ```
 * @since 0.1.0
 */
export const mcpLog = (ctx: ExecutionContext, level: LoggingLevel, data: unknown, logger?: string): void =>
  ctx.log({ level, data, ...(logger !== undefined ? { logger } : {}) })

/**
 * Sampling, elicitation and roots requests back to the calling client, offered only when it declared
 * them, and the capabilities it declared.
 */
const clientRequests = (server: Server, extra: Extra): ClientRequests => {
  const capabilities = server.getClientCapabilities()
  const client: { -readonly [K in keyof ClientRequests]: ClientRequests[K] } = {}
  if (capabilities !== undefined) client.capabilities = capabilities as Readonly<Record<string, unknown>>
  if (capabilities?.roots)
    client.listRoots = async (params?: Readonly<Record<string, unknown>>) =>
      extra.sendRequest({ method: "roots/list", ...(params !== undefined ? { params } : {}) }) as never
  if (capabilities?.sampling)
    client.createMessage = async (params: Readonly<Record<string, unknown>>) =>
      extra.sendRequest({ method: "sampling/createMessage", params }) as never
  if (capabilities?.elicitation)
    client.elicitInput = async (params: Readonly<Record<string, unknown>>) =>
      extra.sendRequest({ method: "elicitation/create", params }) as never
  return client
}

const LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
]

/**
 * What a request brings to its handler, whichever transport carried it: its id, session, auth, signal,
 * the HTTP request's headers, and notifications and requests to the client related to it. The SDK
 * server's handler context is mapped to it ({@link extraOf}); the transports that dispatch without the
 * SDK's protocol layer build it themselves.
 *
 * @internal
 */
export interface RequestExtra {
  readonly requestId: string | number
  readonly sessionId?: string | undefined
  readonly authInfo?: AuthInfo | undefined
  readonly signal: AbortSignal
  readonly requestInfo?: { readonly headers?: unknown } | undefined
  readonly _meta?: unknown
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>
  sendRequest(request: { method: string; params?: Readonly<Record<string, unknown>> }): Promise<unknown>
}

type Extra = RequestExtra

/** The {@link RequestExtra} of a request the SDK server dispatched. */
const extraOf = (ctx: ServerContext): Extra => {
  const req = ctx.mcpReq
  const requestInfo = (ctx as { [REQUEST_INFO]?: Extra["requestInfo"] })[REQUEST_INFO]
  const httpReq = ctx.http?.req
  return {
    requestId: req.id,
    sessionId: ctx.sessionId,
    authInfo: ctx.http?.authInfo,
    signal: req.signal,
    requestInfo:
      requestInfo ?? (httpReq ? { headers: Object.fromEntries(httpReq.headers.entries()) } : undefined),
    _meta: req._meta,
    sendNotification: (notification) => req.notify(notification as never),
    sendRequest: (request) => req.send(request as never),
  }
}

/**
 * A hot-path handler: params (already checked) and the request's extra, to its result.
 *
 * @internal
 */
export type DirectHandler = (params: unknown, extra: Extra) => Promise<unknown>

/**
 * The hot-path handlers of one server: `tools/call` and `tools/list` answer their MCP result objects;
 * `callToolJson` answers a `tools/call` with the JSON text of its `result` member instead (see
 * `resultJson`: an MCP backend's result relayed unchanged keeps the upstream server's own text).
 *
 * @internal
 */
export interface DirectHandlers {
  readonly "tools/call": DirectHandler
  readonly "tools/list": DirectHandler
  readonly callToolJson: (params: unknown, extra: Extra) => Promise<string>
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The JSON-RPC `error` member answering a request whose direct handler threw: the error's integer code
 * (else `-32603`), its message without the "MCP error CODE:" prefix a client adds itself, its data.
 *
 * @internal
 */
export const directErrorMember = (error: { code?: unknown; message?: unknown; data?: unknown }) => ({
  code: Number.isSafeInteger(error?.code) ? (error.code as number) : ProtocolErrorCode.InternalError,
  message: typeof error?.message === "string" ? withoutMcpErrorPrefix(error.message) : "Internal error",
  ...(error?.data !== undefined ? { data: error.data } : {}),
})

/**
 * Whether a request's params have the shape its direct handler reads (anything else goes through the
 * SDK's validation, which answers the precise `-32602`).
 *
 * @internal
 */
export const isDirectParams = (method: string, params: unknown): boolean => {
  if (method === "tools/call")
    return (
      isPlainObject(params) &&
      typeof params.name === "string" &&
      params.task === undefined &&
      (params.arguments === undefined || isPlainObject(params.arguments)) &&
      (params._meta === undefined || isPlainObject(params._meta))
    )
  if (method === "tools/list")
    return (
      params === undefined ||
      (isPlainObject(params) &&
        (params.cursor === undefined || typeof params.cursor === "string") &&
        (params._meta === undefined || isPlainObject(params._meta)))
    )
  return false
}

/**
 * The controller of one request that a transport made for that request alone, so a call may take it as
 * its own signal instead of a controller following `extra.signal` (one object and two listener calls
 * fewer per call). The transport cancels through {@link CallController.cancel} (its client cancelled,
 * went away, or the session ended: it then answers nothing); a shutdown ({@link McpExposure.abortCalls})
 * aborts it without `cancelled`, and the call still answers, as with a controller of its own.
 *
 * @internal
 */
export class CallController extends AbortController {
  /** Set when the transport cancelled the request (not when a shutdown aborted the call). */
  cancelled = false

  cancel(reason: unknown): void {
    this.cancelled = true
    this.abort(reason)
  }
}

/**
 * The key under which a transport's `extra` carries a {@link CallController} made for that request alone.
 *
 * @internal
 */
export const CALL_CONTROLLER: unique symbol = Symbol("toolplane.callController")

/**
 * What a stateless (2026-07-28) request brings that a session would otherwise hold: the log level its
 * `_meta` asked for (no log messages without one) and the client requests it may answer (through
 * multi round-trip input requests instead of requests on a session).
 *
 * @internal
 */
export interface ModernRequest {
  readonly logLevel: LoggingLevel | undefined
  readonly client: ClientRequests
  /** Context metadata the serving side adds to the call of one tool (by canonical id), e.g. a task handoff offer. */
  readonly metadataFor?: (toolId: string) => Readonly<Record<string, unknown>> | undefined
}

/**
 * The key under which a stateless request's `extra` carries its {@link ModernRequest}.
 *
 * @internal
 */
export const MODERN_REQUEST: unique symbol = Symbol("toolplane.modernRequest")

type OwnExtra = Extra & {
  readonly [CALL_CONTROLLER]?: CallController
  readonly [MODERN_REQUEST]?: ModernRequest
}

const requestInfoOf = (extra: Extra): McpRequestInfo => ({
  requestId: extra.requestId,
  ...(extra.sessionId !== undefined ? { sessionId: extra.sessionId } : {}),
  ...(extra.authInfo?.clientId !== undefined ? { clientId: extra.authInfo.clientId } : {}),
  ...(extra.authInfo ? { scopes: extra.authInfo.scopes } : {}),
  ...(extra.requestInfo?.headers ? { headers: extra.requestInfo.headers as McpRequestInfo["headers"] } : {}),
})

const sameResult = (result: CallToolResult): CallToolResult => result

const toMcpResult = (result: ToolResult): CallToolResult => {
  const meta =
    result.nextCursor !== undefined
      ? { ...(result._meta ?? {}), [NEXT_CURSOR_META_KEY]: result.nextCursor }
      : result._meta
  const out: Record<string, unknown> = { content: result.content }
  if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent
  if (result.isError) out.isError = true
  if (meta !== undefined) out._meta = meta
  return out as CallToolResult
}

/**
 * Shared state of one exposed service: the name → id map for naming policies that need the listing,
 * and the servers (one per client connection) to notify.
 *
 * @internal
 * @since 0.1.0
 */
export class McpExposure {
  readonly service: ToolService
  readonly options: McpServeOptions
  readonly #servers = new Set<Server>()
  #names: Promise<Map<string, string>> | undefined
  /** The whole catalogue as last listed (shared by the name map and the header declarations). */
  #catalogue: Promise<readonly Tool[]> | undefined
  #unwatch: (() => void) | undefined

  /** Servers by the subscriber id they use for resource subscriptions. */
  readonly #subscribers = new Map<string, Server>()
  readonly #unwatchCatalog: (() => void)[] = []
  /** The hot methods of each server, for a transport that dispatches them without the SDK's validation. */
  readonly #direct = new WeakMap<Server, DirectHandlers>()

  /**
   * The handlers of `tools/call` and `tools/list` of a server this exposure created, to call with
   * params checked by the caller (see {@link isDirectParams}) and a request's `extra`.
   */
  direct(server: Server): DirectHandlers | undefined {
    return this.#direct.get(server)
  }

  /** Each server's own request handlers by method, params checked (see {@link McpExposure.handlers}). */
  readonly #handlers = new WeakMap<Server, ReadonlyMap<string, OwnHandler>>()

  /**
   * The request handlers of a server this exposure created, by method, for a caller that dispatches
   * without the SDK's protocol layer: each takes the JSON-RPC request and a {@link RequestExtra}, checks
   * the params against the method's schema and answers the result (or throws a wire error).
   */
  handlers(server: Server): ReadonlyMap<string, OwnHandler> | undefined {
    return this.#handlers.get(server)
  }

  /** What each server advertised (a list change is sent only for kinds it advertised). */
  readonly #capabilities = new WeakMap<Server, ServerCapabilities>()

  constructor(service: ToolService, options: McpServeOptions) {
    this.service = service
    this.options = options
    this.#unwatch = options.watch?.(() => this.notifyToolsChanged())
    const catalog = options.catalog
    if (catalog) {
      this.#unwatchCatalog.push(
        catalog.onListChanged((kind) => {
          for (const server of this.#servers) {
            const caps = this.#capabilities.get(server)
            if (kind === "resources" && caps?.resources) server.sendResourceListChanged()
            else if (kind === "prompts" && caps?.prompts) server.sendPromptListChanged()
          }
        }),
        catalog.onResourceUpdated((uri, subscribers) => {
          for (const id of subscribers)
            this.#subscribers
              .get(id)
              ?.sendResourceUpdated({ uri })
              .catch(() => {})
        }),
      )
    }
  }

  get servers(): ReadonlySet<Server> {
    return this.#servers
  }

  notifyToolsChanged(): void {
    this.#catalogue = undefined
    this.#names = undefined
    this.#paramHeaders = undefined
    this.#paramHeadersLoading = undefined
    for (const server of this.#servers) {
      server.sendToolListChanged().catch(() => {})
    }
  }

  dispose(): void {
    this.#unwatch?.()
    this.#unwatch = undefined
    for (const off of this.#unwatchCatalog.splice(0)) off()
  }

  /** One controller per call in progress, so a shutdown can cancel them (cheaper than AbortSignal.any). */
  readonly #calls = new Set<AbortController>()

  /** Aborts every call in progress (they answer with `Cancelled`), for a server that is shutting down. */
  abortCalls(reason: string): void {
    for (const call of this.#calls) call.abort(new Error(reason))
  }

  /** Calls in progress by session and request id, for a transport that sees its client go away. */
  readonly #byRequest = new Map<string, AbortController>()

  /**
   * Cancels the call a request of a session started (its client disconnected before the answer): the
   * call's signal aborts, which cancels an upstream call too (`notifications/cancelled`).
   */
  abortRequest(sessionId: string | undefined, requestId: string | number, reason: string): void {
    this.#byRequest.get(`${sessionId ?? ""}\u0000${requestId}`)?.abort(new Error(reason))
  }

  /** A signal for one call that aborts with the request's own signal or on shutdown, and its release. */
  #callSignal(
    request: AbortSignal,
    key: string,
  ): { readonly signal: AbortSignal; readonly release: () => void } {
    const controller = new AbortController()
    const follow = () => controller.abort(request.reason)
    if (request.aborted) follow()
    else request.addEventListener("abort", follow, { once: true })
    this.#calls.add(controller)
    this.#byRequest.set(key, controller)
    return {
      signal: controller.signal,
      release: () => {
        request.removeEventListener("abort", follow)
        this.#calls.delete(controller)
        if (this.#byRequest.get(key) === controller) this.#byRequest.delete(key)
      },
    }
  }

  #context(extra: Extra, init: ExecutionContextInit): ExecutionContext {
    const sessionId = extra.sessionId
    const authInfo = extra.authInfo
    const clientId = authInfo === undefined ? undefined : callerIdOf(authInfo)
    const make = this.options.context
    if (make === undefined && init.metadata === undefined) {
      // No `context` option: the same context as below, built with fewer temporary objects.
      const merged: { -readonly [K in keyof ExecutionContextInit]: ExecutionContextInit[K] } = {
        ...init,
        metadata: authInfo
          ? { [CALLER_SCOPES_KEY]: authInfo.scopes, [AUTHENTICATED_CALLER_KEY]: clientId }
          : {},
        signal: init.signal ?? extra.signal,
      }
      if (sessionId !== undefined && !Object.hasOwn(init, "sessionId")) merged.sessionId = sessionId
      if (clientId !== undefined && !Object.hasOwn(init, "callerId")) merged.callerId = clientId
      return makeContext(merged)
    }
    // The request info (and with it the headers record, which the raw edge builds on demand) only for a
    // `context` option that reads it.
    const custom = make?.(requestInfoOf(extra)) ?? {}
    return makeContext({
      ...(sessionId !== undefined ? { sessionId } : {}),
      ...(clientId !== undefined ? { callerId: clientId } : {}),
      ...custom,
      ...init,
      metadata: {
        ...(authInfo ? { [CALLER_SCOPES_KEY]: authInfo.scopes, [AUTHENTICATED_CALLER_KEY]: clientId } : {}),
        ...(custom.metadata ?? {}),
        ...(init.metadata ?? {}),
      },
      signal: custom.signal
        ? AbortSignal.any([custom.signal, init.signal ?? extra.signal])
        : (init.signal ?? extra.signal),
    })
  }

  #paramHeaders: Map<string, readonly ParamHeaderDeclaration[]> | undefined
  #paramHeadersLoading: Promise<Map<string, readonly ParamHeaderDeclaration[]>> | undefined

  /**
   * The `x-mcp-header` declarations of the served tool named `mcpName` (none for an unknown tool),
   * synchronously once the catalogue's declarations are known; a listing after each tool change.
   */
  paramHeadersOf(
    mcpName: string,
  ): readonly ParamHeaderDeclaration[] | Promise<readonly ParamHeaderDeclaration[]> {
    const known = this.#paramHeaders
    if (known !== undefined) return known.get(mcpName) ?? []
    const naming = this.options.naming ?? "dotted"
    const loading = (this.#paramHeadersLoading ??= this.#listCatalogue().then((tools) => {
      const map = new Map<string, readonly ParamHeaderDeclaration[]>()
      for (const tool of tools) {
        const declarations = paramHeaderDeclarations(tool.inputSchema)
        if (declarations.length > 0) map.set(mcpToolName(tool, naming), declarations)
      }
      if (this.#paramHeadersLoading === loading) this.#paramHeaders = map
      return map
    }))
    return loading.then(
      (map) => map.get(mcpName) ?? [],
      () => {
        if (this.#paramHeadersLoading === loading) this.#paramHeadersLoading = undefined
        return []
      },
    )
  }

  /** The catalogue, listed once until the next tool change (a failed listing is not kept). */
  #listCatalogue(): Promise<readonly Tool[]> {
    if (this.#catalogue !== undefined) return this.#catalogue
    const listing = listAllTools(this.service)
    this.#catalogue = listing
    listing.catch(() => {
      if (this.#catalogue === listing) this.#catalogue = undefined
    })
    return listing
  }

  async #resolveId(mcpName: string): Promise<string> {
    const naming = this.options.naming ?? "dotted"
    const direct = canonicalIdOf(mcpName, naming)
    if (direct !== undefined) return direct
    if (naming === "dotted" || naming === "id") throw new ToolNotFound({ toolId: mcpName, suggestions: [] })
    for (let round = 0; round < 2; round++) {
      const listing = this.#listCatalogue()
      this.#names ??= listing.then((tools) => new Map(tools.map((t) => [mcpToolName(t, naming), t.id])))
      const names = this.#names
      const id = (await names.catch(() => new Map<string, string>())).get(mcpName)
      if (id !== undefined) return id
      // not in that listing: list again (a tool may have come without a change notification)
      if (this.#names === names) this.#names = undefined
      if (this.#catalogue === listing) this.#catalogue = undefined
    }
    throw new ToolNotFound({ toolId: mcpName, suggestions: [] })
  }

  /**
   * The not-found error a client should see for the name it sent: suggestions are MCP names it can call
   * (from its own listing, so never a tool hidden from it), and a tool id sent where the MCP name differs
   * (`math/add` for `math.add`) suggests that name first.
   */
  async #notFoundFor(sent: string, extra: Extra): Promise<ToolNotFound> {
    const naming = this.options.naming ?? "dotted"
    let tools: readonly { id: string; name: string }[] = []
    try {
      tools = (await listAllTools(this.service, { context: this.#context(extra, {}) })).map((t) => ({
        id: t.id,
        name: mcpToolName(t, naming),
      }))
    } catch {
      // No listing: no suggestions.
    }
    const byId = tools.find((t) => t.id === sent && t.name !== sent)
    const names = tools.map((t) => t.name)
    const suggestions = suggestToolIds(sent, names).filter((n) => n !== byId?.name)
    return new ToolNotFound({
      toolId: sent,
      suggestions: byId ? [byId.name, ...suggestions].slice(0, 3) : suggestions,
    })
  }

  /** Answers resources, templates, prompts and completions from the catalog (the kinds it offers). */
  #catalogHandlers(
    server: Server,
    on: On,
    catalog: ResourceCatalog,
    offered: ReturnType<ResourceCatalog["capabilities"]>,
    subscriber: string,
    exposeStacks: boolean,
  ): void {
    const guard = async <A>(run: () => Promise<A>): Promise<A> => {
      try {
        return await run()
      } catch (error) {
        if (isWireError(error) || isInputSignal(error)) throw error
        if (isToolError(error)) throw toolErrorToMcpError(error, exposeStacks)
        this.options.onError?.(error)
        throw new ProtocolError(ProtocolErrorCode.InternalError, "Internal error")
      }
    }
    const ctx = (extra: Extra) => this.#context(extra, {})
    // A read or a prompt may ask the client for input, as a tool call may: on the session, or for a
    // stateless request through its multi round-trip input requests (the signal that stops it passes).
    const asking = (extra: Extra) =>
      this.#context(extra, {
        client: (extra as OwnExtra)[MODERN_REQUEST]?.client ?? clientRequests(server, extra),
      })
    const cursorOf = (params: { cursor?: string } | undefined) =>
      params?.cursor !== undefined ? { cursor: params.cursor } : {}
    if (offered.resources) {
      on("resources/list", (request, extra) =>
        guard(async () => {
          const page = await catalog.listResources({ ...cursorOf(request.params), context: ctx(extra) })
          return {
            resources: page.items as never,
            ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
          }
        }),
      )
      on("resources/templates/list", (request, extra) =>
        guard(async () => {
          const page = await catalog.listResourceTemplates({
            ...cursorOf(request.params),
            context: ctx(extra),
          })
          return {
            resourceTemplates: page.items as never,
            ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
          }
        }),
      )
      on("resources/read", (request, extra) =>
        guard(async () => (await catalog.readResource(request.params.uri, asking(extra))) as never),
      )
      if (offered.resources.subscribe) {
        on("resources/subscribe", (request, extra) =>
          guard(async () => {
            await catalog.subscribe(request.params.uri, subscriber, ctx(extra))
            return {}
          }),
        )
        on("resources/unsubscribe", (request) =>
          guard(async () => {
            await catalog.unsubscribe(request.params.uri, subscriber)
            return {}
          }),
        )
      }
    }
    if (offered.prompts) {
      on("prompts/list", (request, extra) =>
        guard(async () => {
          const page = await catalog.listPrompts({ ...cursorOf(request.params), context: ctx(extra) })
          return {
            prompts: page.items as never,
            ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
          }
        }),
      )
      on("prompts/get", (request, extra) =>
        guard(
          async () =>
            (await catalog.getPrompt(
              request.params.name,
              (request.params.arguments ?? {}) as Record<string, string>,
              asking(extra),
            )) as never,
        ),
      )
    }
    if (offered.completions) {
      on("completion/complete", (request, extra) =>
        guard(async () => ({
          completion: (await catalog.complete(request.params as never, ctx(extra))) as never,
        })),
      )
    }
  }

  /** A new SDK server (one per client connection) answering from the service. */
  createServer(): Server {
    const options = this.options
    const naming = options.naming ?? "dotted"
    const extensions = options.extensions ?? true
    const exposeStacks = options.exposeStacks ?? false
    const catalog = options.catalog
    const offered = catalog?.capabilities() ?? {}
    const capabilities: ServerCapabilities = {
      tools: { listChanged: true },
      logging: {},
      ...(offered.resources
        ? { resources: { listChanged: true, ...(offered.resources.subscribe ? { subscribe: true } : {}) } }
        : {}),
      ...(offered.prompts ? { prompts: { listChanged: true } } : {}),
      ...(offered.completions ? { completions: {} } : {}),
    }
    const server = new GatewayServer(options.serverInfo ?? { name: "toolplane", version: "0.1.0" }, {
      capabilities,
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    })
    const own = new Map<string, OwnHandler>()
    const on: On = (method, handler) => {
      own.set(method, checked(method, handler as OwnHandler))
      server.setRequestHandler(method, ((request: RequestTypeMap[typeof method], ctx: ServerContext) =>
        handler(request as never, extraOf(ctx))) as never)
    }
    let minLevel = 0
    on("logging/setLevel", async (request) => {
      minLevel = Math.max(0, LEVELS.indexOf(request.params.level))
      return {}
    })
    const listTools = async (params: { cursor?: string } | undefined, extra: Extra) => {
      try {
        const cursor = params?.cursor
        const page = await this.service.listTools({
          ...(cursor !== undefined ? { cursor } : {}),
          context: this.#context(extra, {}),
        })
        return {
          tools: page.tools.map((tool) => toMcpTool(tool, { naming, extensions }).value),
          ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
        }
      } catch (error) {
        if (isToolError(error)) throw toolErrorToMcpError(error, exposeStacks)
        options.onError?.(error)
        throw new ProtocolError(ProtocolErrorCode.InternalError, "Internal error")
      }
    }
    on("tools/list", (request, extra) => listTools(request.params, extra))
    // One call, its answer made by `ok` from the exact result the service returned (the relay fast path
    // needs that object, not a copy) or by `failed` from the MCP form of a tool failure.
    const runCall = async <T>(
      params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
      extra: Extra,
      ok: (result: ToolResult) => T,
      failed: (result: CallToolResult) => T,
    ): Promise<T> => {
      const meta = params._meta as Record<string, unknown> | undefined
      const progressToken = meta?.progressToken as string | number | undefined
      const cursor = meta?.[CURSOR_META_KEY]
      let lastRaw = Number.NEGATIVE_INFINITY
      let lastSent = Number.NEGATIVE_INFINITY
      let offset = 0
      // A transport's own controller for this request is the call's; otherwise one following the request's.
      // (Such a transport cancels it itself, so it is tracked for a shutdown only, not for `abortRequest`.)
      const own = (extra as OwnExtra)[CALL_CONTROLLER]
      const tracked =
        own === undefined
          ? this.#callSignal(extra.signal, `${extra.sessionId ?? ""}\u0000${extra.requestId}`)
          : undefined
      if (own !== undefined) this.#calls.add(own)
      const signal = own !== undefined ? own.signal : tracked!.signal
      try {
        // A name the naming policy maps by itself needs no listing: no promise to wait for.
        const id = canonicalIdOf(params.name, naming) ?? (await this.#resolveId(params.name))
        const onProgress: ExecutionContextInit["onProgress"] =
          progressToken === undefined
            ? undefined
            : (raw) => {
                // Progress must only increase: a retried call starts counting again, so its progress is
                // continued from where the caller last was (and its total dropped) instead of going back.
                if (raw.progress < lastRaw) offset = lastSent
                lastRaw = raw.progress
                const progress = offset + raw.progress
                if (progress <= lastSent && lastSent !== Number.NEGATIVE_INFINITY) return
                lastSent = progress
                const p =
                  offset > 0
                    ? { progress, ...(raw.message !== undefined ? { message: raw.message } : {}) }
                    : raw
                extra
                  .sendNotification({
                    method: "notifications/progress",
                    params: {
                      progressToken,
                      progress: p.progress,
                      ...(p.total !== undefined ? { total: p.total } : {}),
                      ...(p.message !== undefined ? { message: p.message } : {}),
                    },
                  })
                  .catch(() => {})
              }
        const modern = (extra as OwnExtra)[MODERN_REQUEST]
        const floor =
          modern === undefined
            ? minLevel
            : modern.logLevel === undefined
              ? LEVELS.length
              : Math.max(0, LEVELS.indexOf(modern.logLevel))
        const onLog: ExecutionContextInit["onLog"] = ({ level, data, logger }) => {
          if (LEVELS.indexOf(level) < floor) return
          extra
            .sendNotification({
              method: "notifications/message",
              params: { level, data, ...(logger !== undefined ? { logger } : {}) },
            })
            .catch(() => {})
        }
        const client = modern === undefined ? clientRequests(server, extra) : modern.client
        const metadata = modern?.metadataFor?.(id)
        // The init and the request literal by literal (no spread of optional members): fewer objects per call.
        const context = this.#context(
          extra,
          metadata !== undefined
            ? { signal, onLog, client, metadata, ...(onProgress !== undefined ? { onProgress } : {}) }
            : onProgress !== undefined
              ? { signal, onProgress, onLog, client }
              : { signal, onLog, client },
        )
        const args = (params.arguments ?? {}) as Record<string, unknown>
        const result = await this.service.callTool(
          typeof cursor === "string"
            ? { name: id, arguments: args, cursor, context }
            : { name: id, arguments: args, context },
        )
        return ok(result)
      } catch (caught) {
        let error = caught
        if (isToolError(error) && error._tag === "ToolNotFound")
          error = await this.#notFoundFor(params.name, extra)
        if (!isToolError(error) && !isWireError(error)) options.onError?.(error)
        return failed(callFailureToMcp(error, exposeStacks))
      } finally {
        if (own !== undefined) this.#calls.delete(own)
        else tracked!.release()
      }
    }
    type CallParams = Parameters<typeof runCall>[0]
    const callTool = (params: CallParams, extra: Extra): Promise<CallToolResult> =>
      runCall(params, extra, toMcpResult, sameResult)
    on("tools/call", (request, extra) => callTool(request.params, extra))
    this.#direct.set(server, {
      "tools/call": callTool as DirectHandler,
      "tools/list": listTools as DirectHandler,
      callToolJson: (params, extra) => runCall(params as CallParams, extra, resultJson, JSON.stringify),
    })
    this.#capabilities.set(server, capabilities)
    const subscriber = randomUUID()
    if (catalog) this.#catalogHandlers(server, on, catalog, offered, subscriber, exposeStacks)
    own.set("ping", async () => ({}))
    this.#handlers.set(server, own)
    this.#servers.add(server)
    this.#subscribers.set(subscriber, server)
    const previous = server.onclose
    server.onclose = () => {
      this.#servers.delete(server)
      this.#subscribers.delete(subscriber)
      catalog?.unsubscribeAll(subscriber).catch(() => {})
      previous?.()
    }
    return server
  }
}

/**
 * A handle on an exposed service: send `notifications/tools/list_changed`, and stop serving.
 *
 * @since 0.1.0
 */
export interface McpServerHandle {
  /** Tells every connected client that the tool list changed. */
  notifyToolsChanged(): void
  /** How many clients are connected. */
  connections(): number
  /** Stops serving and closes every connection. Idempotent. */
  close(): Promise<void>
}

/**
 * An SDK `Server` answering `tools/list` and `tools/call` from `service`, for transports this plugin
 * does not wire itself: `await createMcpServer(service).connect(transport)`. Send list changes with
 * `server.sendToolListChanged()`.
 *
 * @since 0.1.0
 */
export const createMcpServer = (service: ToolService, options: McpServeOptions = {}): Server => {
  const exposure = new McpExposure(service, options)
  const server = exposure.createServer()
  // The exposure (and its `watch` subscription) lives as long as its one server.
  const previous = server.onclose
  server.onclose = () => {
    exposure.dispose()
    previous?.()
  }
  return server
}
