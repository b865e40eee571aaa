/**
 * The MCP adapter: canonical {@link Tool} ↔ MCP tool shape (`tools/list` entries), with feature-loss
 * warnings for everything MCP cannot carry.
 *
 * MCP carries name, title, description, input and output schemas, annotations, `_meta`, `icons` and
 * `execution`. Toolplane-only fields (version, tags, category, intents, exampleArgs, timeoutMs,
 * paginated, other metadata) travel in `_meta["toolplane.dev/tool"]` by default, so a Toolplane client
 * rebuilds the tool exactly while other clients ignore them; with `extensions: false` they are dropped
 * and each drop is reported as a {@link FeatureLossWarning}.
 *
 * @since 0.1.0
 */

import type { Tool as McpToolType } from "@modelcontextprotocol/server"
import {
  type Adapter,
  type Conversion,
  ConversionFailed,
  checkName,
  checkNamespace,
  type FeatureLossWarning,
  isToolId,
  type JsonSchema,
  makeTool,
  NAME_MAX_LENGTH,
  normalizeJsonSchema,
  type Tool,
  type ToolAnnotations,
  type ToolSpec,
  unsupportedFeatures,
} from "@toolplane/foundation"

/**
 * An MCP tool, as listed by `tools/list`.
 *
 * @since 0.1.0
 */
export type McpTool = McpToolType

/**
 * `_meta` key of a tool carrying Toolplane-only fields (`{ id, version, tags, ... }`).
 *
 * @since 0.1.0
 */
export const TOOL_META_KEY = "toolplane.dev/tool"

/**
 * `_meta` key of an `isError` result (and `data` key of a JSON-RPC error) carrying the typed error's
 * JSON (`toolErrorToJson`), so a Toolplane client rebuilds the same error class.
 *
 * @since 0.1.0
 */
export const ERROR_META_KEY = "toolplane.dev/error"

/**
 * `_meta` key of a `tools/call` request carrying a continuation cursor of a paginated tool.
 *
 * @since 0.1.0
 */
export const CURSOR_META_KEY = "toolplane.dev/cursor"

/**
 * `_meta` key of a `tools/call` result carrying the next continuation cursor of a paginated tool.
 *
 * @since 0.1.0
 */
export const NEXT_CURSOR_META_KEY = "toolplane.dev/nextCursor"

/**
 * How canonical ids become MCP tool names:
 * - `"dotted"` (default): `namespace.name`. Reversible (namespaces have no `.`) and inside the MCP
 *   tool-name alphabet (`A-Z a-z 0-9 _ - .`).
 * - `"id"`: the id itself, `namespace/name` (`/` is outside the recommended MCP alphabet; warns).
 * - `"name"`: the bare name. Not reversible on its own: the server maps names back through the
 *   service's listing, and two namespaces with the same name collide.
 * - a custom pair of functions.
 *
 * @since 0.1.0
 */
export type McpNaming =
  | "dotted"
  | "id"
  | "name"
  | {
      readonly toMcp: (tool: Tool) => string
      /** The canonical id for an MCP name, or `undefined` to look it up in the listing. */
      readonly fromMcp?: (name: string) => string | undefined
    }

/**
 * Options of {@link mcpAdapter}.
 *
 * @since 0.1.0
 */
export interface McpAdapterOptions {
  /** Namespace given to tools converted to canonical form. Default `"mcp"`. */
  readonly namespace?: string
  /** How canonical ids become MCP names. Default `"dotted"`. */
  readonly naming?: McpNaming
  /** Carry Toolplane-only fields in `_meta["toolplane.dev/tool"]`. Default `true`. */
  readonly extensions?: boolean
}

const MCP_NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/

/**
 * The MCP name of a canonical tool under a naming policy.
 *
 * @since 0.1.0
 */
export const mcpToolName = (tool: Pick<Tool, "id" | "namespace" | "name">, naming: McpNaming = "dotted") => {
  if (naming === "dotted") return `${tool.namespace}.${tool.name}`
  if (naming === "id") return tool.id
  if (naming === "name") return tool.name
  return naming.toMcp(tool as Tool)
}

/**
 * The canonical id for an MCP name when the naming policy can compute it without a listing
 * (`"dotted"`, `"id"`, or a custom `fromMcp`); `undefined` otherwise or when the name is malformed.
 *
 * @since 0.1.0
 */
export const canonicalIdOf = (mcpName: string, naming: McpNaming = "dotted"): string | undefined => {
  if (naming === "dotted") {
    const dot = mcpName.indexOf(".")
    if (dot <= 0) return undefined
    const namespace = mcpName.slice(0, dot)
    const name = mcpName.slice(dot + 1)
    return checkNamespace(namespace) === undefined && checkName(name) === undefined
      ? `${namespace}/${name}`
      : undefined
  }
  if (naming === "id") return mcpName
  if (naming === "name") return undefined
  return naming.fromMcp?.(mcpName)
}

