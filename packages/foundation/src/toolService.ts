/**
 * The one abstraction everything passes through. A tool service answers two requests, list tools (one
 * page at a time, with a signed cursor) and call tool; a middleware maps a tool service to a tool
 * service. The runner over registered backends is the innermost service; filters, aliases, search mode
 * and composite tools are middleware; MCP servers, OpenAI loops and the CLI are places a service is
 * exposed.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { CursorCodec } from "./cursor.js"
import type { ExecutionContext, ExecutionContextInit } from "./executionContext.js"
import { fromContextual, runTyped } from "./internal/effectBridge.js"
import type { Tool } from "./tool.js"
import type { ToolCall } from "./toolCall.js"
import { InvalidCursor, type ToolError, toToolError } from "./toolError.js"
import type { ToolResult } from "./toolResult.js"

/**
 * A request for one page of tools.
 *
 * @since 0.1.0
 */
export interface ListToolsRequest {
  readonly cursor?: string
  readonly context?: ExecutionContext | ExecutionContextInit
}

/**
 * One page of tools, sorted by id, and the cursor of the next page when there is one.
 *
 * @since 0.1.0
 */
export interface ToolPage {
  readonly tools: readonly Tool[]
  readonly nextCursor?: string
}

/**
 * A call request: the call and the context to run it in.
 *
 * @since 0.1.0
 */
export interface CallToolRequest extends ToolCall {
  readonly context?: ExecutionContext | ExecutionContextInit
}

/**
 * A tool service. `callTool` resolves with a result (possibly `isError: true`, a failure the model
 * should read) and rejects only with a {@link ToolError}.
 *
 * @since 0.1.0
 */
export interface ToolService {
  listTools(request?: ListToolsRequest): Promise<ToolPage>
  callTool(request: CallToolRequest): Promise<ToolResult>
}

/**
 * A function from tool service to tool service.
 *
 * @since 0.1.0
 */
export type Middleware = (next: ToolService) => ToolService

/**
 * Wraps `service` in middleware, innermost first: `applyMiddleware(runner, a, b)` is `b(a(runner))`, so
 * a request meets `b` first.
 *
 * @since 0.1.0
 */
export const applyMiddleware = (service: ToolService, ...middleware: readonly Middleware[]): ToolService =>
  middleware.reduce<ToolService>((inner, mw) => mw(inner), service)

/**
 * Builds a middleware from the two handlers it overrides; a missing handler passes the request on.
 *
 * @example
 * ```ts
 * const logging = defineMiddleware({
 *   callTool: async (request, next) => {
 *     console.log("calling", request.name)
 *     return next.callTool(request)
 *   },
 * })
 * ```
 * @since 0.1.0
 */
export const defineMiddleware =
  (handlers: {
    readonly listTools?: (request: ListToolsRequest, next: ToolService) => Promise<ToolPage>
    readonly callTool?: (request: CallToolRequest, next: ToolService) => Promise<ToolResult>
  }): Middleware =>
  (next) => ({
    listTools: handlers.listTools
      ? (request = {}) => handlers.listTools!(request, next)
      : (request) => next.listTools(request),
    callTool: handlers.callTool
      ? (request) => handlers.callTool!(request, next)
      : (request) => next.callTool(request),
  })

/**
 * Follows cursors until the last page and returns every tool. Fails with {@link InvalidCursor} when the
 * service keeps returning cursors past `maxPages` (a loop).
 *
 * @since 0.1.0
 */
export const listAllTools = async (
  service: ToolService,
  options: { readonly maxPages?: number; readonly context?: ExecutionContext | ExecutionContextInit } = {},
): Promise<Tool[]> => {
  const maxPages = options.maxPages ?? 10_000
  const tools: Tool[] = []
  let cursor: string | undefined
  for (let pageNo = 0; pageNo < maxPages; pageNo++) {
    const page = await service.listTools({
      ...(cursor !== undefined ? { cursor } : {}),
      ...(options.context ? { context: options.context } : {}),
    })
    tools.push(...page.tools)
    if (page.nextCursor === undefined) return tools
    if (page.nextCursor === cursor)
      throw new InvalidCursor({ reason: "service returned the same cursor twice" })
    cursor = page.nextCursor
  }
  throw new InvalidCursor({ reason: `listing did not finish within ${maxPages} pages` })
}

