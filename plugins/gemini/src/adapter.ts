/**
 * Export: canonical tools to Gemini function declarations (`{ name, description, parameters }`, for
 * `tools: [{ functionDeclarations }]`), with reversible names, the OpenAPI-subset schema Gemini accepts
 * and feature-loss warnings. One bad tool never fails the set: it is degraded or skipped with a warning.
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
import { fromFunctionDeclaration } from "./import.js"
import { GEMINI_NAME_RULES, type ToolNameMap } from "./names.js"
import { type ArgumentShape, type GeminiSchema, toGeminiArguments, toGeminiSchema } from "./schema.js"

/**
 * A Gemini function declaration (assignable to the `@google/genai` package's `FunctionDeclaration`).
 *
 * @since 0.1.0
 */
export interface GeminiFunctionDeclaration {
  name: string
  description?: string
  /** The OpenAPI-subset schema (`schema: "openapi"`, the default). */
  parameters?: GeminiSchema
  /** The JSON Schema (`schema: "jsonSchema"`). */
  parametersJsonSchema?: unknown
}

/**
 * Options of {@link toGeminiTools}.
 *
 * @since 0.1.0
 */
export interface GeminiToolsOptions {
  /**
   * - `"openapi"` (default): `parameters` in the documented OpenAPI subset, converted (see
   *   `toGeminiSchema`); works with every Gemini model and Vertex AI.
   * - `"jsonSchema"`: `parametersJsonSchema`, the JSON Schema itself (normalised), for models that
   *   accept JSON Schema for function parameters (served by the `v1beta` API surface); keeps `$ref`,
   *   unions and bounds.
   */
  readonly schema?: "openapi" | "jsonSchema"
}

/**
 * How one tool was exported: its id, Gemini name, the canonical tool and the shape that restores its
 * arguments. {@link runToolCalls} uses it to route calls.
 *
 * @since 0.1.0
 */
export interface ExportedTool {
  readonly id: string
  readonly name: string
  readonly tool: Tool
  readonly shape: ArgumentShape
}

/**
 * The result of {@link toGeminiTools}: the declarations, the same wrapped as one Gemini `Tool`
 * (`{ functionDeclarations }`), every feature-loss warning, the name map and what was exported per name.
 *
 * @since 0.1.0
 */
export interface GeminiToolSet {
  readonly declarations: GeminiFunctionDeclaration[]
  /** `{ functionDeclarations }`: put it in `config.tools`. */
  readonly tool: { functionDeclarations: GeminiFunctionDeclaration[] }
  readonly warnings: FeatureLossWarning[]
  readonly names: ToolNameMap
  /** Exported tools by Gemini name. */
  readonly byName: ReadonlyMap<string, ExportedTool>
}

const TARGET = "gemini"

const warn = (toolId: string, feature: string, path: string, message: string): FeatureLossWarning => ({
  feature,
  path,
  from: "canonical",
  to: TARGET,
  toolId,
  message,
})

const IDENTITY: ArgumentShape = { kind: "value" }

/**
 * Exports canonical tools as Gemini function declarations. Never throws for one bad tool: what the
 * schema subset cannot express is degraded with a warning (see `toGeminiSchema`); a tool whose input
 * schema is not an object is skipped with a warning; lossy renames (`"name"`), `annotations` and
 * `outputSchema` are warnings. Null fields (`description`, `title`, `annotations`) count as absent.
 *
 * @example
 * ```ts
 * import { GoogleGenAI } from "@google/genai"
 *
 * const ai = new GoogleGenAI({ apiKey: process.env.GEMINI_API_KEY })
 * const set = toGeminiTools(await listAllTools(service))
 * await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "Weather in Oslo?", config: { tools: [set.tool] } })
 * ```
 * @since 0.1.0
 */
