/**
 * Import: OpenAI function tools (Chat Completions or Responses shape, or a bare function definition)
 * to canonical tools, for users who already have OpenAI tool definitions.
 *
 * @since 0.1.0
 */
import {
  ConversionFailed,
  EMPTY_INPUT_SCHEMA,
  type FeatureLossWarning,
  isToolError,
  type JsonSchema,
  makeTool,
  type Tool,
} from "@toolplane/foundation"

/**
 * A bare function definition (`name`, `description`, `parameters`, `strict`), as inside a Chat
 * Completions tool.
 *
 * @since 0.1.0
 */
export interface OpenAIFunctionDefinition {
  readonly name: string
  readonly description?: string | null | undefined
  readonly parameters?: { readonly [key: string]: unknown } | null | undefined
  readonly strict?: boolean | null | undefined
}

/**
 * Anything {@link fromOpenAITool} accepts.
 *
 * @since 0.1.0
 */
export type OpenAIToolInput =
  | { readonly type: "function"; readonly function: OpenAIFunctionDefinition }
  | ({ readonly type: "function" } & OpenAIFunctionDefinition)
  | OpenAIFunctionDefinition

/**
 * Options of {@link fromOpenAITool}.
 *
 * @since 0.1.0
 */
export interface ImportOptions {
  /** Namespace of the imported tools. Default `"openai"`. */
  readonly namespace?: string
}

const definitionOf = (native: OpenAIToolInput): OpenAIFunctionDefinition =>
  "function" in native && typeof native.function === "object" && native.function !== null
    ? native.function
    : (native as OpenAIFunctionDefinition)

/**
 * Converts one OpenAI function tool to a canonical tool with id `namespace/name`. The schema is kept as
 * is (a strict schema stays strict: its nullable "optional" properties stay required); `strict` is kept
 * in `metadata.openai.strict`. Fails with `ConversionFailed` when the name or schema is unusable.
 *
 * @since 0.1.0
 */
export const fromOpenAITool = (native: OpenAIToolInput, options: ImportOptions = {}): Tool => {
  const namespace = options.namespace ?? "openai"
  const def = definitionOf(native)
  const name = typeof def?.name === "string" ? def.name : ""
  const id = `${namespace}/${name}`
  const fail = (reason: string): never => {
    throw new ConversionFailed({ toolId: id, adapter: "openai", reason })
  }
  if ("type" in native && native.type !== "function")
    fail(`only function tools can be imported, got "${String((native as { type: unknown }).type)}"`)
  if (name === "") fail("the tool has no name")
  const parameters = (def.parameters ?? EMPTY_INPUT_SCHEMA) as JsonSchema
  try {
    return makeTool({
      id,
      ...(typeof def.description === "string" && def.description !== ""
        ? { description: def.description }
        : {}),
      inputSchema: parameters,
      metadata: { openai: { name, strict: def.strict === true } },
    })
  } catch (error) {
    return fail(isToolError(error) ? error.message : String(error))
  }
}

/**
 * Converts a list of OpenAI tools. Tools that are not function tools (custom, web search, ...) or that
 * fail to convert are skipped with a warning instead of failing the whole list.
 *
 * @since 0.1.0
 */
export const fromOpenAITools = (
  natives: readonly unknown[],
  options: ImportOptions = {},
): { tools: Tool[]; warnings: FeatureLossWarning[] } => {
  const tools: Tool[] = []
  const warnings: FeatureLossWarning[] = []
  natives.forEach((native, i) => {
    const type = (native as { type?: unknown })?.type
    if (type !== undefined && type !== "function") {
      warnings.push({
        feature: `tool:${String(type)}`,
        path: `/${i}`,
        from: "openai",
        to: "canonical",
        message: `"${String(type)}" tools are not function tools and were skipped`,
      })
      return
    }
    try {
      tools.push(fromOpenAITool(native as OpenAIToolInput, options))
    } catch (error) {
      warnings.push({
        feature: "tool",
        path: `/${i}`,
        from: "openai",
        to: "canonical",
        message: (error as Error).message,
        ...(error instanceof ConversionFailed ? { toolId: error.toolId } : {}),
      })
    }
  })
  return { tools, warnings }
}
