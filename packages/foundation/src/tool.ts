/**
 * The canonical tool: protocol-neutral, serializable data. Every backend produces it and every adapter
 * converts from it.
 *
 * @since 0.1.0
 */
import type { JsonSchema } from "./jsonSchema.js"
import { InvalidTool } from "./toolError.js"
import { checkName, checkNamespace, parseToolId } from "./toolId.js"
import { compileJsonSchema } from "./validator.js"

/**
 * Behaviour hints (MCP tool annotations). Hints, not guarantees: never trust them from an untrusted
 * server for security decisions.
 *
 * @since 0.1.0
 */
export interface ToolAnnotations {
  readonly title?: string
  /** The tool does not modify its environment. */
  readonly readOnlyHint?: boolean
  /** The tool may perform destructive updates (meaningful when not read-only). */
  readonly destructiveHint?: boolean
  /** Calling it again with the same arguments has no additional effect. */
  readonly idempotentHint?: boolean
  /** The tool talks to an open world of external entities (web, APIs). */
  readonly openWorldHint?: boolean
}

/**
 * A tool, canonical form.
 *
 * @since 0.1.0
 */
export interface Tool {
  /** `namespace/name`. */
  readonly id: string
  readonly namespace: string
  readonly name: string
  /** Semantic version of the tool's contract. */
  readonly version?: string
  readonly title?: string
  readonly description?: string
  /** JSON Schema (2020-12) of the arguments; always an object schema. */
  readonly inputSchema: JsonSchema
  /** JSON Schema of `structuredContent`, when the tool declares one. */
  readonly outputSchema?: JsonSchema
  readonly annotations?: ToolAnnotations
  /** Normalized tags (see {@link normalizeTag}). */
  readonly tags?: readonly string[]
  readonly category?: string
  /** Intent examples: queries a user might ask that this tool answers. Used by search. */
  readonly intents?: readonly string[]
  /** Example argument objects, each valid against `inputSchema`. */
  readonly exampleArgs?: readonly Readonly<Record<string, unknown>>[]
  /** Default timeout for a call, when the caller gives no deadline. */
  readonly timeoutMs?: number
  /** The tool returns pages with continuation cursors. */
  readonly paginated?: boolean
  readonly metadata?: Readonly<Record<string, unknown>>
}

/**
 * How a tool is named in a spec: a full `id`, or `namespace` and `name`.
 *
 * @since 0.1.0
 */
export type ToolIdentity =
  | { readonly id: string; readonly namespace?: string; readonly name?: string }
  | { readonly id?: never; readonly namespace: string; readonly name: string }

/**
 * The descriptive fields of a tool (everything but identity and schemas).
 *
 * @since 0.1.0
 */
export type ToolFields = Omit<Tool, "id" | "namespace" | "name" | "inputSchema" | "outputSchema">

/**
 * The input of {@link makeTool}: a tool with `id` (or `namespace` + `name`) and an optional input schema
 * (an empty object schema when omitted).
 *
 * @since 0.1.0
 */
export type ToolSpec = ToolFields &
  ToolIdentity & {
    readonly inputSchema?: JsonSchema
    readonly outputSchema?: JsonSchema
  }

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/

/**
 * Normalizes a tag: trimmed, lower-case, runs of whitespace and `_` become `-`, characters outside
 * `a-z 0-9 - : .` dropped, dashes collapsed and trimmed. Idempotent.
 *
 * @example
 * ```ts
 * normalizeTag("  Read Only_Tools ") // "read-only-tools"
 * ```
 * @since 0.1.0
 */
export const normalizeTag = (tag: string): string =>
  tag
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[\s_]+/g, "-")
    .replace(/[^a-z0-9:.-]/g, "")
    .replace(/-{2,}/g, "-")
    .replace(/^[-.:]+|[-.:]+$/g, "")

/**
 * Normalizes tags, drops empty ones and duplicates, keeps first-seen order.
 *
 * @since 0.1.0
 */
export const normalizeTags = (tags: Iterable<string>): string[] => {
  const seen = new Set<string>()
  for (const tag of tags) {
    const n = normalizeTag(tag)
    if (n !== "") seen.add(n)
  }
  return [...seen]
}

/** @since 0.1.0 */
export const EMPTY_INPUT_SCHEMA: JsonSchema = Object.freeze({ type: "object", properties: {} })

const isObjectSchema = (schema: JsonSchema): boolean => {
  if (schema.type === "object") return true
  if (Array.isArray(schema.type)) return false
  return schema.type === undefined && (schema.properties !== undefined || schema.$ref !== undefined)
}

/**
 * Builds a validated, normalized {@link Tool}. Fails with {@link InvalidTool} naming the field at fault:
 * a bad id, a non-semver version, an input schema that is not an object schema or does not compile,
 * example arguments that do not match the schema, a non-positive timeout. Fields that are `null` (as
 * servers send them on the wire: `annotations: null`, `title: null`, a `null` hint) count as absent.
 *
 * @since 0.1.0
 */
