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
 * re-indexed) when it is older than `refreshMs` or after a change of the inner tool list. Each caller
 * finds, describes and calls only the tools it may see (see {@link SearchModeOptions.visibility}).
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
  type ListToolsRequest,
  listAllTools,
  type Middleware,
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
import type { IntentStore } from "./intentStore.js"
import { IntentLearner } from "./internal/intentLearner.js"
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
  /**
   * Which tools a caller finds (and may describe and call through the meta-tools):
   *
   * - `"listing"` (default): the tools of the inner service's listing made with the caller's context
   *   (`context.callerId`), so capability filters and auth scopes below search mode apply to search
   *   results, totals and cursors; each caller's listing is cached for `refreshMs`;
   * - `"shared"`: every caller sees the listing made without a caller context;
   * - a function: `(tool, context) => boolean` over the shared listing.
   *
   * @since 0.1.0
   */
  readonly visibility?: "listing" | "shared" | SearchVisibility
  /**
   * Changes of the inner tool list (e.g. a gateway's `notifications/tools/list_changed`): after one,
   * the next call re-lists the inner service and updates the index incrementally (only the tools that
   * changed are re-indexed). Search mode applied again to the same inner service (as `gatewayStack`
   * does after each change) does the same: it keeps its index.
   *
   * @since 0.1.0
   */
  readonly changes?: (listener: () => void) => () => void
  /**
   * Learning from use (off by default): a `search_tools` query followed by a successful `call_tool` of
   * one of its hits, by the same caller within `windowMs`, becomes an intent example of that tool,
   * so that a deployment's search improves with use.
   *
   * @since 0.1.0
   */
  readonly learn?: LearnOptions
}

/**
 * Which tools a caller may find in search mode: `true` to show `tool` to the caller of `context`.
 *
 * @since 0.1.0
 */
export type SearchVisibility = (
  tool: Tool,
  context: ExecutionContext | ExecutionContextInit | undefined,
) => boolean

/**
 * Options of learning intent examples from use (see {@link SearchModeOptions.learn}).
 *
 * @since 0.1.0
 */
export interface LearnOptions {
  /** Where learned examples are kept (e.g. {@link fileIntentStore}). */
  readonly store: IntentStore
  /** Learned examples kept per tool (the oldest goes first). Default 20. */
  readonly maxPerTool?: number
  /** Longest time between the search and the call. Default 600000 ms (10 minutes). */
  readonly windowMs?: number
  /** Longest query learned, in characters. Default 500. */
  readonly maxQueryLength?: number
  /** Told about a failed load or save (default: ignored; the example stays in memory). */
  readonly onError?: (error: unknown) => void
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

import { DOC_LEVELS, metaTools } from "./internal/metaTools.js"

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

  const visibility = options.visibility ?? "listing"
  if (visibility !== "listing" && visibility !== "shared" && typeof visibility !== "function")
    throw new ConfigError({
      path: "searchMode.visibility",
      reason: `must be "listing", "shared" or a function, got ${String(visibility)}`,
    })
  if (options.changes !== undefined && typeof options.changes !== "function")
    throw new ConfigError({ path: "searchMode.changes", reason: "must be a function" })
  const learn = options.learn
  if (learn !== undefined) {
    if (typeof learn.store?.load !== "function" || typeof learn.store?.save !== "function")
      throw new ConfigError({ path: "searchMode.learn.store", reason: "must have load() and save() methods" })
    positiveInteger("searchMode.learn.maxPerTool", learn.maxPerTool, 20, 10_000)
    positiveInteger("searchMode.learn.windowMs", learn.windowMs, 600_000, 2 ** 31)
    positiveInteger("searchMode.learn.maxQueryLength", learn.maxQueryLength, 500, 100_000)
  }

  /** One state per inner service: applying the mode again to the same service keeps its index. */
  const states = new WeakMap<ToolService, State>()

