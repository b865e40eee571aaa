/**
 * A backend over `defineTool` definitions, built from foundation alone: the stand-in for an in-process
 * backend in tests and benchmarks of packages that may not depend on `@toolplane/plugin-local`.
 *
 * @since 0.1.0
 */
import { type Backend, defineBackend } from "../backend.js"
import { runDefinition, type ToolDefinition } from "../defineTool.js"
import { ToolNotFound } from "../toolError.js"
import { suggestToolIds } from "../toolId.js"

/**
 * Options of {@link definitionBackend}.
 *
 * @since 0.1.0
 */
export interface DefinitionBackendOptions {
  /** Backend name. Default `"test"`. */
  readonly name?: string
  /** Metadata kind. Default `"local"`. */
  readonly kind?: string
  /** Which tools require approval. Default: none (unlike `defineBackend`, for tests' convenience). */
  readonly approval?: (toolId: string) => boolean
}

/**
 * Serves `definitions` as a {@link Backend}: `execute` runs the definition with `runDefinition`
 * (validating unless the call says it is validated); an unknown id is `ToolNotFound` with suggestions.
 *
 * @example
 * ```ts no-check
 * const runner = createRunner({ backends: [definitionBackend([weather], { name: "weather" })] })
 * ```
 * @since 0.1.0
 */
export const definitionBackend = (
  definitions: readonly ToolDefinition<any>[],
  options: DefinitionBackendOptions = {},
): Backend => {
  const byId = new Map(definitions.map((d) => [d.id, d]))
  return defineBackend({
    name: options.name ?? "test",
    kind: options.kind ?? "local",
    toolSchemas: () => definitions,
    execute: (call, ctx) => {
      const definition = byId.get(call.toolId)
      if (!definition)
        throw new ToolNotFound({ toolId: call.toolId, suggestions: suggestToolIds(call.toolId, byId.keys()) })
      return runDefinition(definition, call, ctx)
    },
    requiresApproval: (id) => options.approval?.(id) ?? false,
  })
}
