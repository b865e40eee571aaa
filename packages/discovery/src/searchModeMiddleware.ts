/**
 * Search mode: a tool-service middleware that shows a client three meta-tools instead of thousands of
 * tools, and still lets it reach every one of them:
 *
 * - `search_tools` finds tools (BM25F + example voting over the inner service's listing), a page at a
 *   time with signed cursors;
 * - `describe_tool` returns a tool's doc at a level of detail (summary, schema, full), size-capped;
 * - `call_tool` calls a tool by id with the caller's context and returns its result unchanged.
 *
 * The index is built from the inner service's full listing on first use (concurrent first calls share
 * one build) and refreshed incrementally (`ToolIndex.replaceSource`, only the differences are
 * re-indexed) when it is older than `refreshMs`.
 *
 * @since 0.1.0
 */
import {
  type CallToolRequest,
  ConfigError,
  type CursorCodec,
  compileJsonSchema,
  type ExecutionContext,
  type ExecutionContextInit,
  InvalidArguments,
  type JsonSchema,
  type ListToolsRequest,
  listAllTools,
  type Middleware,
  makeTool,
  paginateTools,
  structuredResult,
  suggestToolIds,
  type Tool,
  ToolNotFound,
  type ToolPage,
  type ToolResult,
  type ToolService,
  type Validator,
} from "@toolplane/foundation"
import { defaultSearchCodec } from "./internal/searchCursor.js"
import { Searcher } from "./searcher.js"
import type { SearcherOptions } from "./searcherOptions.js"
import { type DocCaps, type DocLevel, describeTool, summaryLine } from "./toolDocs.js"
import { ToolIndex } from "./toolIndex.js"

/**
 * Options of {@link searchMode}.
 *
 * @since 0.1.0
 */
export interface SearchModeOptions {
  /**
   * Signs listing cursors and `search_tools` cursors. Default: `searcher.codec`, else a random key made
   * once per process (cursors then do not survive a restart or cross replicas).
   */
  readonly codec?: CursorCodec
  /** Hits per `search_tools` page when the call gives no `limit`. Default 10. */
  readonly pageSize?: number
  /** Largest `limit` a `search_tools` call may ask for. Default 50 (at most 1000). */
  readonly maxResults?: number
  /** Options of the searcher (field weights, examples, ...). */
  readonly searcher?: SearcherOptions
  /** Namespace of the meta-tools: `${namespace}/search_tools` etc. Default `"toolplane"`. */
  readonly namespace?: string
  /** Re-list the inner service when the index is older than this. Default 5000 ms. */
  readonly refreshMs?: number
  /** Level `describe_tool` uses when the call gives none. Default `"schema"`. */
  readonly describeLevel?: DocLevel
  /** Size caps of `describe_tool` docs (see {@link describeTool}). */
  readonly docCaps?: DocCaps
  /** Clock, for tests. Default `Date.now`. */
  readonly now?: () => number
}

/**
 * Names of the three meta-tools (without namespace).
 *
 * @since 0.1.0
 */
export const SEARCH_MODE_TOOLS = ["search_tools", "describe_tool", "call_tool"] as const

/**
 * One hit of `search_tools`.
 *
 * @since 0.1.0
 */
export interface SearchToolsHit {
  readonly id: string
  /** One line: title (or name) and the first sentence of the description. */
  readonly summary: string
  readonly score: number
}

/**
 * The structured result of `search_tools`.
 *
 * @since 0.1.0
 */
export interface SearchToolsResult {
  readonly hits: readonly SearchToolsHit[]
  /** Matching tools over all pages. */
  readonly total: number
  /** Pass back as `cursor` (with the same query and filters) for the next page. */
  readonly nextCursor?: string
}

const DOC_LEVELS: readonly DocLevel[] = ["summary", "schema", "full"]
const stringOrList: JsonSchema = {
  anyOf: [
    { type: "string", minLength: 1 },
    { type: "array", items: { type: "string", minLength: 1 }, maxItems: 100 },
  ],
}

interface MetaTools {
  readonly search: Tool
  readonly describe: Tool
  readonly call: Tool
  readonly list: readonly Tool[]
}

