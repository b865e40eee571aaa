/**
 * Import: Gemini function declarations to canonical tools (their OpenAPI-subset `parameters` turned
 * into JSON Schema, or `parametersJsonSchema` as it is), and a backend that serves such declarations
 * with handlers you supply.
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
  isJsonObject,
  isToolError,
  type JsonSchema,
  makeTool,
  setOwn,
  type Tool,
  ToolNotFound,
  toToolResult,
} from "@toolplane/foundation"

/**
 * A Gemini function declaration as it appears in a request (structurally `FunctionDeclaration`).
 *
 * @since 0.1.0
 */
export interface FunctionDeclarationInput {
  readonly name?: string | undefined
  readonly description?: string | null | undefined
  readonly parameters?: unknown
  readonly parametersJsonSchema?: unknown
}

/**
 * Options of {@link fromFunctionDeclaration}.
 *
 * @since 0.1.0
 */
export interface ImportOptions {
  /** Namespace of the imported tools. Default `"gemini"`. */
  readonly namespace?: string
}

const COUNTS = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"]

/**
 * Converts a Gemini `Schema` (OpenAPI subset: upper-case `type`, `nullable`, `format: "enum"`, counts
 * as strings, `example`) to JSON Schema 2020-12.
 *
 * @example
 * ```ts
 * geminiSchemaToJsonSchema({ type: "STRING", nullable: true, format: "enum", enum: ["a", "b"] })
 * // { type: ["string", "null"], enum: ["a", "b", null] }
 * ```
 * @since 0.1.0
 */
export const geminiSchemaToJsonSchema = (schema: unknown): JsonSchema => {
  if (!isJsonObject(schema)) return {}
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (value === null || value === undefined) continue
    switch (key) {
      case "type":
        if (typeof value === "string" && value !== "TYPE_UNSPECIFIED") out.type = value.toLowerCase()
        break
      case "nullable":
      case "propertyOrdering":
        break
      case "format":
        if (value !== "enum") out.format = value
        break
      case "example":
        out.examples = [value]
        break
      case "properties":
        if (isJsonObject(value))
          out.properties = Object.fromEntries(
            Object.entries(value).map(([k, v]) => [k, geminiSchemaToJsonSchema(v)]),
          )
        break
      case "items":
        out.items = geminiSchemaToJsonSchema(value)
        break
      case "anyOf":
        if (Array.isArray(value)) out.anyOf = value.map(geminiSchemaToJsonSchema)
        break
      default:
        setOwn(
          out,
          key,
          COUNTS.includes(key) && typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value,
        )
    }
  }
  if (schema.nullable === true) {
    if (typeof out.type === "string" && out.type !== "null") out.type = [out.type, "null"]
    else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: "null" }]
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
  }
  return out as JsonSchema
}

/**
 * Converts one function declaration to a canonical tool with id `namespace/name`. Fails with
 * `ConversionFailed` when it has no name or its parameters are not an object schema.
 *
 * @since 0.1.0
 */
export const fromFunctionDeclaration = (
  native: FunctionDeclarationInput,
  options: ImportOptions = {},
): Tool => {
  const namespace = options.namespace ?? "gemini"
  const name = typeof native?.name === "string" ? native.name : ""
  const id = `${namespace}/${name}`
  const fail = (reason: string): never => {
    throw new ConversionFailed({ toolId: id, adapter: "gemini", reason })
  }
  if (name === "") fail("the declaration has no name")
  const inputSchema: JsonSchema =
    native.parametersJsonSchema !== undefined && native.parametersJsonSchema !== null
      ? (native.parametersJsonSchema as JsonSchema)
      : native.parameters !== undefined && native.parameters !== null
        ? geminiSchemaToJsonSchema(native.parameters)
        : EMPTY_INPUT_SCHEMA
  try {
    return makeTool({
      id,
      ...(typeof native.description === "string" && native.description !== ""
        ? { description: native.description }
        : {}),
      inputSchema,
      metadata: { gemini: { name } },
    })
  } catch (error) {
    return fail(isToolError(error) ? error.message : String(error))
  }
}