/**
 * Makes an MCP tool name a valid canonical name: characters outside `A-Z a-z 0-9 _ - .` become `_`,
 * a bad first character gets a `_` prefix, and the result is cut to 128 characters.
 *
 * @since 0.1.0
 */
export const sanitizeToolName = (name: string): string => {
  let out = name.replace(/[^A-Za-z0-9_.-]/g, "_")
  if (out === "" || !/^[A-Za-z0-9_]/.test(out)) out = `_${out}`
  return out.slice(0, NAME_MAX_LENGTH)
}

interface ToolExtension {
  id?: string
  version?: string
  tags?: readonly string[]
  category?: string
  intents?: readonly string[]
  exampleArgs?: readonly Readonly<Record<string, unknown>>[]
  timeoutMs?: number
  paginated?: boolean
  metadata?: Readonly<Record<string, unknown>>
}

const EXTENSION_FIELDS = [
  "version",
  "tags",
  "category",
  "intents",
  "exampleArgs",
  "timeoutMs",
  "paginated",
] as const

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Converts an MCP tool to canonical form, with warnings for what had to change (a renamed tool, a
 * dropped malformed extension). Fails with `InvalidTool` when the schemas are unusable.
 *
 * @since 0.1.0
 */
export const fromMcpTool = (
  native: McpTool,
  namespace: string,
  options: { readonly useExtensionId?: boolean } = {},
): Conversion<Tool> => {
  const warnings: FeatureLossWarning[] = []
  const rawExt = isRecord(native._meta) ? native._meta[TOOL_META_KEY] : undefined
  const extId = isRecord(rawExt) && typeof rawExt.id === "string" ? rawExt.id : undefined
  if (options.useExtensionId && extId !== undefined && isToolId(extId)) {
    const slash = extId.indexOf("/")
    namespace = extId.slice(0, slash)
    const restored = fromMcpTool({ ...native, name: extId.slice(slash + 1) }, namespace)
    return restored
  }
  const name = checkName(native.name) === undefined ? native.name : sanitizeToolName(native.name)
  const id = `${namespace}/${name}`
  if (name !== native.name)
    warnings.push({
      feature: "toolName",
      path: "/name",
      from: "mcp",
      to: "canonical",
      toolId: id,
      message: `MCP tool name ${JSON.stringify(native.name)} is not a valid tool name; exposed as "${name}"`,
    })
  const { [TOOL_META_KEY]: rawExtension, ...meta } = isRecord(native._meta) ? native._meta : {}
  const extension: ToolExtension = isRecord(rawExtension) ? (rawExtension as ToolExtension) : {}
  const mcpExtras: Record<string, unknown> = {}
  if (name !== native.name) mcpExtras.name = native.name
  if (native.icons !== undefined) mcpExtras.icons = native.icons
  if (native.execution !== undefined) mcpExtras.execution = native.execution
  const metadata: Record<string, unknown> = {
    ...(isRecord(extension.metadata) ? extension.metadata : {}),
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
    ...(Object.keys(mcpExtras).length > 0 ? { mcp: mcpExtras } : {}),
  }
  let inputSchema = native.inputSchema as JsonSchema
  if (!isRecord(inputSchema) || inputSchema.type === undefined) {
    // Some servers send `{}` or omit `type`; MCP requires an object schema, so say so.
    inputSchema = { ...(isRecord(inputSchema) ? inputSchema : {}), type: "object" } as JsonSchema
    warnings.push({
      feature: "inputSchema",
      path: "/inputSchema/type",
      from: "mcp",
      to: "canonical",
      toolId: id,
      message: 'input schema had no "type"; treated as "object"',
    })
  }
  // schemas from the wild (draft-04 boolean exclusiveMinimum, draft-03 required flags, ...): rewritten
  // where the meaning is clear, so the tool is not lost to a schema that does not compile
  const normalize = (schema: JsonSchema, at: string): JsonSchema => {
    const { schema: out, changes } = normalizeJsonSchema(schema)
    for (const c of changes)
      warnings.push({
        feature: c.keyword,
        path: `${at}${c.path}`,
        from: "mcp",
        to: "canonical",
        toolId: id,
        message: c.message,
      })
    return out
  }
  inputSchema = normalize(inputSchema, "/inputSchema")
  const spec: Record<string, unknown> = { namespace, name, inputSchema }
  if (isRecord(native.outputSchema))
    spec.outputSchema = normalize(native.outputSchema as JsonSchema, "/outputSchema")
  // null fields from the wire count as absent
  const annotations = isRecord(native.annotations) ? native.annotations : undefined
  const title =
    typeof native.title === "string"
      ? native.title
      : typeof annotations?.title === "string"
        ? annotations.title
        : undefined
  if (title !== undefined) spec.title = title
  if (typeof native.description === "string") spec.description = native.description
  if (annotations !== undefined) spec.annotations = annotations as ToolAnnotations
  for (const field of EXTENSION_FIELDS) {
    if (extension[field] !== undefined) spec[field] = extension[field]
  }
  if (Object.keys(metadata).length > 0) spec.metadata = metadata
  try {
    return { value: makeTool(spec as ToolSpec), warnings }
  } catch (error) {
    // A malformed extension must not cost the tool: retry without it.
    if (EXTENSION_FIELDS.some((f) => spec[f] !== undefined)) {
      for (const field of EXTENSION_FIELDS) delete spec[field]
      const value = makeTool(spec as ToolSpec)
      warnings.push({
        feature: TOOL_META_KEY,
        path: `/_meta/${TOOL_META_KEY.replace("/", "~1")}`,
        from: "mcp",
        to: "canonical",
        toolId: id,
        message: `ignored malformed Toolplane extension: ${(error as Error).message}`,
      })
      return { value, warnings }
    }
    throw error
  }
}

