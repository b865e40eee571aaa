/**
 * The code executor: runs a model-written program in a {@link Sandbox} with a toolset exposed as async
 * functions (`await tools.github.search_issues({ q })`). Every call goes to the given tool service (a
 * runner, or a gateway stack over one), so it passes the same pipeline as a direct call: validation,
 * enrichers, approval, limits, deadline, retries. A call that needs approval goes to the approver; a
 * denial reaches the program as a catchable error with code `APPROVAL_DENIED`, never a silent drop.
 *
 * @since 0.1.0
 */
import { Searcher, ToolIndex } from "@toolplane/discovery"
import {
  type CodeExecution,
  type CodeExecutor,
  type ContentBlock,
  type ExecutionContext,
  type ExecutionContextInit,
  ExecutionFailed,
  listAllTools,
  type Tool,
  type ToolResult,
  toContext,
  toolErrorFromJson,
} from "@toolplane/foundation"
import { markInterruptOnly } from "../pipeline/abort.js"
import { HostFunctionError, type Sandbox, type SandboxLimits } from "../sandbox/sandbox.js"
import { callPath, declareToolset, toolDeclaration } from "./declaration.js"

/**
 * Options of {@link codeExecutor}.
 *
 * @since 0.1.0
 */
export interface CodeExecutorOptions {
  readonly sandbox: Sandbox
  /** Limits of every program (wall time, memory, output, number of tool calls). */
  readonly limits?: SandboxLimits
  /** Size cap of the generated declaration, in characters. Default 16 000. */
  readonly maxDeclarationChars?: number
  /**
   * Which tools need approval: the declaration (and `$search` results) mark them with `@needsApproval`,
   * so the model knows a call may wait or be denied. Calls go through the approver either way.
   */
  readonly needsApproval?: (tool: Tool) => boolean
}

/**
 * The guest-side `tools` object: `tools.<namespace>.<name>(args)` calls `__tool(id, args)`; `$search`
 * calls `__search`. `tools` and each namespace are plain objects whose prototype is a proxy: the first
 * access of a name reaches the proxy, which defines the namespace or tool function as an own property,
 * so later accesses (a loop of calls) find it without a proxy trap or a lookup. Kept on the program's
 * first line so the program's own line numbers are unchanged.
 */
const TOOLS_PRELUDE =
  "const tools = (() => { const call = __tool, find = __search, P = Proxy, make = Object.create, define = Object.defineProperty; " +
  "const lazy = (of) => make(new P(make(null), { get: (_, name, self) => { if (typeof name !== 'string' || name === 'then') return undefined; const v = of(name); try { define(self, name, { value: v, enumerable: true, configurable: true }) } catch {} return v } })); " +
  "const t = lazy((n) => lazy((name) => { const id = n + '/' + name; return (args) => call(id, args === undefined ? {} : args) })); " +
  "define(t, '$search', { value: (query, limit) => find(query, limit), enumerable: true }); return t })();"

/** What a program receives from a tool call: structured content, else the text (non-text blocks named). */
export const callValue = (result: ToolResult): unknown => {
  if (result.structuredContent !== undefined) return result.structuredContent
  return result.content
    .map((block: ContentBlock) =>
      block.type === "text"
        ? block.text
        : `[${block.type}${"mimeType" in block ? ` ${String(block.mimeType)}` : ""}]`,
    )
    .join("\n")
}

/**
 * The signal of a run's tool calls: one controller per run, aborted when the run's host signal aborts
 * (the run ended: finished, timed out, hit a limit or was cancelled through the caller's signal, which
 * the run gets). Linked once per run instead of `AbortSignal.any` per call.
 */
const runCallSignal = (hostSignal: AbortSignal): { signal: AbortSignal; unlink: () => void } => {
  const controller = new AbortController()
  // Interrupt-only: it aborts when the run ends, and once the run has ended nobody waits for a host
  // function's answer, so the runner needs no per-call abort scope for these calls.
  markInterruptOnly(controller.signal)
  if (hostSignal.aborted) {
    controller.abort(hostSignal.reason)
    return { signal: controller.signal, unlink: () => {} }
  }
  const onAbort = () => controller.abort(hostSignal.reason)
  hostSignal.addEventListener("abort", onAbort, { once: true })
  return {
    signal: controller.signal,
    unlink: () => {
      hostSignal.removeEventListener("abort", onAbort)
      // The run is over: calls still in flight are abandoned, so their backends stop too.
      controller.abort(hostSignal.reason)
    },
  }
}

/**
 * Whose program it is, for the sandbox's per-caller caps and turns: the authenticated caller, else the
 * session (a client without authentication can open several), else none (one client, e.g. stdio).
 */
const fairnessKey = (ctx: ExecutionContext): string | undefined =>
  ctx.callerId !== undefined
    ? `caller:${ctx.callerId}`
    : ctx.sessionId !== undefined
      ? `session:${ctx.sessionId}`
      : undefined

/** The `_meta` key under which a Toolplane server puts the typed error of an `isError` result. */
const TOOL_ERROR_META_KEY = "toolplane.dev/error"

/**
 * What a program's failed call rejects with for an `isError` result: the typed error the result carries
 * (rebuilt when this process knows its tag, else its JSON as is, so its `code` survives), otherwise
 * `ExecutionFailed` with the result's text.
 */
