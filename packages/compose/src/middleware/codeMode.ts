/**
 * Code mode: instead of the tool list, a client sees one tool, `execute_code`, whose description is the
 * generated TypeScript declaration of the toolset below; the model writes one program that calls many
 * tools. For a toolset too large to declare within the cap, a `search` tool is listed too (and programs
 * have `tools.$search`). The executor is injected through foundation's `CodeExecutor` contract
 * (`codeExecutor` in `@toolplane/exec` over a sandbox such as `@toolplane/plugin-sandbox-quickjs`), so
 * compose does not depend on exec.
 *
 * Every call a program makes goes to the service below this layer (the gateway's filtered, aliased
 * toolset over the runner), so it is validated, approved, limited and retried like a direct call. Calls
 * to the underlying tools by name still pass through, as in search mode.
 *
 * @since 0.1.0
 */
import {
  type CodeExecutor,
  codeExecutionResult,
  type ExecutionContext,
  type ExecutionContextInit,
  InvalidArguments,
  listAllTools,
  type Middleware,
  makeTool,
  structuredResult,
  type Tool,
  type ToolsetDeclaration,
} from "@toolplane/foundation"
import type { ToolListChanges } from "../internal/listing.js"

/**
 * Options of {@link codeMode}.
 *
 * @since 0.1.0
 */
export interface CodeModeOptions {
  readonly executor: CodeExecutor
  /** Namespace of the code-mode tools: `${namespace}/execute_code`, `${namespace}/search`. Default `"toolplane"`. */
  readonly namespace?: string
  /** How long the listing and its declaration are reused. Default 5000 ms. */
  readonly listingTtlMs?: number
  /** Tool-list changes: the next request declares the new toolset at once. */
  readonly changes?: ToolListChanges
}

/**
 * Names of the code-mode tools (without namespace). `search` is listed only for large toolsets.
 *
 * @since 0.1.0
 */
export const CODE_MODE_TOOLS = ["execute_code", "search"] as const

const INTRO = [
  "Run a JavaScript program that calls the tools declared below and returns a JSON value.",
  "The code is the body of an async function: use `await` and `return`. Prefer one program that makes every call",
  "you need (loops, Promise.all, filtering) over many separate turns. The program runs in a sandbox: no network,",
  "files, timers or modules; only `tools` and `console`. You get back { result, logs }.",
].join(" ")

type Ctx = ExecutionContext | ExecutionContextInit | undefined

/** Callers whose views are kept at once (the oldest go first). */
const MAX_CACHED_CALLERS = 256

/**
 * The code-mode layer.
 *
 * @example
 * ```ts
 * import { codeExecutor } from "@toolplane/exec"
 * import { quickJsSandbox } from "@toolplane/plugin-sandbox-quickjs"
 * const service = applyMiddleware(runner, codeMode({ executor: codeExecutor({ sandbox: quickJsSandbox() }) }))
 * // service.listTools() -> [toolplane/execute_code]
 * await service.callTool({
 *   name: "toolplane/execute_code",
 *   arguments: { code: "return await tools.weather.forecast({ city: 'Oslo' })" },
 * })
 * ```
 *
 * @since 0.1.0
 */
export const codeMode =
  (options: CodeModeOptions): Middleware =>
  (next) => {
    const namespace = options.namespace ?? "toolplane"
    const ttl = options.listingTtlMs ?? 5000
    const executeId = `${namespace}/execute_code`
    const searchId = `${namespace}/search`
    type View = {
      at: number
      tools: readonly Tool[]
      declaration: ToolsetDeclaration
      listing: readonly Tool[]
    }
    // Per caller: what a caller may see (its grants) decides the declaration, so one caller's view is
    // never served to another.
    const cache = new Map<string, View>()
    options.changes?.(() => {
      cache.clear()
    })

    const view = async (context: Ctx) => {
      const caller = context?.callerId ?? ""
      const cached = cache.get(caller)
      if (cached && Date.now() - cached.at < ttl) return cached
      const tools = await listAllTools(next, context ? { context } : {})
      const declaration = options.executor.declare(tools)
      const listing: Tool[] = [
        makeTool({
          id: executeId,
          title: "Execute code",
          description: `${INTRO}\n\n${declaration.text}`,
          inputSchema: {
            type: "object",
            properties: {
              code: {
                type: "string",
                description:
                  "Body of an async JavaScript function, e.g. `const r = await tools.ns.tool({ a: 1 }); return r`",
              },
            },
            required: ["code"],
            additionalProperties: false,
          },
          annotations: { openWorldHint: true },
          // a long program may be answered with a task (MCP tasks extension) to a client that takes one
          metadata: { mcp: { execution: { taskSupport: "optional" } } },
        }),
      ]
      if (!declaration.complete)
        listing.push(
          makeTool({
            id: searchId,
            title: "Search the tool API",
            description:
              "Find tools for execute_code by what they do. Returns their TypeScript declarations and how to call them.",
            inputSchema: {
              type: "object",
              properties: {
                query: { type: "string", description: "What you want to do" },
                limit: { type: "integer", minimum: 1, maximum: 20, description: "Most results (default 5)" },
              },
              required: ["query"],
              additionalProperties: false,
            },
            annotations: { readOnlyHint: true },
          }),
        )
      const fresh = { at: Date.now(), tools, declaration, listing }
      cache.delete(caller)
      if (cache.size >= MAX_CACHED_CALLERS)
        for (const [key, entry] of cache)
          if (cache.size >= MAX_CACHED_CALLERS || Date.now() - entry.at >= ttl) cache.delete(key)
      cache.set(caller, fresh)
      return fresh
    }

    return {
      listTools: async (request = {}) => ({ tools: (await view(request.context)).listing }),
      callTool: async (request) => {
        if (request.name === executeId) {
          const code = request.arguments?.code
          if (typeof code !== "string")
            throw new InvalidArguments({
              toolId: executeId,
              issues: [{ path: "/code", rule: "type", message: "must be a string holding the program" }],
            })
          const execution = await options.executor.execute(code, {
            tools: next,
            ...(request.context ? { context: request.context } : {}),
          })
          return codeExecutionResult(execution)
        }
        if (request.name === searchId) {
          const query = request.arguments?.query
          const limit = request.arguments?.limit
          if (typeof query !== "string")
            throw new InvalidArguments({
              toolId: searchId,
              issues: [{ path: "/query", rule: "type", message: "must be a string" }],
            })
          const { tools } = await view(request.context)
          const hits = options.executor.search(tools, query, typeof limit === "number" ? limit : 5)
          return structuredResult({
            tools: hits.map((hit) => ({ id: hit.id, call: hit.call, declaration: hit.declaration })),
          })
        }
        return next.callTool(request)
      },
    }
  }