/**
 * Options of {@link paginateTools}.
 *
 * @since 0.1.0
 */
export interface PaginateOptions {
  readonly codec: CursorCodec
  readonly pageSize: number
  readonly cursor?: string | undefined
  readonly caller?: string | undefined
  /** Binds cursors to one listing (e.g. a filter's identity) so they cannot be replayed elsewhere. */
  readonly purpose?: string
}

/**
 * Cuts one page out of a list of tools sorted by id. Cursors record the last id served (keyset
 * pagination), so tools added or removed between pages neither repeat nor shift the rest.
 *
 * @since 0.1.0
 */
export const paginateTools = (sorted: readonly Tool[], options: PaginateOptions): ToolPage => {
  const binding = {
    purpose: options.purpose ?? "tools/list",
    ...(options.caller !== undefined ? { caller: options.caller } : {}),
  }
  let start = 0
  if (options.cursor !== undefined) {
    const claims = options.codec.decode(options.cursor, binding)
    const after = claims.position
    if (typeof after !== "string") throw new InvalidCursor({ reason: "listing cursor has no position" })
    let lo = 0
    let hi = sorted.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (sorted[mid]!.id <= after) lo = mid + 1
      else hi = mid
    }
    start = lo
  }
  const end = Math.min(sorted.length, start + Math.max(1, options.pageSize))
  const tools = sorted.slice(start, end)
  if (end >= sorted.length) return { tools }
  return { tools, nextCursor: options.codec.encode(binding, tools[tools.length - 1]!.id) }
}

/**
 * The tool service, Effect form, and its Context tag (`const tools = yield* EffectToolService`).
 *
 * @since 0.1.0
 */
export interface EffectToolService {
  listTools(request?: ListToolsRequest): Effect.Effect<ToolPage, ToolError>
  callTool(request: CallToolRequest): Effect.Effect<ToolResult, ToolError>
}

/**
 * The {@link EffectToolService} tag. `@toolplane/exec`'s runner Layer provides it; so does
 * {@link toolServiceLayer} for any plain service (a middleware stack, a gateway).
 *
 * @since 0.1.0
 */
export const EffectToolService: Context.Service<EffectToolService, EffectToolService> =
  Context.Service<EffectToolService>("@toolplane/foundation/EffectToolService")

/**
 * Views a plain tool service as an {@link EffectToolService}; interrupting a call aborts its signal.
 *
 * @since 0.1.0
 */
export const toolServiceToEffect = (service: ToolService): EffectToolService => ({
  listTools: (request = {}) =>
    Effect.tryPromise({
      try: () => service.listTools(request),
      catch: (error) => toToolError(error, "(list)"),
    }),
  callTool: (request) =>
    fromContextual(
      (context) => service.callTool({ ...request, context }),
      request.context,
      (error) => toToolError(error, request.name),
    ),
})

/**
 * Views an {@link EffectToolService} as a plain tool service.
 *
 * @since 0.1.0
 */
export const toolServiceFromEffect = (service: EffectToolService): ToolService => ({
  listTools: (request) => runTyped(service.listTools(request), "(list)", undefined),
  callTool: (request) => runTyped(service.callTool(request), request.name, request.context?.signal),
})

/**
 * A Layer providing {@link EffectToolService} from a plain tool service.
 *
 * @since 0.1.0
 */
export const toolServiceLayer = (service: ToolService): Layer.Layer<EffectToolService> =>
  Layer.succeed(EffectToolService, toolServiceToEffect(service))