const metaTools = (namespace: string, pageSize: number, maxResults: number, level: DocLevel): MetaTools => {
  const search = makeTool({
    namespace,
    name: "search_tools",
    title: "Search tools",
    description:
      "Find tools by what you want to do. Returns tool ids with a one-line summary, best first; pass nextCursor back (same query and filters) for more. Then use describe_tool for a tool's input schema and call_tool to run it.",
    inputSchema: {
      type: "object",
      properties: {
        query: {
          type: "string",
          maxLength: 2000,
          description: "What you want to do, in your own words (an empty query lists tools by id)",
        },
        namespace: { ...stringOrList, description: "Only tools of this namespace (or of one of these)" },
        tags: {
          type: "array",
          items: { type: "string", minLength: 1 },
          maxItems: 100,
          description: "Only tools carrying every one of these tags",
        },
        category: { ...stringOrList, description: "Only tools of this category (or of one of these)" },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: maxResults,
          default: pageSize,
          description: `Hits per page (default ${pageSize}, at most ${maxResults})`,
        },
        cursor: {
          type: "string",
          minLength: 1,
          description: "nextCursor of the previous page of the same search",
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        hits: {
          type: "array",
          items: {
            type: "object",
            properties: {
              id: { type: "string" },
              summary: { type: "string" },
              score: { type: "number" },
            },
            required: ["id", "summary", "score"],
          },
        },
        total: { type: "integer" },
        nextCursor: { type: "string" },
      },
      required: ["hits", "total"],
    },
    annotations: { title: "Search tools", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    tags: ["search-mode"],
  })
  const describe = makeTool({
    namespace,
    name: "describe_tool",
    title: "Describe a tool",
    description:
      'Show a tool found with search_tools: "summary" (one line), "schema" (description and input schema, what call_tool needs) or "full" (plus examples, notes, tags and output schema).',
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", minLength: 1, description: "Tool id, as returned by search_tools" },
        level: {
          type: "string",
          enum: [...DOC_LEVELS],
          default: level,
          description: `Level of detail (default "${level}")`,
        },
      },
      required: ["id"],
      additionalProperties: false,
    },
    annotations: { title: "Describe a tool", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    tags: ["search-mode"],
  })
  const call = makeTool({
    namespace,
    name: "call_tool",
    title: "Call a tool",
    description:
      "Run a tool found with search_tools, with arguments matching the input schema that describe_tool shows. Returns the tool's own result.",
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", minLength: 1, description: "Tool id, as returned by search_tools" },
        arguments: { type: "object", description: "The tool's arguments (default {})" },
      },
      required: ["id"],
      additionalProperties: false,
    },
    annotations: { title: "Call a tool", readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    tags: ["search-mode"],
  })
  const list = [search, describe, call].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return { search, describe, call, list }
}

const positiveInteger = (path: string, value: number | undefined, fallback: number, max: number): number => {
  const v = value ?? fallback
  if (!Number.isInteger(v) || v < 1 || v > max)
    throw new ConfigError({ path, reason: `must be an integer in [1, ${max}], got ${String(v)}` })
  return v
}

const callerOf = (context: ExecutionContext | ExecutionContextInit | undefined): string | undefined =>
  context?.callerId

/** The index source holding the inner service's tools. */
const SOURCE = "inner"

/**
 * Search mode as a tool-service middleware.
 *
 * The wrapped service **lists exactly three tools**, `${namespace}/search_tools`,
 * `${namespace}/describe_tool` and `${namespace}/call_tool` (one page; a listing cursor is still
 * verified and honoured). Their arguments are validated against their input schemas
 * (`InvalidArguments` with JSON pointers). `search_tools` cursors are bound to the query, the filters
 * and the caller (`context.callerId`).
 *
 * **Calling any other id directly passes through to the inner service**: search mode hides tools from
 * the listing, it does not fence them off, so a client that already knows an id (from an earlier
 * search, or from configuration) can skip the meta-tools. Put access control below this middleware.
 *
 * `describe_tool` and `call_tool` know the tools of the last listing; an id missing there fails with
 * `ToolNotFound` and the closest known ids as suggestions. `call_tool` passes the caller's context
 * (and a continuation `cursor` of a paginated tool) to the inner service and returns its result and
 * typed errors unchanged.
 *
 * The index is shared by all callers and built from the inner listing made without a caller context;
 * a failed re-listing keeps the previous index (and is retried after `refreshMs`), a failed first
 * listing fails the call.
 *
 * @example
 * ```ts
 * import { applyMiddleware } from "@toolplane/foundation"
 * import { searchMode } from "@toolplane/discovery"
 *
 * const service = applyMiddleware(runner, searchMode({ codec }))
 * const found = await service.callTool({ name: "toolplane/search_tools", arguments: { query: "open a bug" } })
 * ```
 * @since 0.1.0
 */
