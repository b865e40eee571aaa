/**
 * What every function-calling API reads of a tool when nothing provider-specific applies: its
 * description and its parameters schema as plain (non-strict) JSON Schema. Shared by the OpenAI export
 * and the plugins that reuse it (AI SDK, LangChain).
 *
 * @since 0.1.0
 */
import {
  type FeatureLossWarning,
  isJsonObject,
  type JsonSchema,
  normalizeJsonSchema,
  planToolExport,
  type Tool,
  type ToolNameMap,
  toolDescription,
} from "@toolplane/foundation"

/**
 * A tool's input schema as non-strict function parameters: without `$schema` (providers reject some
 * dialect URIs) and with `type: "object"` at a root that has none. Throws a `TypeError` for a schema that
 * is not an object (callers leave such a tool out with a warning).
 *
 * @since 0.1.0
 */
export const looseParameters = (schema: JsonSchema): { [key: string]: unknown } => {
  if (!isJsonObject(schema)) throw new TypeError("the input schema is not an object")
  const { $schema: _s, ...rest } = schema
  return rest.type === undefined && rest.$ref === undefined ? { type: "object", ...rest } : { ...rest }
}

/**
 * One tool of {@link functionTools}: the tool, its name, the text the model reads about it and its
 * parameters.
 *
 * @since 0.1.0
 */
export interface FunctionToolEntry {
  readonly tool: Tool
  readonly name: string
  readonly description: string | undefined
  readonly parameters: { [key: string]: unknown }
}

/**
 * The result of {@link functionTools}.
 *
 * @since 0.1.0
 */
export interface FunctionTools {
  /** The exportable tools, once per id, in input order. */
  readonly entries: readonly FunctionToolEntry[]
  /** Tool id ↔ name for the tools of `entries` and those left out. */
  readonly names: ToolNameMap
  /** Lossy renames, schema rewrites and tools left out. */
  readonly warnings: FeatureLossWarning[]
}

/**
 * What an export to a framework that takes function tools with plain JSON Schema parameters (the AI SDK
 * and LangChain plugins) starts from: the tools once per id, reversible names (`mapToolNames`), the
 * schemas rewritten by foundation's `normalizeJsonSchema` and made {@link looseParameters}. Every lossy
 * rename, schema rewrite and tool left out (an input schema that is not an object) is a warning from
 * `"canonical"` to `to`. Never throws for one tool.
 *
 * @example
 * ```ts
 * const { entries, names, warnings } = functionTools(tools, "my-framework")
 * ```
 * @since 0.1.0
 */
export const functionTools = (tools: readonly Tool[], to: string): FunctionTools => {
  const warn = (toolId: string, feature: string, path: string, message: string): FeatureLossWarning => ({
    feature,
    path,
    from: "canonical",
    to,
    toolId,
    message,
  })
  const plan = planToolExport(tools, { to })
  const { names, warnings } = plan
  const entries: FunctionToolEntry[] = []
  for (const { tool, name, warnings: about } of plan.entries) {
    warnings.push(...about)
    if (!isJsonObject(tool.inputSchema)) {
      warnings.push(warn(tool.id, "tool", "", "left out: the input schema is not an object"))
      continue
    }
    const { schema, changes } = normalizeJsonSchema(tool.inputSchema)
    for (const c of changes) warnings.push(warn(tool.id, c.keyword, `/inputSchema${c.path}`, c.message))
    entries.push({ tool, name, description: toolDescription(tool), parameters: looseParameters(schema) })
  }
  return { entries, names, warnings }
}