/**
 * Converts a canonical tool to MCP form under a naming policy, with a warning for each feature MCP
 * cannot carry.
 *
 * @since 0.1.0
 */
export const toMcpTool = (
  tool: Tool,
  options: { readonly naming?: McpNaming; readonly extensions?: boolean } = {},
): Conversion<McpTool> => {
  const extensions = options.extensions ?? true
  const name = mcpToolName(tool, options.naming)
  const warnings: FeatureLossWarning[] = []
  const warn = (feature: string, path: string, message: string) =>
    warnings.push({ feature, path, from: "canonical", to: "mcp", toolId: tool.id, message })
  if (!MCP_NAME_RE.test(name))
    warn(
      "toolName",
      "/id",
      `MCP name ${JSON.stringify(name)} is outside the MCP tool-name alphabet (1-128 of A-Z a-z 0-9 _ - .); some clients reject it`,
    )
  const { _meta: metaField, mcp: mcpField, ...restMetadata } = tool.metadata ?? {}
  const meta: Record<string, unknown> = isRecord(metaField) ? { ...metaField } : {}
  const mcpExtras = isRecord(mcpField) ? mcpField : {}
  const extension: Record<string, unknown> = {}
  for (const field of EXTENSION_FIELDS) {
    const value = tool[field]
    if (value === undefined) continue
    if (extensions) extension[field] = value
    else warn(field, `/${field}`, `MCP tools have no "${field}"; dropped`)
  }
  if (Object.keys(restMetadata).length > 0) {
    if (extensions) extension.metadata = restMetadata
    else warn("metadata", "/metadata", "MCP tools carry no free metadata besides _meta; dropped")
  }
  if (extensions && (Object.keys(extension).length > 0 || name !== tool.id))
    meta[TOOL_META_KEY] = { id: tool.id, ...extension }
  const native: Record<string, unknown> = {
    name,
    inputSchema: tool.inputSchema,
  }
  if (tool.title !== undefined) native.title = tool.title
  if (tool.description !== undefined) native.description = tool.description
  if (tool.outputSchema !== undefined) native.outputSchema = tool.outputSchema
  if (tool.annotations !== undefined) native.annotations = tool.annotations
  if (mcpExtras.icons !== undefined) native.icons = mcpExtras.icons
  if (mcpExtras.execution !== undefined) native.execution = mcpExtras.execution
  if (Object.keys(meta).length > 0) native._meta = meta
  warnings.push(...unsupportedFeatures(tool, { name: "mcp", supportsFeature: () => true }))
  return { value: native as McpTool, warnings }
}

/**
 * The MCP {@link Adapter}: `toCanonical` restores the canonical id a Toolplane server recorded in
 * `_meta["toolplane.dev/tool"]`, and otherwise puts tools in `options.namespace`; `fromCanonical` names them
 * by `options.naming`. MCP carries any JSON Schema, so every schema feature is supported; losses come
 * from the tool's own fields (see {@link toMcpTool}).
 *
 * @example
 * ```ts
 * const adapter = mcpAdapter({ namespace: "everything" })
 * const { value, warnings } = adapter.fromCanonical(tool)
 * const back = adapter.toCanonical(value)
 * ```
 * @since 0.1.0
 */
export const mcpAdapter = (options: McpAdapterOptions = {}): Adapter<McpTool> => {
  const namespace = options.namespace ?? "mcp"
  const extensions = options.extensions ?? true
  return {
    name: "mcp",
    toCanonical: (native) => {
      if (!isRecord(native) || typeof native.name !== "string")
        throw new ConversionFailed({
          toolId: `${namespace}/?`,
          adapter: "mcp",
          reason: "an MCP tool needs a string name",
        })
      return fromMcpTool(native, namespace, { useExtensionId: true }).value
    },
    fromCanonical: (tool) => toMcpTool(tool, { naming: options.naming ?? "dotted", extensions }),
    supportsFeature: (feature) =>
      extensions || !(EXTENSION_FIELDS as readonly string[]).concat("metadata").includes(feature),
  }
}
