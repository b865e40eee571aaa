/**
 * Export: canonical tools to Anthropic Messages API tools
 * (`{ name, description, input_schema, strict?, defer_loading?, input_examples? }`), with reversible
 * names (`exampleArgs` become `input_examples`), optional
 * strict schemas and feature-loss warnings. One bad tool never fails the set: it is degraded or skipped
 * with a warning.
 *
 * @since 0.1.0
 */
import {
  type Adapter,
  type Conversion,
  ConversionFailed,
  type FeatureLossWarning,
  isJsonObject,
  normalizeJsonSchema,
  planToolExport,
  type Tool,
  toolDescription,
} from "@toolplane/foundation"
import { fromAnthropicTool } from "./import.js"
import type { ToolNameMap } from "./names.js"
import { STRICT_LIMITS, strictComplexity, toStrictSchema } from "./strict.js"

/**
 * An Anthropic custom tool (assignable to the `@anthropic-ai/sdk` package's `Anthropic.Messages.Tool`).
 *
 * @since 0.1.0
 */
export interface AnthropicTool {
  name: string
  description?: string
  input_schema: { type: "object"; [key: string]: unknown }
  /** Present when the tool went out strict. */
  strict?: boolean
  /** Present when the tool is loaded through tool search only. */
  defer_loading?: boolean
  /** The tool's `exampleArgs`, when it has any. */
  input_examples?: { [key: string]: unknown }[]
  /** On the last tool when `cacheTools` is on: a prompt-cache breakpoint after the tool definitions. */
  cache_control?: { type: "ephemeral"; ttl?: "5m" | "1h" }
}

/**
 * Options of {@link toAnthropicTools}.
 *
 * @since 0.1.0
 */
export interface AnthropicToolsOptions {
  /**
   * Strict tool use (grammar-constrained inputs). Default `false`: Anthropic compiles every strict
   * schema of a request into one grammar and limits strict tools per request
   * (see `STRICT_LIMITS`); turn it on for small, fixed toolsets. Tools past a limit, and tools whose
   * schema cannot be strict, go out with `strict: false` and a warning.
   */
  readonly strict?: boolean
  /**
   * Mark tools `defer_loading: true` (for Anthropic's tool search). `true` defers every tool; a
   * function decides per tool. Default: none. Use {@link toAnthropicToolSearch} to also add the search
   * tool.
   */
  readonly deferLoading?: boolean | ((tool: Tool) => boolean)
  /**
   * Put a prompt-cache breakpoint (`cache_control: { type: "ephemeral" }`) on the last tool, so the tool
   * definitions are cached across the turns of a loop. `true` or a TTL. Default: off.
   */
  readonly cacheTools?: boolean | "5m" | "1h"
}

/**
 * How one tool was exported: its id, Anthropic name, the canonical tool, and whether it went out strict
 * or deferred. {@link runToolCalls} uses it to route calls.
 *
 * @since 0.1.0
 */
export interface ExportedTool {
  readonly id: string
  readonly name: string
  readonly tool: Tool
  readonly strict: boolean
  readonly deferred: boolean
}

/**
 * The result of {@link toAnthropicTools}: the tools to send, every feature-loss warning, the name map
 * and what was exported per name.
 *
 * @since 0.1.0
 */
export interface AnthropicToolSet {
  readonly tools: AnthropicTool[]
  readonly warnings: FeatureLossWarning[]
  readonly names: ToolNameMap
  /** Exported tools by Anthropic name. */
  readonly byName: ReadonlyMap<string, ExportedTool>
}

const TARGET = "anthropic"

const warn = (toolId: string, feature: string, path: string, message: string): FeatureLossWarning => ({
  feature,
  path,
  from: "canonical",
  to: TARGET,
  toolId,
  message,
})

/** A non-strict input schema: normalised, `$schema` dropped, root `type: "object"`. */
const looseSchema = (
  tool: Tool,
  warnings: FeatureLossWarning[],
): { type: "object"; [key: string]: unknown } | undefined => {
  if (!isJsonObject(tool.inputSchema)) {
    warnings.push(
      warn(
        tool.id,
        "inputSchema",
        "/inputSchema",
        "the input schema is not a JSON object; the tool was skipped",
      ),
    )
    return undefined
  }
  const { schema, changes } = normalizeJsonSchema(tool.inputSchema)
  for (const c of changes) warnings.push(warn(tool.id, c.keyword, `/inputSchema${c.path}`, c.message))
  const { $schema: _s, ...rest } = schema as Record<string, unknown>
  if (rest.type !== undefined && rest.type !== "object") {
    warnings.push(
      warn(
        tool.id,
        "inputSchema",
        "/inputSchema/type",
        `the root must be an object, got ${JSON.stringify(rest.type)}; the tool was skipped`,
      ),
    )
    return undefined
  }
  return { ...rest, type: "object" }
}