export const toGeminiTools = (tools: readonly Tool[], options: GeminiToolsOptions = {}): GeminiToolSet => {
  const mode = options.schema ?? "openapi"
  const { entries, names, warnings } = planToolExport(tools, {
    to: TARGET,
    nameRules: GEMINI_NAME_RULES,
    nameRule: 'Gemini names allow only [a-zA-Z0-9_-], starting with a letter or "_", at most 64 characters',
    objectSchemasOnly: true,
    unsupported: {
      annotations: "Gemini function declarations have no annotations (hints)",
      outputSchema: "the output schema is not exported",
    },
  })
  const declarations: GeminiFunctionDeclaration[] = []
  const byName = new Map<string, ExportedTool>()
  for (const { tool, name, warnings: about } of entries) {
    warnings.push(...about)
    const description = toolDescription(tool)
    const declaration: GeminiFunctionDeclaration = {
      name,
      ...(description !== undefined ? { description } : {}),
    }
    let shape: ArgumentShape = IDENTITY
    if (mode === "jsonSchema") {
      const { schema, changes } = normalizeJsonSchema(tool.inputSchema)
      for (const c of changes) warnings.push(warn(tool.id, c.keyword, `/inputSchema${c.path}`, c.message))
      const { $schema: _s, ...rest } = schema as Record<string, unknown>
      const examples = (tool.exampleArgs ?? []).filter((e) => isJsonObject(e))
      declaration.parametersJsonSchema = {
        ...rest,
        type: "object",
        ...(examples.length > 0 && rest.examples === undefined ? { examples } : {}),
      }
    } else {
      const result = toGeminiSchema(tool.inputSchema)
      for (const l of result.losses)
        warnings.push(warn(tool.id, l.feature, `/inputSchema${l.path}`, l.message))
      shape = result.shape
      if (result.schema !== undefined) {
        const example = tool.exampleArgs?.find((e) => isJsonObject(e))
        declaration.parameters =
          example !== undefined && result.schema.example === undefined
            ? { ...result.schema, example: toGeminiArguments(shape, example) }
            : result.schema
        if ((tool.exampleArgs?.length ?? 0) > 1)
          warnings.push(
            warn(
              tool.id,
              "exampleArgs",
              "/exampleArgs",
              "Gemini schemas take one example; the first was kept",
            ),
          )
      }
    }
    declarations.push(declaration)
    byName.set(name, { id: tool.id, name, tool, shape })
  }
  return { declarations, tool: { functionDeclarations: declarations }, warnings, names, byName }
}

/**
 * The adapter contract. `fromCanonical` converts one tool on its own (its name mapped as a set of one);
 * use {@link toGeminiTools} for sets, where names must be unique. A tool that cannot be exported at all
 * fails with `ConversionFailed`; `toCanonical` is {@link fromFunctionDeclaration}.
 *
 * @since 0.1.0
 */
export const geminiAdapter = (options: GeminiToolsOptions = {}): Adapter<GeminiFunctionDeclaration> => ({
  name: TARGET,
  toCanonical: (native) => fromFunctionDeclaration(native),
  fromCanonical: (tool): Conversion<GeminiFunctionDeclaration> => {
    const set = toGeminiTools([tool], options)
    const value = set.declarations[0]
    if (value === undefined)
      throw new ConversionFailed({
        toolId: tool.id,
        adapter: TARGET,
        reason: set.warnings.find((w) => w.feature === "inputSchema")?.message ?? "cannot be exported",
      })
    return { value, warnings: set.warnings }
  },
  supportsFeature: (feature) =>
    options.schema === "jsonSchema"
      ? feature !== "outputSchema" && feature !== "annotations"
      : !UNSUPPORTED.has(feature) &&
        !(feature.startsWith("format:") && !SUPPORTED_FORMATS.has(feature.slice(7))),
})

const UNSUPPORTED = new Set([
  "outputSchema",
  "annotations",
  "$ref",
  "$defs",
  "definitions",
  "oneOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "const",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "uniqueItems",
  "additionalProperties",
  "patternProperties",
  "prefixItems",
  "contains",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
])
const SUPPORTED_FORMATS = new Set(["float", "double", "int32", "int64", "enum", "date-time"])