const reportedFailure = (id: string, result: ToolResult): Error => {
  const carried = result._meta?.[TOOL_ERROR_META_KEY]
  const rebuilt = toolErrorFromJson(carried)
  if (rebuilt !== undefined) return rebuilt
  if (typeof carried === "object" && carried !== null && !Array.isArray(carried)) {
    const json = carried as Record<string, unknown>
    if (typeof json._tag === "string" && typeof json.code === "string" && typeof json.message === "string")
      return new HostFunctionError(json)
  }
  return new ExecutionFailed({
    toolId: id,
    cause: { name: "ToolError", message: textOf(result) || "the tool reported an error" },
    retryable: false,
  })
}

const textOf = (result: ToolResult): string =>
  result.content
    .map((b: ContentBlock) => (b.type === "text" ? b.text : ""))
    .join("\n")
    .trim()

/**
 * Creates a code executor over a sandbox.
 *
 * @example
 * ```ts
 * const executor = codeExecutor({ sandbox: quickJsSandbox() })
 * const run = await executor.execute(
 *   "const hits = await tools.github.search_issues({ q: 'crash' }); return hits.length",
 *   { tools: runner },
 * )
 * ```
 *
 * @since 0.1.0
 */
export const codeExecutor = (options: CodeExecutorOptions): CodeExecutor => {
  const { sandbox } = options
  const maxChars = options.maxDeclarationChars ?? 16_000
  const needsApproval = options.needsApproval ?? (() => false)
  const declarationOf = (tool: Tool) => toolDeclaration(tool, { needsApproval: needsApproval(tool) })
  let searcher: { tools: readonly Tool[]; searcher: Searcher } | undefined
  const searchIn = (tools: readonly Tool[], query: string, limit = 5) => {
    if (searcher?.tools !== tools) searcher = { tools, searcher: new Searcher(new ToolIndex(tools)) }
    const byId = new Map(tools.map((t) => [t.id, t]))
    return searcher.searcher
      .search(query, { limit: Math.max(1, Math.min(20, limit)) })
      .hits.map((hit) => byId.get(hit.id))
      .filter((t): t is Tool => t !== undefined)
  }

  return {
    declare: (tools) => declareToolset(tools, { maxChars, needsApproval }),
    search: (tools, query, limit) =>
      searchIn(tools, query, limit).map((tool) => ({
        id: tool.id,
        call: callPath(tool),
        declaration: declarationOf(tool),
      })),
    execute: async (code, { tools: service, context }): Promise<CodeExecution> => {
      const ctx: ExecutionContext = toContext(context)
      // Each tool call gets its own call id; everything else comes from the program's caller.
      const init: ExecutionContextInit = {
        ...(ctx.callerId !== undefined ? { callerId: ctx.callerId } : {}),
        ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
        ...(ctx.deadline !== undefined ? { deadline: ctx.deadline } : {}),
        signal: ctx.signal,
        onProgress: ctx.reportProgress,
        onLog: ctx.log,
        client: ctx.client,
        metadata: ctx.metadata,
      }
      const caller = fairnessKey(ctx)
      let listing: Promise<readonly Tool[]> | undefined
      const listed = () => {
        listing ??= listAllTools(service, { context: ctx })
        return listing
      }
      let toolCalls = 0
      // The calls' context, made once per run (each call still gets its own call id). The run's host
      // signal aborts when the caller's does (the sandbox gets the caller's signal) and when the run
      // ends; the calls get one marked signal linked to it (see runCallSignal).
      let hostSignal: AbortSignal | undefined
      let linked: { signal: AbortSignal; unlink: () => void } | undefined
      let callInit: ExecutionContextInit = init
      const contextFor = (signal: AbortSignal): ExecutionContextInit => {
        if (hostSignal === undefined) {
          hostSignal = signal
          linked = runCallSignal(signal)
          callInit = { ...init, signal: linked.signal }
        }
        // A sandbox that gives each call its own signal: combine per call, as a fallback.
        if (signal !== hostSignal) return { ...init, signal: AbortSignal.any([ctx.signal, signal]) }
        return callInit
      }
      try {
        const run = await sandbox.run({
          code: TOOLS_PRELUDE + code,
          limits: {
            ...options.limits,
            ...(ctx.deadline !== undefined
              ? {
                  wallTimeMs: Math.max(
                    1,
                    Math.min(options.limits?.wallTimeMs ?? Infinity, ctx.deadline - Date.now()),
                  ),
                }
              : {}),
          },
          signal: ctx.signal,
          ...(caller !== undefined ? { caller } : {}),
          functions: {
            __tool: async ([id, args], { signal }) => {
              toolCalls++
              if (typeof id !== "string")
                throw new ExecutionFailed({
                  toolId: String(id),
                  cause: { name: "TypeError", message: "tool id must be a string" },
                  retryable: false,
                })
              const result = await service.callTool({
                name: id,
                arguments: (args ?? {}) as Record<string, unknown>,
                context: contextFor(signal),
              })
              if (result.isError) throw reportedFailure(id, result)
              return callValue(result)
            },
            __search: async ([query, limit]) => {
              const all = await listed()
              return searchIn(all, String(query), typeof limit === "number" ? limit : 5).map((tool) => ({
                id: tool.id,
                call: callPath(tool),
                declaration: declarationOf(tool),
              }))
            },
          },
        })
        return { result: run.result, logs: run.logs, toolCalls, durationMs: run.durationMs }
      } finally {
        linked?.unlink()
      }
    },
  }
}
