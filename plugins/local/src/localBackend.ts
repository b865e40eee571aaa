/**
 * The in-process backend: serves tools made with `defineTool` (handlers sync, async or Effect). Its
 * `toolSchemas()` returns the definitions themselves, so a runner validates with each tool's own
 * validator (zod keeps its defaults and transforms) and passes `validated: true`; `execute` then skips
 * validation and runs the handler. Cancellation aborts the handler's `ctx.signal` (and interrupts an
 * Effect handler).
 *
 * @since 0.1.0
 */
import {
  type Backend,
  type BackendListener,
  type BackendMetadata,
  type BackendResult,
  BackendUnavailable,
  Cancelled,
  InvalidTool,
  isToolDefinition,
  isToolError,
  runDefinition,
  suggestToolIds,
  type Tool,
  ToolConflict,
  type ToolDefinition,
  type ToolError,
  ToolNotFound,
} from "@toolplane/foundation"
import { type ApprovalPolicy, needsApproval } from "./approval.js"

/**
 * Options of {@link localBackend}.
 *
 * @since 0.1.0
 */
export interface LocalBackendOptions {
  /**
   * Backend name, unique within a runner. Default: the tools' namespaces, sorted and joined with `+`
   * (e.g. `"math+weather"`), or `"local"` when there are no tools.
   */
  readonly name?: string
  /** Which tools require approval. Default `"auto"` (all but read-only tools); see {@link ApprovalPolicy}. */
  readonly approval?: ApprovalPolicy
  /** Reported by `metadata().kind`. Default `"local"`. */
  readonly kind?: string
  readonly version?: string
  readonly description?: string
}

/**
 * A local backend: a {@link Backend} whose tool set can change at run time.
 *
 * @since 0.1.0
 */
export interface LocalBackend extends Backend {
  /** Adds (or replaces) a tool and notifies listeners. */
  add(definition: ToolDefinition<any>): void
  /** Removes a tool and notifies listeners; returns whether it was served. */
  remove(toolId: string): boolean
  /** The definition serving `toolId`. */
  definition(toolId: string): ToolDefinition<any> | undefined
}

const abortFailure = (toolId: string, signal: AbortSignal): ToolError => {
  const reason = signal.reason
  if (isToolError(reason)) return reason
  return new Cancelled({ toolId, reason: reason instanceof Error ? reason.message : undefined })
}

const defaultName = (definitions: readonly ToolDefinition<any>[]): string => {
  const namespaces = [...new Set(definitions.map((d) => d.namespace))].sort()
  return namespaces.length === 0 ? "local" : namespaces.join("+")
}

/**
 * Serves `defineTool` definitions in process.
 *
 * @example
 * ```ts
 * import { defineTool } from "@toolplane/foundation"
 * import { localBackend } from "@toolplane/plugin-local"
 * import { z } from "zod"
 *
 * const add = defineTool({
 *   id: "math/add",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   annotations: { readOnlyHint: true },
 *   handler: ({ a, b }) => ({ sum: a + b }),
 * })
 * const backend = localBackend([add]) // name "math"; math/add needs no approval (read-only)
 * ```
 * @since 0.1.0
 */
export const localBackend = (
  definitions: readonly ToolDefinition<any>[],
  options: LocalBackendOptions = {},
): LocalBackend => {
  const name = options.name ?? defaultName(definitions)
  const kind = options.kind ?? "local"
  const policy = options.approval ?? "auto"
  const byId = new Map<string, ToolDefinition<any>>()
  const approval = new Map<string, boolean>()
  const listeners = new Set<BackendListener>()
  let list: readonly Tool[] = []
  let closed = false

  const check = (definition: unknown): ToolDefinition<any> => {
    if (!isToolDefinition(definition))
      throw new InvalidTool({
        toolId: String((definition as { id?: unknown })?.id ?? "(unknown)"),
        path: "",
        reason: "localBackend serves tools made with defineTool",
      })
    return definition
  }
  const rebuild = () => {
    list = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }
  for (const d of definitions) {
    const definition = check(d)
    if (byId.has(definition.id)) throw new ToolConflict({ toolId: definition.id, backends: [name, name] })
    byId.set(definition.id, definition)
    approval.set(definition.id, needsApproval(definition, policy))
  }
  rebuild()
  // What the runner last listed: a call it validated and approved runs exactly the definition it checked,
  // even when add() swapped the tool in between (the runner refreshes on the change notification).
  let listed = new Map(byId)
  const notify = () => {
    for (const listener of listeners) listener()
  }

  return {
    name,
    execute(call, ctx): Promise<BackendResult> {
      const definition = call.validated ? listed.get(call.toolId) : byId.get(call.toolId)
      if (definition === undefined)
        return Promise.reject(
          new ToolNotFound({ toolId: call.toolId, suggestions: suggestToolIds(call.toolId, byId.keys()) }),
        )
      if (closed)
        return Promise.reject(
          new BackendUnavailable({ backend: name, toolId: call.toolId, reason: "closed" }),
        )
      if (ctx.signal.aborted) return Promise.reject(abortFailure(call.toolId, ctx.signal))
      return runDefinition(definition, call, ctx)
    },
    supportedTools: async () => list.map((t) => t.id),
    toolSchemas: async () => {
      listed = new Map(byId)
      return list
    },
    metadata: (): BackendMetadata => ({
      name,
      kind,
      tools: byId.size,
      ...(options.version !== undefined ? { version: options.version } : {}),
      ...(options.description !== undefined ? { description: options.description } : {}),
    }),
    healthCheck: async () => !closed,
    requiresApproval: async (toolId) => approval.get(toolId) ?? true,
    onToolsChanged(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    async close() {
      closed = true
      listeners.clear()
    },
    add(d) {
      const definition = check(d)
      byId.set(definition.id, definition)
      approval.set(definition.id, needsApproval(definition, policy))
      rebuild()
      notify()
    },
    remove(toolId) {
      const had = byId.delete(toolId)
      approval.delete(toolId)
      if (had) {
        rebuild()
        notify()
      }
      return had
    },
    definition: (toolId) => byId.get(toolId),
  }
}
