/**
 * The adapter contract: converts canonical tools to and from one protocol's tool shape (MCP, OpenAI,
 * Anthropic, ...), reporting every feature the target cannot express as a {@link FeatureLossWarning}
 * instead of dropping it silently.
 *
 * @since 0.1.0
 */
import { schemaFeatures } from "./jsonSchema.js"
import type { Tool } from "./tool.js"

/**
 * Something a conversion could not carry over.
 *
 * @since 0.1.0
 */
export interface FeatureLossWarning {
  /** e.g. `"oneOf"`, `"format:uri"`, `"outputSchema"`, `"annotations"`. */
  readonly feature: string
  /** JSON pointer into the source tool (e.g. `/inputSchema/properties/url/format`). */
  readonly path: string
  /** Source representation (adapter name, or `"canonical"`). */
  readonly from: string
  /** Target representation. */
  readonly to: string
  readonly toolId?: string
  readonly message?: string
}

/**
 * The result of converting one tool.
 *
 * @since 0.1.0
 */
export interface Conversion<T> {
  readonly value: T
  readonly warnings: readonly FeatureLossWarning[]
}

/**
 * A protocol adapter. Conversion methods reject impossible input by throwing a `ConversionFailed`
 * error (never a string).
 *
 * @since 0.1.0
 */
export interface Adapter<Native> {
  readonly name: string
  toCanonical(native: Native): Tool
  fromCanonical(tool: Tool): Conversion<Native>
  supportsFeature(feature: string): boolean
}

/**
 * Lists the features of a tool's schemas (nested ones included) that `supportsFeature` rejects, as
 * warnings. Adapters call it so every adapter walks schemas the same way.
 *
 * @since 0.1.0
 */
export const unsupportedFeatures = (
  tool: Tool,
  adapter: Pick<Adapter<unknown>, "name" | "supportsFeature">,
  from = "canonical",
): FeatureLossWarning[] => {
  const warnings: FeatureLossWarning[] = []
  const check = (schema: unknown, root: string) => {
    for (const use of schemaFeatures(schema)) {
      if (!adapter.supportsFeature(use.feature)) {
        warnings.push({
          feature: use.feature,
          path: `${root}${use.path}`,
          from,
          to: adapter.name,
          toolId: tool.id,
          message: `${adapter.name} does not support "${use.feature}"`,
        })
      }
    }
  }
  check(tool.inputSchema, "/inputSchema")
  if (tool.outputSchema) {
    if (adapter.supportsFeature("outputSchema")) check(tool.outputSchema, "/outputSchema")
    else
      warnings.push({
        feature: "outputSchema",
        path: "/outputSchema",
        from,
        to: adapter.name,
        toolId: tool.id,
        message: `${adapter.name} has no output schemas`,
      })
  }
  return warnings
}
