/**
 * Export: canonical tools to OpenAI function tools, in the Chat Completions shape
 * (`{ type: "function", function: { name, description, parameters, strict } }`) or the Responses API
 * shape (`{ type: "function", name, description, parameters, strict }`), with strict-mode schemas and
 * reversible names.
 *
 * @since 0.1.0
 */
import {
  type Adapter,
  type Conversion,
  type FeatureLossWarning,
  isJsonObject,
  normalizeJsonSchema,
  planToolExport,
  type Tool,
  toolDescription,
} from "@toolplane/foundation"
import { looseParameters } from "./functionTool.js"
import { fromOpenAITool } from "./import.js"
import type { ToolNameMap } from "./names.js"
import { STRICT_FORMATS, toStrictSchema } from "./strictSchema.js"

/**
 * Which OpenAI API the tools are for.
 *
 * @since 0.1.0
 */
export type OpenAIApi = "chat" | "responses"

/**
 * A function tool in the Chat Completions shape (assignable to the `openai` package's
 * `ChatCompletionFunctionTool`).
 *
 * @since 0.1.0
 */
export interface OpenAIChatTool {
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly description?: string
    readonly parameters: { [key: string]: unknown }
    readonly strict: boolean
  }
}

/**
 * A function tool in the Responses API shape (assignable to the `openai` package's `FunctionTool`).
 *
 * @since 0.1.0
 */
export interface OpenAIResponsesTool {
  readonly type: "function"
  readonly name: string
  readonly description?: string
  readonly parameters: { [key: string]: unknown }
  readonly strict: boolean
}

/**
 * Options of {@link toOpenAITools}.
 *
 * @since 0.1.0
 */
export interface OpenAIToolsOptions<A extends OpenAIApi = OpenAIApi> {
  /** Strict schemas (Structured Outputs). Default `true`; a tool that cannot be strict falls back to `false`. */
  readonly strict?: boolean
  /** Default `"chat"`. */
  readonly api?: A
}

/**
 * How one tool was exported: its id, OpenAI name, the canonical tool, whether it went out strict, and
 * whether its root was wrapped (see `toStrictSchema`). {@link runToolCalls} uses it to route calls and
 * restore arguments.
 *
 * @since 0.1.0
 */
export interface ExportedTool {
  readonly id: string
  readonly name: string
  readonly tool: Tool
  readonly strict: boolean
  readonly wrapped: boolean
}

/**
 * The result of {@link toOpenAITools}: the tools to send, every feature-loss warning, the name map and
 * what was exported per name.
 *
 * @since 0.1.0
 */
export interface OpenAIToolSet<T = OpenAIChatTool | OpenAIResponsesTool> {
  readonly api: OpenAIApi
  readonly tools: T[]
  readonly warnings: FeatureLossWarning[]
  readonly names: ToolNameMap
  /** Exported tools by OpenAI name. */
  readonly byName: ReadonlyMap<string, ExportedTool>
}

const TARGET = "openai"

const warn = (tool: Tool, feature: string, path: string, message: string): FeatureLossWarning => ({
  feature,
  path,
  from: "canonical",
  to: TARGET,
  toolId: tool.id,
  message,
})

interface Converted {
  readonly parameters: { [key: string]: unknown }
  readonly strict: boolean
  readonly wrapped: boolean
  readonly warnings: FeatureLossWarning[]
}

const convertParameters = (tool: Tool, strict: boolean): Converted => {
  const warnings: FeatureLossWarning[] = []
  if (!isJsonObject(tool.inputSchema)) throw new TypeError("the input schema is not an object")
  // schemas from the wild (draft-04 bounds and tuples, null keywords, ...): the same rewrites every
  // exporter and MCP import make, each reported
  const { schema: inputSchema, changes } = normalizeJsonSchema(tool.inputSchema)
  for (const c of changes) warnings.push(warn(tool, c.keyword, `/inputSchema${c.path}`, c.message))
  if (!strict) return { parameters: looseParameters(inputSchema), strict: false, wrapped: false, warnings }
  const result = toStrictSchema(inputSchema)
  if (!result.ok) {
    warnings.push(
      warn(
        tool,
        "strict",
        `/inputSchema${result.path}`,
        `cannot be made strict (${result.reason}); sent with strict: false`,
      ),
    )
    // the keyword strict mode cannot express, named as its own feature
    if (result.feature !== undefined)
      warnings.push(
        warn(
          tool,
          result.feature,
          `/inputSchema${result.path}`,
          `strict mode cannot express this (${result.reason}); sent with strict: false`,
        ),
      )
    return { parameters: looseParameters(inputSchema), strict: false, wrapped: false, warnings }
  }
  for (const loss of result.losses)
    warnings.push(warn(tool, loss.feature, `/inputSchema${loss.path}`, loss.message))
  return {
    parameters: result.schema as { [key: string]: unknown },
    strict: true,
    wrapped: result.wrapped,
    warnings,
  }
}