/**
 * Converts function declarations, or Gemini tools holding them (`{ functionDeclarations }`). Other
 * Gemini tools (Google Search, code execution, ...) and declarations that fail to convert are skipped
 * with a warning instead of failing the whole list.
 *
 * @since 0.1.0
 */
export const fromFunctionDeclarations = (
  natives: readonly unknown[],
  options: ImportOptions = {},
): { tools: Tool[]; warnings: FeatureLossWarning[] } => {
  const tools: Tool[] = []
  const warnings: FeatureLossWarning[] = []
  const one = (native: unknown, path: string) => {
    try {
      tools.push(fromFunctionDeclaration(native as FunctionDeclarationInput, options))
    } catch (error) {
      warnings.push({
        feature: "tool",
        path,
        from: "gemini",
        to: "canonical",
        message: (error as Error).message,
        ...(error instanceof ConversionFailed ? { toolId: error.toolId } : {}),
      })
    }
  }
  natives.forEach((native, i) => {
    if (isJsonObject(native) && Array.isArray(native.functionDeclarations)) {
      for (const [j, d] of native.functionDeclarations.entries()) one(d, `/${i}/functionDeclarations/${j}`)
      const others = Object.keys(native).filter((k) => k !== "functionDeclarations")
      for (const k of others)
        warnings.push({
          feature: `tool:${k}`,
          path: `/${i}/${k}`,
          from: "gemini",
          to: "canonical",
          message: `"${k}" is not a function tool and was skipped`,
        })
    } else if (isJsonObject(native) && typeof native.name !== "string") {
      const kind = Object.keys(native)[0] ?? "unknown"
      warnings.push({
        feature: `tool:${kind}`,
        path: `/${i}`,
        from: "gemini",
        to: "canonical",
        message: `"${kind}" is not a function declaration and was skipped`,
      })
    } else one(native, `/${i}`)
  })
  return { tools, warnings }
}

/**
 * A handler for an imported declaration: receives the arguments (validated by the runner) and the
 * execution context; returns anything `toToolResult` accepts.
 *
 * @since 0.1.0
 */
export type FunctionHandler = (args: Readonly<Record<string, unknown>>, context: ExecutionContext) => unknown

/**
 * Options of {@link functionDeclarationsBackend}.
 *
 * @since 0.1.0
 */
export interface FunctionDeclarationsBackendOptions extends ImportOptions {
  /** Function declarations or Gemini tools holding them. */
  readonly declarations: readonly unknown[]
  /** One handler per function, by name. A declaration without a handler is left out, with a warning. */
  readonly handlers: Readonly<Record<string, FunctionHandler>>
  /** Backend name. Default: the namespace. */
  readonly name?: string
  /** Which tools need approval before they run. Default: all (safe by default). */
  readonly requiresApproval?: (toolId: string) => boolean
}

/**
 * A Toolplane backend serving existing Gemini function declarations with the handlers you supply, so
 * they run through the runner's pipeline and can be exported anywhere. Returns the backend and the
 * import's warnings.
 *
 * @since 0.1.0
 */
export const functionDeclarationsBackend = (
  options: FunctionDeclarationsBackendOptions,
): { backend: Backend; warnings: FeatureLossWarning[] } => {
  const namespace = options.namespace ?? "gemini"
  const imported = fromFunctionDeclarations(options.declarations, { namespace })
  const warnings = [...imported.warnings]
  const handlers = new Map<string, FunctionHandler>()
  const tools = imported.tools.filter((tool) => {
    const handler = Object.hasOwn(options.handlers, tool.name) ? options.handlers[tool.name] : undefined
    if (typeof handler !== "function") {
      warnings.push({
        feature: "handler",
        path: "/handlers",
        from: "gemini",
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
    kind: "gemini-functions",
    toolSchemas: () => tools,
    execute: async (call, ctx) => {
      const handler = handlers.get(call.toolId)
      if (handler === undefined) throw new ToolNotFound({ toolId: call.toolId, suggestions: [] })
      return toToolResult(await handler(call.arguments, ctx))
    },
    requiresApproval: options.requiresApproval ?? (() => true),
  })
  return { backend, warnings }
}
