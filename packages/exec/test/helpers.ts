/**
 * Test helpers: a minimal in-process backend over `defineTool` definitions (exec must not import
 * @toolplane/plugin-local, which depends on it).
 */
import {
  type Backend,
  defineBackend,
  runDefinition,
  suggestToolIds,
  type ToolDefinition,
  ToolNotFound,
} from "@toolplane/foundation"

export const SECRET = "0123456789abcdef0123456789abcdef"

export const defsBackend = (
  defs: readonly ToolDefinition<any>[],
  options: { readonly name?: string; readonly approval?: (toolId: string) => boolean } = {},
): Backend => {
  const byId = new Map(defs.map((d) => [d.id, d]))
  return defineBackend({
    name: options.name ?? "test",
    kind: "local",
    toolSchemas: () => defs,
    execute: (call, ctx) => {
      const def = byId.get(call.toolId)
      if (!def)
        throw new ToolNotFound({ toolId: call.toolId, suggestions: suggestToolIds(call.toolId, byId.keys()) })
      return runDefinition(def, call, ctx)
    },
    requiresApproval: (id) => options.approval?.(id) ?? false,
  })
}

export const deferred = <A = void>() => {
  let resolve!: (value: A) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<A>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms))