const shape = (
  api: OpenAIApi,
  name: string,
  tool: Tool,
  c: Converted,
): OpenAIChatTool | OpenAIResponsesTool => {
  const description = toolDescription(tool)
  if (api === "responses")
    return {
      type: "function",
      name,
      ...(description !== undefined ? { description } : {}),
      parameters: c.parameters,
      strict: c.strict,
    }
  return {
    type: "function",
    function: {
      name,
      ...(description !== undefined ? { description } : {}),
      parameters: c.parameters,
      strict: c.strict,
    },
  }
}

/**
 * Exports canonical tools as OpenAI function tools. Never throws for one bad tool: a schema that cannot
 * be strict goes out with `strict: false` and a `"strict"` warning; every meaning-losing change and
 * every lossy rename (`"name"`) is a warning.
 *
 * @example
 * ```ts
 * const { tools, warnings } = toOpenAITools(await listAllTools(service), { strict: true, api: "chat" })
 * await client.chat.completions.create({ model, messages, tools })
 * ```
 * @since 0.1.0
 */
export function toOpenAITools(
  tools: readonly Tool[],
  options: OpenAIToolsOptions<"responses"> & { readonly api: "responses" },
): OpenAIToolSet<OpenAIResponsesTool>
export function toOpenAITools(
  tools: readonly Tool[],
  options?: OpenAIToolsOptions<"chat">,
): OpenAIToolSet<OpenAIChatTool>
export function toOpenAITools(
  tools: readonly Tool[],
  options?: OpenAIToolsOptions,
): OpenAIToolSet<OpenAIChatTool | OpenAIResponsesTool>
export function toOpenAITools(
  tools: readonly Tool[],
  options: OpenAIToolsOptions = {},
): OpenAIToolSet<OpenAIChatTool | OpenAIResponsesTool> {
  const api = options.api ?? "chat"
  const strict = options.strict ?? true
  const { entries, names, warnings } = planToolExport(tools, {
    to: TARGET,
    nameRule: "OpenAI names allow only [a-zA-Z0-9_-], at most 64 characters",
    // null fields from the wire count as absent (a tool built without makeTool may still carry them)
    unsupported: {
      annotations: "OpenAI function tools have no annotations (hints)",
      outputSchema: "OpenAI function tools have no output schema",
    },
  })
  const out: (OpenAIChatTool | OpenAIResponsesTool)[] = []
  const byName = new Map<string, ExportedTool>()
  for (const { tool, name, warnings: about } of entries) {
    warnings.push(...about)
    let c: Converted
    try {
      c = convertParameters(tool, strict)
    } catch (error) {
      // one broken tool never costs the set: it is left out with a warning
      warnings.push(
        warn(
          tool,
          "tool",
          "",
          `left out: it cannot be exported (${(error as Error)?.message ?? String(error)})`,
        ),
      )
      continue
    }
    warnings.push(...c.warnings)
    out.push(shape(api, name, tool, c))
    byName.set(name, { id: tool.id, name, tool, strict: c.strict, wrapped: c.wrapped })
  }
  return { api, tools: out, warnings, names, byName }
}

/**
 * {@link toOpenAITools} for the Chat Completions API.
 *
 * @since 0.1.0
 */
export const toChatCompletionsTools = (
  tools: readonly Tool[],
  options: { readonly strict?: boolean } = {},
): OpenAIToolSet<OpenAIChatTool> => toOpenAITools(tools, { ...options, api: "chat" })

/**
 * {@link toOpenAITools} for the Responses API.
 *
 * @since 0.1.0
 */
export const toResponsesTools = (
  tools: readonly Tool[],
  options: { readonly strict?: boolean } = {},
): OpenAIToolSet<OpenAIResponsesTool> => toOpenAITools(tools, { ...options, api: "responses" })

const STRICT_FEATURES = new Set([
  "$ref",
  "$defs",
  "definitions",
  "anyOf",
  "enum",
  "const",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "additionalProperties",
  ...[...STRICT_FORMATS].map((f) => `format:${f}`),
])

/**
 * The adapter contract for one API. `fromCanonical` converts one tool on its own (its name mapped as a
 * set of one); use {@link toOpenAITools} for sets, where names must be unique. `supportsFeature` answers
 * for strict mode when `strict` is on, and for anything else `true` except `outputSchema` and
 * `annotations`.
 *
 * @since 0.1.0
 */
export function openAIAdapter(
  options: OpenAIToolsOptions<"responses"> & { readonly api: "responses" },
): Adapter<OpenAIResponsesTool>
export function openAIAdapter(options?: OpenAIToolsOptions<"chat">): Adapter<OpenAIChatTool>
export function openAIAdapter(
  options: OpenAIToolsOptions = {},
): Adapter<OpenAIChatTool | OpenAIResponsesTool> {
  const api = options.api ?? "chat"
  const strict = options.strict ?? true
  return {
    name: api === "chat" ? "openai-chat" : "openai-responses",
    toCanonical: (native) => fromOpenAITool(native),
    fromCanonical: (tool): Conversion<OpenAIChatTool | OpenAIResponsesTool> => {
      const set = toOpenAITools([tool], { api, strict })
      return { value: set.tools[0]!, warnings: set.warnings }
    },
    supportsFeature: (feature) => {
      if (feature === "outputSchema" || feature === "annotations") return false
      return strict ? STRICT_FEATURES.has(feature) : true
    },
  }
}
