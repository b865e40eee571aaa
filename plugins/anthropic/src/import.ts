/**
 * Import: Anthropic tool definitions (`{ name, description, input_schema, strict }`) to canonical
 * tools, and a backend that serves such definitions with handlers you supply, for users who already
 * have Anthropic tools.
 *
 * @since 0.1.0
 */
import {
  type Backend,
  ConversionFailed,
  defineBackend,
  EMPTY_INPUT_SCHEMA,
  type ExecutionContext,
  type FeatureLossWarning,
  isToolError,
  type JsonSchema,
  makeTool,
  type Tool,
  ToolNotFound,
  toToolResult,
} from "@toolplane/foundation"

/**
 * An Anthropic tool definition as it appears in a request (structurally `Anthropic.Messages.Tool`).
 *
 * @since 0.1.0
 */
export interface AnthropicToolInput {
  readonly name: string
  readonly description?: string | null | undefined
  readonly input_schema?: { readonly [key: string]: unknown } | null | undefined
  readonly strict?: boolean | null | undefined
  readonly type?: string | null | undefined
}

/**
 * Options of {@link fromAnthropicTool}.
 *
 * @since 0.1.0
 */
export interface ImportOptions {
  /** Namespace of the imported tools. Default `"anthropic"`. */
  readonly namespace?: string
}

/**
 * Converts one Anthropic custom tool to a canonical tool with id `namespace/name`. The schema is kept as
 * is; `strict` is kept in `metadata.anthropic.strict`. Fails with `ConversionFailed` when the tool is
 * a server tool (`type` other than `custom`), has no name, or its schema is unusable.
 *
 * @since 0.1.0
 */
export const fromAnthropicTool = (native: AnthropicToolInput, options: ImportOptions = {}): Tool => {
  const namespace = options.namespace ?? "anthropic"
  const name = typeof native?.name === "string" ? native.name : ""
  const id = `${namespace}/${name}`
  const fail = (reason: string): never => {
    throw new ConversionFailed({ toolId: id, adapter: "anthropic", reason })
  }
  const type = native?.type
  if (type !== undefined && type !== null && type !== "custom")
    fail(`"${String(type)}" is a server tool, not a custom tool`)
  if (name === "") fail("the tool has no name")
  const schema = (native.input_schema ?? EMPTY_INPUT_SCHEMA) as JsonSchema
  try {
    return makeTool({
      id,
      ...(typeof native.description === "string" && native.description !== ""
        ? { description: native.description }
        : {}),
      inputSchema: schema,
      metadata: { anthropic: { name, strict: native.strict === true } },
    })
  } catch (error) {
    return fail(isToolError(error) ? error.message : String(error))
  }
}

/**
 * Converts a list of Anthropic tools. Server tools (web search, bash, tool search, ...) and tools that
 * fail to convert are skipped with a warning instead of failing the whole list.
 *
 * @since 0.1.0
 */
export const fromAnthropicTools = (
  natives: readonly unknown[],
  options: ImportOptions = {},
): { tools: Tool[]; warnings: FeatureLossWarning[] } => {
  const tools: Tool[] = []
  const warnings: FeatureLossWarning[] = []
  natives.forEach((native, i) => {
    try {
      tools.push(fromAnthropicTool(native as AnthropicToolInput, options))
    } catch (error) {
      const type = (native as { type?: unknown })?.type
      warnings.push({
        feature: type !== undefined && type !== null && type !== "custom" ? `tool:${String(type)}` : "tool",
        path: `/${i}`,
        from: "anthropic",
        to: "canonical",
        message: (error as Error).message,
        ...(error instanceof ConversionFailed ? { toolId: error.toolId } : {}),
      })
    }
  })
  return { tools, warnings }
}

/**
 * A handler for an imported tool: receives the arguments (already validated against the tool's input
 * schema by the runner) and the execution context; returns anything `toToolResult` accepts (a string,
 * an object, content blocks, a `ToolResult`).
 *
 * @since 0.1.0
 */
export type AnthropicToolHandler = (
  input: Readonly<Record<string, unknown>>,
  context: ExecutionContext,
) => unknown

/**
 * Options of {@link anthropicToolsBackend}.
 *
 * @since 0.1.0
 */
export interface AnthropicToolsBackendOptions extends ImportOptions {
  /** The Anthropic tool definitions. Server tools are skipped (see `warnings` on the result). */
  readonly tools: readonly unknown[]
  /** One handler per tool, by Anthropic tool name. A tool without a handler is left out, with a warning. */
  readonly handlers: Readonly<Record<string, AnthropicToolHandler>>
  /** Backend name. Default: the namespace. */
  readonly name?: string
  /**
   * Which tools need approval before they run. Default: all (safe by default); pass `() => false`
   * for tools you trust.
   */
  readonly requiresApproval?: (toolId: string) => boolean
}

/**
 * A Toolplane backend serving existing Anthropic tool definitions with the handlers you supply, so they
 * run through the runner's pipeline (validation, approval, limits) and can be exported anywhere.
 * Returns the backend and the warnings of the import (skipped server tools, tools without a handler).
 *
 * @example
 * ```ts
 * const { backend } = anthropicToolsBackend({
 *   tools: [{ name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
 *   handlers: { get_weather: ({ city }) => `Sunny in ${city}` },
 * })
 * ```
 * @since 0.1.0
 */
export const anthropicToolsBackend = (
  options: AnthropicToolsBackendOptions,
): { backend: Backend; warnings: FeatureLossWarning[] } => {
  const namespace = options.namespace ?? "anthropic"
  const imported = fromAnthropicTools(options.tools, { namespace })
  const warnings = [...imported.warnings]
  const handlers = new Map<string, AnthropicToolHandler>()
  const tools = imported.tools.filter((tool) => {
    const handler = Object.hasOwn(options.handlers, tool.name) ? options.handlers[tool.name] : undefined
    if (typeof handler !== "function") {
      warnings.push({
        feature: "handler",
        path: "/handlers",
        from: "anthropic",
        to: "canonical",
        toolId: tool.id,
        message: `no handler for "${tool.name}"; the tool was left out`,
      })
      return false
    }
    handlers.set(tool.id, handler)
    return true
  })
  const backend = defineBackend({
    name: options.name ?? namespace,
    kind: "anthropic-tools",
    toolSchemas: () => tools,
    execute: async (call, ctx) => {
      const handler = handlers.get(call.toolId)
      if (handler === undefined)
        throw new ToolNotFound({ toolId: call.toolId, suggestions: [...handlers.keys()].slice(0, 3) })
      return toToolResult(await handler(call.arguments, ctx))
    },
    requiresApproval: options.requiresApproval ?? (() => true),
  })
  return { backend, warnings }
}