export const searchMode = (options: SearchModeOptions = {}): Middleware => {
  const namespace = options.namespace ?? "toolplane"
  const maxResults = positiveInteger("searchMode.maxResults", options.maxResults, 50, 1000)
  const pageSize = positiveInteger(
    "searchMode.pageSize",
    options.pageSize,
    Math.min(10, maxResults),
    maxResults,
  )
  const refreshMs = options.refreshMs ?? 5000
  if (typeof refreshMs !== "number" || !(refreshMs >= 0))
    throw new ConfigError({ path: "searchMode.refreshMs", reason: `must be a number >= 0, got ${refreshMs}` })
  const level = options.describeLevel ?? "schema"
  if (!DOC_LEVELS.includes(level))
    throw new ConfigError({
      path: "searchMode.describeLevel",
      reason: `must be one of ${DOC_LEVELS.join(", ")}`,
    })
  const codec = options.codec ?? options.searcher?.codec ?? defaultSearchCodec()
  const searcherOptions: SearcherOptions = { ...options.searcher, codec }
  const now = options.now ?? Date.now
  const docCaps = options.docCaps
  // fail on bad options now, not on the first call
  new Searcher(new ToolIndex(), searcherOptions).dispose()
  const meta = metaTools(namespace, pageSize, maxResults, level)
  describeTool(meta.search, level, docCaps)
  const validators = new Map<string, Validator>(
    meta.list.map((t) => [t.id, compileJsonSchema(t.inputSchema, t.id)]),
  )
  const listPurpose = `${namespace}/search-mode/tools/list`

  const validate = (toolId: string, args: unknown): Record<string, unknown> => {
    const result = validators.get(toolId)!.validate(args ?? {})
    if (result instanceof Promise || !result.ok)
      throw new InvalidArguments({ toolId, issues: "issues" in result ? result.issues : [] })
    return result.value as Record<string, unknown>
  }

  return (next: ToolService): ToolService => {
    const index = new ToolIndex<Tool>()
    let searcher: Searcher<Tool> | undefined
    let builtAt = Number.NEGATIVE_INFINITY
    let building: Promise<Searcher<Tool>> | undefined

    const rebuild = async (): Promise<Searcher<Tool>> => {
      try {
        const tools = await listAllTools(next)
        index.replaceSource(SOURCE, tools)
        searcher ??= new Searcher(index, searcherOptions)
      } catch (error) {
        if (searcher === undefined) throw error
        // keep serving the previous index; try again after refreshMs
      } finally {
        builtAt = now()
        building = undefined
      }
      return searcher
    }

    /** The searcher over a listing at most `refreshMs` old (one shared build at a time). */
    const fresh = (): Promise<Searcher<Tool>> | Searcher<Tool> => {
      if (searcher !== undefined && now() - builtAt < refreshMs) return searcher
      building ??= rebuild()
      return building
    }

    /** Unknown id: close ids of the same namespace first, then close ids anywhere. */
    const notFound = (id: string): ToolNotFound => {
      const slash = id.indexOf("/")
      const sameNamespace = slash > 0 ? index.list({ namespace: id.slice(0, slash) }).map((t) => t.id) : []
      const anywhere = suggestToolIds(
        id,
        index.list().map((t) => t.id),
      )
      const suggestions = [...new Set([...suggestToolIds(id, sameNamespace), ...anywhere])].slice(0, 3)
      return new ToolNotFound({ toolId: id, suggestions })
    }

    const searchTools = async (request: CallToolRequest): Promise<ToolResult> => {
      const args = validate(meta.search.id, request.arguments)
      const s = await fresh()
      const caller = callerOf(request.context)
      const result = s.search(args.query as string, {
        limit: (args.limit as number | undefined) ?? pageSize,
        ...(args.cursor !== undefined ? { cursor: args.cursor as string } : {}),
        ...(args.namespace !== undefined ? { namespace: args.namespace as string | string[] } : {}),
        ...(args.tags !== undefined ? { tags: args.tags as string[] } : {}),
        ...(args.category !== undefined ? { category: args.category as string | string[] } : {}),
        ...(caller !== undefined ? { caller } : {}),
      })
      const hits: SearchToolsHit[] = result.hits.map((h) => ({
        id: h.id,
        summary: summaryLine(index.get(h.id)!),
        score: Math.round(h.score * 10_000) / 10_000,
      }))
      const out: SearchToolsResult = {
        hits,
        total: result.total,
        ...(result.nextCursor !== undefined ? { nextCursor: result.nextCursor } : {}),
      }
      return structuredResult(out as unknown as Record<string, unknown>)
    }

    const describe = async (request: CallToolRequest): Promise<ToolResult> => {
      const args = validate(meta.describe.id, request.arguments)
      await fresh()
      const id = args.id as string
      const tool = index.get(id)
      if (tool === undefined) throw notFound(id)
      const doc = describeTool(tool, (args.level as DocLevel | undefined) ?? level, docCaps)
      return structuredResult(doc as unknown as Record<string, unknown>)
    }

    const call = async (request: CallToolRequest): Promise<ToolResult> => {
      const args = validate(meta.call.id, request.arguments)
      await fresh()
      const id = args.id as string
      if (!index.has(id)) throw notFound(id)
      return next.callTool({
        ...(request.id !== undefined ? { id: request.id } : {}),
        name: id,
        arguments: (args.arguments as Record<string, unknown> | undefined) ?? {},
        ...(request.cursor !== undefined ? { cursor: request.cursor } : {}),
        ...(request.context !== undefined ? { context: request.context } : {}),
      })
    }

    const handlers = new Map<string, (request: CallToolRequest) => Promise<ToolResult>>([
      [meta.search.id, searchTools],
      [meta.describe.id, describe],
      [meta.call.id, call],
    ])

    return {
      async listTools(request: ListToolsRequest = {}): Promise<ToolPage> {
        return paginateTools(meta.list, {
          codec,
          pageSize: 50,
          cursor: request.cursor,
          caller: callerOf(request.context),
          purpose: listPurpose,
        })
      },
      callTool(request: CallToolRequest): Promise<ToolResult> {
        const handler = handlers.get(request.name)
        return handler ? handler(request) : next.callTool(request)
      },
    }
  }
}
