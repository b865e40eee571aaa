/**
 * Exposes a {@link ToolService} (with all its middleware) as an MCP server, on the official SDK's
 * low-level `Server`: `tools/list` pages pass the service's signed cursors through unchanged,
 * `tools/call` carries structured content, progress, logging and cancellation, typed errors map to
 * JSON-RPC errors or `isError` results (see `errors.ts`), and `notifications/tools/list_changed` is
 * sent when the service's tools change.
 *
 * @since 0.1.0
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  type Implementation,
  ListToolsRequestSchema,
  type LoggingLevel,
  McpError,
  type ServerNotification,
  type ServerRequest,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js"
import {
  type ExecutionContext,
  type ExecutionContextInit,
  isToolError,
  listAllTools,
  makeContext,
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
import { callFailureToMcp, toolErrorToMcpError } from "../errors.js"

/**
 * Information about the MCP request a call came from, for mapping it to a context.
 *
 * @since 0.1.0
 */
export interface McpRequestInfo {
  readonly sessionId?: string
  /** The OAuth client id, when an auth middleware validated a token. */
  readonly clientId?: string
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

/** Sampling and elicitation requests back to the calling client, offered only when it declared them. */
const clientRequests = (server: Server, extra: Extra): ExecutionContextInit["client"] => {
  const capabilities = server.getClientCapabilities() ?? {}
  return {
    ...(capabilities.sampling
      ? {
          createMessage: async (params: Readonly<Record<string, unknown>>) =>
            extra.sendRequest(
              { method: "sampling/createMessage", params: params as never },
              CreateMessageResultSchema,
            ),
        }
      : {}),
    ...(capabilities.elicitation
      ? {
          elicitInput: async (params: Readonly<Record<string, unknown>>) =>
            extra.sendRequest({ method: "elicitation/create", params: params as never }, ElicitResultSchema),
        }
      : {}),
  }
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

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

const requestInfoOf = (extra: Extra): McpRequestInfo => ({
  requestId: extra.requestId,
  ...(extra.sessionId !== undefined ? { sessionId: extra.sessionId } : {}),
  ...(extra.authInfo?.clientId !== undefined ? { clientId: extra.authInfo.clientId } : {}),
  ...(extra.requestInfo?.headers ? { headers: extra.requestInfo.headers as McpRequestInfo["headers"] } : {}),
})

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
  #unwatch: (() => void) | undefined

  constructor(service: ToolService, options: McpServeOptions) {
    this.service = service
    this.options = options
    this.#unwatch = options.watch?.(() => this.notifyToolsChanged())
  }

  get servers(): ReadonlySet<Server> {
    return this.#servers
  }

  notifyToolsChanged(): void {
    this.#names = undefined
    for (const server of this.#servers) {
      server.sendToolListChanged().catch(() => {})
    }
  }

  dispose(): void {
    this.#unwatch?.()
    this.#unwatch = undefined
  }

  /** One controller per call in progress, so a shutdown can cancel them (cheaper than AbortSignal.any). */
  readonly #calls = new Set<AbortController>()

  /** Aborts every call in progress (they answer with `Cancelled`), for a server that is shutting down. */
  abortCalls(reason: string): void {
    for (const call of this.#calls) call.abort(new Error(reason))
  }

  /** A signal for one call that aborts with the request's own signal or on shutdown, and its release. */
  #callSignal(request: AbortSignal): { readonly signal: AbortSignal; readonly release: () => void } {
    const controller = new AbortController()
    const follow = () => controller.abort(request.reason)
    if (request.aborted) follow()
    else request.addEventListener("abort", follow, { once: true })
    this.#calls.add(controller)
    return {
      signal: controller.signal,
      release: () => {
        request.removeEventListener("abort", follow)
        this.#calls.delete(controller)
      },
    }
  }

  #context(extra: Extra, init: ExecutionContextInit): ExecutionContext {
    const info = requestInfoOf(extra)
    const custom = this.options.context?.(info) ?? {}
    return makeContext({
      ...(info.sessionId !== undefined ? { sessionId: info.sessionId } : {}),
      ...(info.clientId !== undefined ? { callerId: info.clientId } : {}),
      ...custom,
      ...init,
      metadata: { ...(custom.metadata ?? {}), ...(init.metadata ?? {}) },
      signal: custom.signal
        ? AbortSignal.any([custom.signal, init.signal ?? extra.signal])
        : (init.signal ?? extra.signal),
    })
  }

  async #resolveId(mcpName: string): Promise<string> {
    const naming = this.options.naming ?? "dotted"
    const direct = canonicalIdOf(mcpName, naming)
    if (direct !== undefined) return direct
    if (naming === "dotted" || naming === "id")
      throw toolErrorToMcpError(new ToolNotFound({ toolId: mcpName, suggestions: [] }))
    for (let round = 0; round < 2; round++) {
      this.#names ??= listAllTools(this.service).then(
        (tools) => new Map(tools.map((t) => [mcpToolName(t, naming), t.id])),
      )
      const names = this.#names
      const id = (await names.catch(() => new Map<string, string>())).get(mcpName)
      if (id !== undefined) return id
      if (this.#names === names) this.#names = undefined
    }
    throw toolErrorToMcpError(new ToolNotFound({ toolId: mcpName, suggestions: [] }))
  }

  /** A new SDK server (one per client connection) answering from the service. */
  createServer(): Server {
    const options = this.options
    const naming = options.naming ?? "dotted"
    const extensions = options.extensions ?? true
    const exposeStacks = options.exposeStacks ?? false
    const server = new Server(options.serverInfo ?? { name: "toolplane", version: "0.1.0" }, {
      capabilities: { tools: { listChanged: true }, logging: {} },
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    })
    let minLevel = 0
    server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      minLevel = Math.max(0, LEVELS.indexOf(request.params.level))
      return {}
    })
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      try {
        const cursor = request.params?.cursor
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
        throw new McpError(ErrorCode.InternalError, "Internal error")
      }
    })
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const params = request.params
      const meta = params._meta as Record<string, unknown> | undefined
      const progressToken = meta?.progressToken as string | number | undefined
      const cursor = meta?.[CURSOR_META_KEY]
      const tracked = this.#callSignal(extra.signal)
      try {
        const id = await this.#resolveId(params.name)
        const context = this.#context(extra, {
          signal: tracked.signal,
          ...(progressToken !== undefined
            ? {
                onProgress: (p) => {
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
                },
              }
            : {}),
          onLog: ({ level, data, logger }) => {
            if (LEVELS.indexOf(level) < minLevel) return
            extra
              .sendNotification({
                method: "notifications/message",
                params: { level, data, ...(logger !== undefined ? { logger } : {}) },
              })
              .catch(() => {})
          },
          client: clientRequests(server, extra),
        })
        const result = await this.service.callTool({
          name: id,
          arguments: (params.arguments ?? {}) as Record<string, unknown>,
          ...(typeof cursor === "string" ? { cursor } : {}),
          context,
        })
        return toMcpResult(result)
      } catch (error) {
        if (!isToolError(error) && !(error instanceof McpError)) options.onError?.(error)
        return callFailureToMcp(error, exposeStacks)
      } finally {
        tracked.release()
      }
    })
    this.#servers.add(server)
    const previous = server.onclose
    server.onclose = () => {
      this.#servers.delete(server)
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
