/**
 * What every provider export does before it converts a schema: take each tool once, leave out what
 * cannot be exported before names are given (so a broken tool never forces a rename on another), give
 * reversible names and warn for every lossy rename and every field the provider has no place for.
 *
 * @since 0.1.0
 */
import type { FeatureLossWarning } from "./adapter.js"
import { isJsonObject } from "./jsonObject.js"
import type { Tool } from "./tool.js"
import { mapToolNames, type ToolNameMap, type ToolNameRules } from "./toolNames.js"

/**
 * Options of {@link planToolExport}.
 *
 * @since 0.1.0
 */
export interface ToolExportOptions {
  /** The target representation, the warnings' `to` (e.g. `"anthropic"`). */
  readonly to: string
  /** What the provider accepts as a name (see {@link mapToolNames}). Default: foundation's default rules. */
  readonly nameRules?: ToolNameRules
  /** Appended to a lossy rename's warning, e.g. `"Anthropic names allow only [a-zA-Z0-9_-], at most 64 characters"`. */
  readonly nameRule?: string
  /**
   * Leave out tools whose input schema is not an object schema (a JSON object whose `type` is absent or
   * `"object"`), with an `inputSchema` warning. Default `false` (the caller decides).
   */
  readonly objectSchemasOnly?: boolean
  /**
   * Fields the provider has no place for, with the warning's message: `annotations` warns when a hint
   * is set (null hints count as absent), `outputSchema` when there is one.
   */
  readonly unsupported?: { readonly annotations?: string; readonly outputSchema?: string }
}

/**
 * One tool to export: the tool, its name and the warnings about it so far (lossy rename, unsupported
 * fields), to emit before the conversion's own.
 *
 * @since 0.1.0
 */
export interface ToolExportEntry {
  readonly tool: Tool
  readonly name: string
  readonly warnings: readonly FeatureLossWarning[]
}

/**
 * The result of {@link planToolExport}.
 *
 * @since 0.1.0
 */
export interface ToolExportPlan {
  /** The tools to convert, once per id, in input order. */
  readonly entries: readonly ToolExportEntry[]
  /** Tool id ↔ name for the entries. */
  readonly names: ToolNameMap
  /** The entries that are not tools and the tools left out, in input order. */
  readonly warnings: FeatureLossWarning[]
}

/**
 * Plans a provider export (see the module). Never throws: an entry without an id is skipped with a
 * `tool` warning, a duplicate id is exported once.
 *
 * @example
 * ```ts
 * const plan = planToolExport(tools, { to: "my-provider", unsupported: { outputSchema: "no output schemas" } })
 * for (const { tool, name, warnings } of plan.entries) {
 *   // convert tool.inputSchema, send it as `name`, report `warnings` and the conversion's own
 * }
 * ```
 * @since 0.1.0
 */
export const planToolExport = (tools: readonly Tool[], options: ToolExportOptions): ToolExportPlan => {
  const warn = (toolId: string, feature: string, path: string, message: string): FeatureLossWarning => ({
    feature,
    path,
    from: "canonical",
    to: options.to,
    toolId,
    message,
  })
  const warnings: FeatureLossWarning[] = []
  const seen = new Set<string>()
  const usable = tools.filter((t, i) => {
    if (!isJsonObject(t) || typeof t.id !== "string") {
      warnings.push({
        feature: "tool",
        path: `/${i}`,
        from: "canonical",
        to: options.to,
        message: "not a tool (no id); skipped",
      })
      return false
    }
    if (seen.has(t.id)) return false
    seen.add(t.id)
    if (options.objectSchemasOnly !== true) return true
    const schema = t.inputSchema as unknown
    if (isJsonObject(schema) && (schema.type === undefined || schema.type === "object")) return true
    warnings.push(
      warn(
        t.id,
        "inputSchema",
        isJsonObject(schema) ? "/inputSchema/type" : "/inputSchema",
        `the input schema must be an object schema${isJsonObject(schema) ? `, got type ${JSON.stringify(schema.type)}` : ""}; the tool was skipped`,
      ),
    )
    return false
  })
  const names = mapToolNames(
    usable.map((t) => t.id),
    options.nameRules,
  )
  const renames = new Map(names.renames.map((r) => [r.id, r]))
  const entries = usable.map((tool): ToolExportEntry => {
    const name = names.nameOf(tool.id)!
    const about: FeatureLossWarning[] = []
    const rename = renames.get(tool.id)
    if (rename && rename.reason !== "separator")
      about.push(
        warn(
          tool.id,
          "name",
          "/id",
          `renamed to "${name}" (${rename.reason})${options.nameRule !== undefined ? `: ${options.nameRule}` : ""}`,
        ),
      )
    const { annotations, outputSchema } = options.unsupported ?? {}
    if (
      annotations !== undefined &&
      isJsonObject(tool.annotations) &&
      Object.values(tool.annotations).some((v) => v !== null && v !== undefined)
    )
      about.push(warn(tool.id, "annotations", "/annotations", annotations))
    if (outputSchema !== undefined && isJsonObject(tool.outputSchema))
      about.push(warn(tool.id, "outputSchema", "/outputSchema", outputSchema))
    return { tool, name, warnings: about }
  })
  return { entries, names, warnings }
}