export const makeTool = (input: ToolSpec): Tool => {
  const spec = withoutNulls(input)
  const { namespace, name } =
    "id" in spec && spec.id !== undefined
      ? parseToolId(spec.id)
      : checkParts(spec as { namespace: string; name: string })
  const id = `${namespace}/${name}`
  if (spec.id !== undefined && (spec.namespace ?? namespace) !== namespace)
    throw new InvalidTool({
      toolId: id,
      path: "namespace",
      reason: `"${spec.namespace}" disagrees with the id`,
    })
  if (spec.id !== undefined && (spec.name ?? name) !== name)
    throw new InvalidTool({ toolId: id, path: "name", reason: `"${spec.name}" disagrees with the id` })
  const fail = (path: string, reason: string): never => {
    throw new InvalidTool({ toolId: id, path, reason })
  }
  if (spec.version !== undefined && !SEMVER.test(spec.version))
    fail("version", `"${spec.version}" is not a semantic version (e.g. 1.2.0)`)
  const inputSchema = spec.inputSchema ?? EMPTY_INPUT_SCHEMA
  if (typeof inputSchema !== "object" || inputSchema === null || Array.isArray(inputSchema))
    fail("inputSchema", "must be a JSON Schema object")
  if (!isObjectSchema(inputSchema))
    fail(
      "inputSchema",
      `must describe an object (type "object"), got type ${JSON.stringify(inputSchema.type)}`,
    )
  const validator = compileJsonSchema(inputSchema, id)
  if (spec.outputSchema !== undefined) {
    if (!isObjectSchema(spec.outputSchema)) fail("outputSchema", 'must describe an object (type "object")')
    try {
      compileJsonSchema(spec.outputSchema, id)
    } catch (error) {
      fail("outputSchema", (error as InvalidTool).reason)
    }
  }
  if (spec.timeoutMs !== undefined && !(spec.timeoutMs > 0 && Number.isFinite(spec.timeoutMs)))
    fail("timeoutMs", `must be a positive number of milliseconds, got ${spec.timeoutMs}`)
  spec.exampleArgs?.forEach((example, i) => {
    const result = validator.validate(example)
    if (!("ok" in result) || !result.ok) {
      const first = "issues" in result ? result.issues[0] : undefined
      fail(
        `exampleArgs[${i}]`,
        `does not match inputSchema${first ? `: at ${first.path || "/"} ${first.message}` : ""}`,
      )
    }
  })
  const tags = spec.tags ? normalizeTags(spec.tags) : undefined
  const intents = spec.intents?.map((s) => s.trim()).filter((s) => s.length > 0)
  const tool: Tool = {
    ...stripIdentity(spec),
    id,
    namespace,
    name,
    inputSchema,
    ...(tags ? { tags } : {}),
    ...(intents ? { intents } : {}),
  }
  return tool
}

/** The spec without `null` fields (top level and inside `annotations`); an emptied `annotations` goes too. */
const withoutNulls = (spec: ToolSpec): ToolSpec => {
  const fields = spec as unknown as Record<string, unknown>
  let annotations = fields.annotations
  if (annotations !== null && typeof annotations === "object" && Object.values(annotations).includes(null)) {
    annotations = Object.fromEntries(Object.entries(annotations).filter(([, v]) => v !== null))
  }
  const emptyAnnotations =
    annotations !== fields.annotations && Object.keys(annotations as object).length === 0
  if (!Object.values(fields).includes(null) && annotations === fields.annotations && !emptyAnnotations)
    return spec
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(fields)) if (v !== null) out[k] = v
  if (annotations === null || emptyAnnotations) delete out.annotations
  else if (annotations !== undefined) out.annotations = annotations
  return out as unknown as ToolSpec
}

const checkParts = (parts: { namespace: string; name: string }): { namespace: string; name: string } => {
  const problem = checkNamespace(parts.namespace) ?? checkName(parts.name)
  if (problem !== undefined)
    throw new InvalidTool({ toolId: `${parts.namespace}/${parts.name}`, path: "id", reason: problem })
  return parts
}

const stripIdentity = (spec: ToolSpec): Omit<Tool, "id" | "namespace" | "name" | "inputSchema"> => {
  const {
    id: _id,
    namespace: _ns,
    name: _name,
    inputSchema: _in,
    ...rest
  } = spec as ToolSpec & {
    id?: string
    namespace?: string
    name?: string
  }
  return rest
}

/**
 * The same tool under another id (used by aliasing and namespacing).
 *
 * @since 0.1.0
 */
export const renameTool = (tool: Tool, id: string): Tool => {
  const { namespace, name } = parseToolId(id)
  return { ...tool, id, namespace, name }
}

const nonEmptyText = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined

/**
 * The text a model reads about a tool: its `description`, else its `title`, else its annotations'
 * `title`, else `undefined`. Empty strings and `null` (as some MCP servers send them) count as absent.
 * Every protocol adapter describes a tool with this, so a tool reads the same to every model.
 *
 * @example
 * ```ts
 * import { makeTool, toolDescription } from "@toolplane/foundation"
 *
 * const tool = makeTool({ id: "crm/find", description: "", annotations: { title: "Find a customer" } })
 * console.log(toolDescription(tool)) // "Find a customer"
 * ```
 *
 * @since 0.1.0
 */
export const toolDescription = (tool: Tool): string | undefined => {
  const annotations: unknown = tool.annotations
  return (
    nonEmptyText(tool.description) ??
    nonEmptyText(tool.title) ??
    (typeof annotations === "object" && annotations !== null
      ? nonEmptyText((annotations as { readonly title?: unknown }).title)
      : undefined)
  )
}

/**
 * Orders tools by id (the deterministic listing order everywhere in Toolplane).
 *
 * @since 0.1.0
 */
export const byId = (a: { readonly id: string }, b: { readonly id: string }): number =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : 0