/**
 * Exports canonical tools as Anthropic tools. Never throws for one bad tool: a schema that cannot be
 * strict goes out with `strict: false` and a `"strict"` warning; a tool without an object input schema
 * is skipped with a warning; every lossy rename (`"name"`) and dropped field (`annotations`,
 * `outputSchema`) is a warning. Null fields (`description`, `title`, `annotations`) count as absent.
 *
 * @example
 * ```ts
 * const { tools, warnings } = toAnthropicTools(await listAllTools(service))
 * await client.messages.create({ model, max_tokens: 1024, messages, tools })
 * ```
 * @since 0.1.0
 */
export const toAnthropicTools = (
  tools: readonly Tool[],
  options: AnthropicToolsOptions = {},
): AnthropicToolSet => {
  const { entries, names, warnings } = planToolExport(tools, {
    to: TARGET,
    nameRule: "Anthropic names allow only [a-zA-Z0-9_-], at most 64 characters",
    objectSchemasOnly: true,
    unsupported: {
      annotations: "Anthropic tools have no annotations (hints)",
      outputSchema: "Anthropic tools have no output schema",
    },
  })
  const out: AnthropicTool[] = []
  const byName = new Map<string, ExportedTool>()
  const budget = { tools: 0, optional: 0, unions: 0 }
  for (const { tool, name, warnings: about } of entries) {
    warnings.push(...about)
    let inputSchema: AnthropicTool["input_schema"] | undefined
    let strict = false
    if (options.strict === true && isJsonObject(tool.inputSchema)) {
      const result = toStrictSchema(tool.inputSchema)
      if (!result.ok) {
        warnings.push(
          warn(
            tool.id,
            "strict",
            `/inputSchema${result.path}`,
            `cannot be made strict (${result.reason}); sent with strict: false`,
          ),
        )
      } else {
        const c = strictComplexity(result.schema)
        const over =
          budget.tools + 1 > STRICT_LIMITS.maxStrictTools
            ? `more than ${STRICT_LIMITS.maxStrictTools} strict tools`
            : budget.optional + c.optional > STRICT_LIMITS.maxOptionalProperties
              ? `more than ${STRICT_LIMITS.maxOptionalProperties} optional properties over all strict tools`
              : budget.unions + c.unions > STRICT_LIMITS.maxUnionProperties
                ? `more than ${STRICT_LIMITS.maxUnionProperties} union-typed properties over all strict tools`
                : undefined
        if (over !== undefined) {
          warnings.push(
            warn(
              tool.id,
              "strict",
              "/inputSchema",
              `a request allows at most ${over.replace("more than ", "")}; sent with strict: false`,
            ),
          )
        } else {
          budget.tools++
          budget.optional += c.optional
          budget.unions += c.unions
          for (const loss of result.losses)
            warnings.push(warn(tool.id, loss.feature, `/inputSchema${loss.path}`, loss.message))
          inputSchema = result.schema as AnthropicTool["input_schema"]
          strict = true
        }
      }
    }
    inputSchema ??= looseSchema(tool, warnings)
    if (inputSchema === undefined) continue
    const deferred =
      typeof options.deferLoading === "function"
        ? options.deferLoading(tool) === true
        : options.deferLoading === true
    const description = toolDescription(tool)
    const examples = Array.isArray(tool.exampleArgs)
      ? tool.exampleArgs.filter((e) => isJsonObject(e)).map((e) => ({ ...e }))
      : []
    out.push({
      name,
      ...(description !== undefined ? { description } : {}),
      input_schema: inputSchema,
      ...(options.strict === true ? { strict } : {}),
      ...(deferred ? { defer_loading: true } : {}),
      ...(examples.length > 0 ? { input_examples: examples } : {}),
    })
    byName.set(name, { id: tool.id, name, tool, strict, deferred })
  }
  const last = out[out.length - 1]
  if (options.cacheTools !== undefined && options.cacheTools !== false && last !== undefined)
    last.cache_control =
      options.cacheTools === true ? { type: "ephemeral" } : { type: "ephemeral", ttl: options.cacheTools }
  return { tools: out, warnings, names, byName }
}

/**
 * The adapter contract. `fromCanonical` converts one tool on its own (its name mapped as a set of one);
 * use {@link toAnthropicTools} for sets, where names must be unique. A tool that cannot be exported at
 * all (no object input schema) fails with `ConversionFailed`; `toCanonical` is {@link fromAnthropicTool}.
 *
 * @since 0.1.0
 */
export const anthropicAdapter = (options: AnthropicToolsOptions = {}): Adapter<AnthropicTool> => ({
  name: TARGET,
  toCanonical: (native) => fromAnthropicTool(native),
  fromCanonical: (tool): Conversion<AnthropicTool> => {
    const set = toAnthropicTools([tool], options)
    const value = set.tools[0]
    if (value === undefined) {
      const reason = set.warnings.find((w) => w.feature === "inputSchema")?.message ?? "cannot be exported"
      throw conversionFailed(tool.id, reason)
    }
    return { value, warnings: set.warnings }
  },
  supportsFeature: (feature) => feature !== "outputSchema" && feature !== "annotations",
})

const conversionFailed = (toolId: string, reason: string) =>
  new ConversionFailed({ toolId, adapter: TARGET, reason })