  return (next: ToolService): ToolService => {
    let state = states.get(next)
    if (state === undefined) {
      state = makeState(next)
      states.set(next, state)
    } else state.invalidate()
    return state.service
  }

  function makeState(next: ToolService): State {
    const index = new ToolIndex<Tool>()
    let searcher: Searcher<Tool> | undefined
    let builtAt = Number.NEGATIVE_INFINITY
    let building: Promise<Searcher<Tool>> | undefined
    /** The inner tools as listed (without learned intents). */
    let base = new Map<string, Tool>()
    /** Per caller: the ids of its listing, and the tools only it sees. */
    const callers = new Map<string, { ids: Set<string>; tools: Tool[]; at: number }>()
    const callerListings = new Map<string, Promise<Set<string>>>()

    const learner =
      learn === undefined
        ? undefined
        : new IntentLearner(
            learn.store,
            learn.maxPerTool ?? 20,
            learn.windowMs ?? 600_000,
            learn.maxQueryLength ?? 500,
            now,
            (id) => {
              const tool = base.get(id)
              if (tool !== undefined) index.register(withLearned(tool))
            },
            learn.onError ?? (() => {}),
          )

    const withLearned = (tool: Tool): Tool => {
      const learned = learner?.intentsOf(tool.id)
      if (learned === undefined || learned.length === 0) return tool
      return { ...tool, intents: [...(tool.intents ?? []), ...learned] }
    }

    /** Registers tools seen by a caller but absent from the shared listing. */
    const registerExtra = (tools: readonly Tool[]): void => {
      for (const t of tools)
        if (!base.has(t.id)) {
          base.set(t.id, t)
          index.register(withLearned(t), { source: SOURCE })
        }
    }

    const rebuild = async (): Promise<Searcher<Tool>> => {
      try {
        if (learner !== undefined)
          await learner.ready().catch((error: unknown) => {
            learn?.onError?.(error)
          })
        const tools = await listAllTools(next)
        const all = new Map<string, Tool>(tools.map((t) => [t.id, t]))
        const fresh = now()
        for (const c of callers.values())
          if (fresh - c.at < refreshMs) for (const t of c.tools) if (!all.has(t.id)) all.set(t.id, t)
        base = all
        index.replaceSource(SOURCE, [...all.values()].map(withLearned))
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

    /** The ids a caller may see (`undefined`: every tool). */
    const visibleIds = async (
      context: ExecutionContext | ExecutionContextInit | undefined,
    ): Promise<((id: string) => boolean) | undefined> => {
      if (visibility === "shared") return undefined
      if (typeof visibility === "function")
        return (id) => {
          const tool = base.get(id)
          return tool !== undefined && visibility(tool, context)
        }
      const caller = callerOf(context)
      if (caller === undefined) return undefined
      const cached = callers.get(caller)
      if (cached !== undefined && now() - cached.at < refreshMs) return (id) => cached.ids.has(id)
      let pending = callerListings.get(caller)
      if (pending === undefined) {
        pending = listAllTools(next, context !== undefined ? { context } : {})
          .then((tools) => {
            const ids = new Set(tools.map((t) => t.id))
            const extra = tools.filter((t) => !base.has(t.id))
            callers.delete(caller)
            callers.set(caller, { ids, tools: extra, at: now() })
            if (callers.size > 10_000) callers.delete(callers.keys().next().value!)
            registerExtra(extra)
            return ids
          })
          .finally(() => callerListings.delete(caller))
        callerListings.set(caller, pending)
      }
      const ids = await pending
      return (id) => ids.has(id)
    }

    /** Unknown id: close ids of the same namespace first, then close ids anywhere (visible ones only). */
    const notFound = (id: string, visible: ((id: string) => boolean) | undefined): ToolNotFound => {
      const known = index
        .list()
        .map((t) => t.id)
        .filter((x) => visible === undefined || visible(x))
      const slash = id.indexOf("/")
      const prefix = slash > 0 ? id.slice(0, slash + 1) : undefined
      const sameNamespace = prefix !== undefined ? known.filter((x) => x.startsWith(prefix)) : []
      const suggestions = [
        ...new Set([...suggestToolIds(id, sameNamespace), ...suggestToolIds(id, known)]),
      ].slice(0, 3)
      return new ToolNotFound({ toolId: id, suggestions })
    }

    const searchTools = async (request: CallToolRequest): Promise<ToolResult> => {
      const args = validate(meta.search.id, request.arguments)
      const s = await fresh()
      const visible = await visibleIds(request.context)
      const caller = callerOf(request.context)
      const result = s.search(args.query as string, {
        limit: (args.limit as number | undefined) ?? pageSize,
        ...(args.cursor !== undefined ? { cursor: args.cursor as string } : {}),
        ...(args.namespace !== undefined ? { namespace: args.namespace as string | string[] } : {}),
        ...(args.tags !== undefined ? { tags: args.tags as string[] } : {}),
        ...(args.category !== undefined ? { category: args.category as string | string[] } : {}),
        ...(caller !== undefined ? { caller } : {}),
        ...(visible !== undefined ? { visible } : {}),
      })
      const hits: SearchToolsHit[] = result.hits.map((h) => ({
        id: h.id,
        summary: summaryLine(index.get(h.id)!),
        score: Math.round(h.score * 10_000) / 10_000,
      }))
      learner?.searched(
        caller ?? "",
        args.query as string,
        hits.map((h) => h.id),
      )
      const out: SearchToolsResult = {
        hits,
        total: result.total,
        ...(result.nextCursor !== undefined ? { nextCursor: result.nextCursor } : {}),
      }
      return structuredResult(out as unknown as Record<string, unknown>)
    }

    /** The tool of a `describe_tool`/`call_tool` id, when it exists and the caller may see it. */
    const visibleTool = async (id: string, context: CallToolRequest["context"]): Promise<Tool> => {
      await fresh()
      const visible = await visibleIds(context)
      const tool = index.get(id)
      if (tool === undefined || (visible !== undefined && !visible(id))) throw notFound(id, visible)
      return tool
    }

    const describe = async (request: CallToolRequest): Promise<ToolResult> => {
      const args = validate(meta.describe.id, request.arguments)
      const tool = await visibleTool(args.id as string, request.context)
      // Learned examples rank tools but are never shown: they are other callers' queries (a token would
      // read what another searched, or plant text in the docs another caller's model reads).
      const doc = describeTool(
        base.get(tool.id) ?? tool,
        (args.level as DocLevel | undefined) ?? level,
        docCaps,
      )
      return structuredResult(doc as unknown as Record<string, unknown>)
    }

    const call = async (request: CallToolRequest): Promise<ToolResult> => {
      const args = validate(meta.call.id, request.arguments)
      const id = args.id as string
      await visibleTool(id, request.context)
      const result = await next.callTool({
        ...(request.id !== undefined ? { id: request.id } : {}),
        name: id,
        arguments: (args.arguments as Record<string, unknown> | undefined) ?? {},
        ...(request.cursor !== undefined ? { cursor: request.cursor } : {}),
        ...(request.context !== undefined ? { context: request.context } : {}),
      })
      if (learner !== undefined && result.isError !== true)
        learner.called(callerOf(request.context) ?? "", id)
      return result
    }

    const handlers = new Map<string, (request: CallToolRequest) => Promise<ToolResult>>([
      [meta.search.id, searchTools],
      [meta.describe.id, describe],
      [meta.call.id, call],
    ])

    const invalidate = (): void => {
      builtAt = Number.NEGATIVE_INFINITY
      callers.clear()
    }
    options.changes?.(invalidate)

    return {
      invalidate,
      service: {
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
      },
    }
  }
}

interface State {
  /** The next call re-lists the inner service (the index is updated, not rebuilt). */
  readonly invalidate: () => void
  readonly service: ToolService
}
