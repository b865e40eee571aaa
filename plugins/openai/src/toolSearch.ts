/**
 * Export for OpenAI's tool search (Responses API): tools grouped into `namespace` tools, each function
 * with `defer_loading`, plus the hosted `tool_search` tool, so the model loads only the definitions it
 * searches for. Calls come back as `function_call` items with a `namespace`; {@link runToolCalls} routes
 * them with the set's `byName` (keys `namespace.name`).
 *
 * @since 0.1.0
 */
import type { FeatureLossWarning, Tool } from "@toolplane/foundation"
import { type ExportedTool, type OpenAIResponsesTool, toOpenAITools } from "./adapter.js"
import { mapToolNames } from "./names.js"

/**
 * A function inside a namespace (assignable to the `openai` package's `NamespaceTool.Function`).
 *
 * @since 0.1.0
 */
export interface OpenAINamespaceFunction {
  readonly type: "function"
  readonly name: string
  readonly description?: string
  readonly parameters: { [key: string]: unknown }
  readonly strict: boolean
  readonly defer_loading?: boolean
}

/**
 * A group of functions (assignable to the `openai` package's `NamespaceTool`).
 *
 * @since 0.1.0
 */
export interface OpenAINamespaceTool {
  readonly type: "namespace"
  readonly name: string
  readonly description: string
  readonly tools: OpenAINamespaceFunction[]
}

/**
 * The hosted tool search tool (assignable to the `openai` package's `ToolSearchTool`).
 *
 * @since 0.1.0
 */
export interface OpenAIToolSearchTool {
  readonly type: "tool_search"
}

/**
 * Options of {@link toOpenAIToolSearch}.
 *
 * @since 0.1.0
 */
export interface OpenAIToolSearchOptions {
  /** Strict schemas. Default `true` (a tool that cannot be strict goes out with `strict: false`). */
  readonly strict?: boolean
  /** Tools loaded up front (no `defer_loading`), e.g. the few every conversation needs. Default: none. */
  readonly loadUpFront?: (tool: Tool) => boolean
  /** Descriptions of namespaces by Toolplane namespace; default: the namespace and its tool names. */
  readonly namespaceDescriptions?: Readonly<Record<string, string>>
}

/**
 * The result of {@link toOpenAIToolSearch}: the `tools` to send, warnings, and `byName` for
 * {@link runToolCalls} (keys `namespace.function`).
 *
 * @since 0.1.0
 */
export interface OpenAIToolSearchSet {
  readonly tools: (OpenAIToolSearchTool | OpenAINamespaceTool)[]
  readonly warnings: FeatureLossWarning[]
  readonly byName: ReadonlyMap<string, ExportedTool>
}

const MAX_DESCRIPTION = 1024

const defaultDescription = (namespace: string, tools: readonly Tool[]): string => {
  const names = tools.map((t) => t.name).join(", ")
  const text = `Tools of "${namespace}": ${names}.`
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 3)}...`
}

/**
 * Exports tools for OpenAI's hosted tool search: one `namespace` tool per Toolplane namespace (names
 * mapped validly and reversibly, like function names), each function converted as by
 * {@link toOpenAITools} (strict where possible) with `defer_loading: true` unless `loadUpFront` picks
 * it, and one `{ type: "tool_search" }`. Never throws for one tool (it is left out with a warning).
 *
 * @example
 * ```ts
 * import { listAllTools } from "@toolplane/foundation"
 *
 * const set = toOpenAIToolSearch(await listAllTools(service))
 * const response = await client.responses.create({ model, input: "Weather in Oslo?", tools: set.tools })
 * const outputs = await runToolCalls(service, response, { tools: set }) // send with the next request
 * ```
 * @since 0.1.0
 */
export const toOpenAIToolSearch = (
  tools: readonly Tool[],
  options: OpenAIToolSearchOptions = {},
): OpenAIToolSearchSet => {
  const seen = new Set<string>()
  const unique = tools.filter((t) => {
    if (seen.has(t.id)) return false
    seen.add(t.id)
    return true
  })
  const groups = new Map<string, Tool[]>()
  for (const tool of unique) groups.set(tool.namespace, [...(groups.get(tool.namespace) ?? []), tool])
  const namespaceNames = mapToolNames(groups.keys())
  const warnings: FeatureLossWarning[] = []
  const byName = new Map<string, ExportedTool>()
  const out: (OpenAIToolSearchTool | OpenAINamespaceTool)[] = [{ type: "tool_search" }]
  for (const [namespace, group] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const ns = namespaceNames.nameOf(namespace)!
    const converted = toOpenAITools(group, { api: "responses", strict: options.strict ?? true })
    warnings.push(...converted.warnings.filter((w) => w.feature !== "name"))
    const fnNames = mapToolNames(group.map((t) => t.name))
    const functions: OpenAINamespaceFunction[] = []
    for (const exported of converted.byName.values()) {
      const sent = converted.tools.find((t) => t.name === exported.name) as OpenAIResponsesTool
      const name = fnNames.nameOf(exported.tool.name)!
      const deferred = !(options.loadUpFront?.(exported.tool) ?? false)
      functions.push({ ...sent, name, ...(deferred ? { defer_loading: true } : {}) })
      byName.set(`${ns}.${name}`, { ...exported, name: `${ns}.${name}` })
      if (name !== exported.tool.name || ns !== namespace)
        warnings.push({
          feature: "name",
          path: "/id",
          from: "canonical",
          to: "openai",
          toolId: exported.id,
          message: `sent as "${name}" in namespace "${ns}": OpenAI names allow only [a-zA-Z0-9_-], at most 64 characters`,
        })
    }
    if (functions.length === 0) continue
    out.push({
      type: "namespace",
      name: ns,
      description: options.namespaceDescriptions?.[namespace] ?? defaultDescription(namespace, group),
      tools: functions,
    })
  }
  return { tools: out, warnings, byName }
}
