/**
 * JSON Schema to the schema Gemini accepts for function parameters: the documented "select subset of
 * an OpenAPI 3.0 schema object" (`Schema` of the Gemini API), reporting every change that loses
 * meaning, and the way back for the arguments a model sends.
 *
 * The rules (Gemini API reference, `Schema` and `FunctionDeclaration`):
 * - fields: `type` (one of `STRING`, `NUMBER`, `INTEGER`, `BOOLEAN`, `ARRAY`, `OBJECT`, `NULL`),
 *   `format`, `title`, `description`, `nullable`, `enum` (strings), `items`, `minItems`, `maxItems`,
 *   `minLength`, `maxLength`, `pattern`, `minimum`, `maximum`, `properties`, `required`,
 *   `minProperties`, `maxProperties`, `anyOf`, `default`, `example`; nothing else;
 * - formats: `float`/`double` for numbers, `int32`/`int64` for integers, `enum` and `date-time` for
 *   strings; others are restated in the description;
 * - property names start with a letter or `_` and use only letters, digits and `_`, at most 64
 *   characters: other names are renamed (`max-results` → `max_results`) and renamed back in the
 *   arguments before the tool runs;
 * - an `OBJECT` must have properties: a tool without parameters has none (`parameters` is left out);
 *   an object of any shape (a map), an array of anything and a value of any type are sent as a
 *   `STRING` holding JSON, parsed back before the tool runs;
 * - `$ref`/`$defs`/`definitions` are inlined; a recursive `$ref` is cut at its second occurrence (the
 *   cut part is a JSON string, as above); a remote `$ref` likewise;
 * - `type` lists become `nullable` or `anyOf`; `oneOf` becomes `anyOf` (exclusivity lost); `allOf` of
 *   compatible schemas is merged; `const` becomes a one-value `enum` for strings; enums and consts of
 *   other types, `exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`, `uniqueItems`, `examples` after
 *   the first, `not`, `if`/`then`/`else`, `patternProperties`, `dependent*`, `propertyNames`,
 *   `contains`, tuples and the rest are restated in the description or removed, with a warning.
 *
 * The runner still validates the original schema before a tool runs, so a dropped constraint is
 * enforced there and reported to the model as invalid arguments.
 *
 * @since 0.1.0
 */
import type { Type } from "@google/genai"
import {
  escapeJsonPointer,
  isJsonObject,
  type JsonSchema,
  normalizeJsonSchema,
  resolveLocalRef,
  setOwn,
} from "@toolplane/foundation"

/**
 * One change to a schema that lost meaning (or was rewritten), as a JSON pointer into the source schema.
 *
 * @since 0.1.0
 */
export interface SchemaLoss {
  readonly feature: string
  /** JSON pointer into the source schema. */
  readonly path: string
  readonly message: string
}

/**
 * A Gemini `Schema` (assignable to the `@google/genai` package's `Schema`).
 *
 * @since 0.1.0
 */
export interface GeminiSchema {
  type?: Type
  format?: string
  title?: string
  description?: string
  nullable?: boolean
  enum?: string[]
  items?: GeminiSchema
  minItems?: string
  maxItems?: string
  minLength?: string
  maxLength?: string
  pattern?: string
  minimum?: number
  maximum?: number
  properties?: Record<string, GeminiSchema>
  required?: string[]
  minProperties?: string
  maxProperties?: string
  anyOf?: GeminiSchema[]
  default?: unknown
  example?: unknown
}

/**
 * How to turn the arguments a model sends back into the arguments of the original schema (renamed
 * properties, JSON strings). Opaque; used by {@link restoreArguments}.
 *
 * @since 0.1.0
 */
export type ArgumentShape =
  | { readonly kind: "value" }
  | { readonly kind: "json" }
  | {
      readonly kind: "object"
      /** Gemini property name → source name and shape. */
      readonly properties: ReadonlyMap<string, { readonly source: string; readonly shape: ArgumentShape }>
    }
  | { readonly kind: "array"; readonly items: ArgumentShape }
  | { readonly kind: "union"; readonly branches: readonly ArgumentShape[] }

/**
 * The outcome of {@link toGeminiSchema}: the parameters (`undefined` for a tool without parameters),
 * every loss, and the shape that restores arguments.
 *
 * @since 0.1.0
 */
export interface GeminiSchemaResult {
  readonly schema: GeminiSchema | undefined
  readonly losses: readonly SchemaLoss[]
  readonly shape: ArgumentShape
}

/**
 * What Gemini accepts as a property name.
 *
 * @since 0.1.0
 */
export const GEMINI_PROPERTY_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/

/**
 * The formats Gemini documents, per type.
 *
 * @since 0.1.0
 */
export const GEMINI_FORMATS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  NUMBER: ["float", "double"],
  INTEGER: ["int32", "int64"],
  STRING: ["enum", "date-time"],
})

type Node = Record<string, unknown>
const T = (t: "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT" | "NULL") => t as Type
const VALUE: ArgumentShape = { kind: "value" }
const JSON_SHAPE: ArgumentShape = { kind: "json" }

const TYPE_KEYS = [
  "type",
  "properties",
  "items",
  "prefixItems",
  "enum",
  "const",
  "$ref",
  "anyOf",
  "oneOf",
  "allOf",
  "additionalProperties",
]

const short = (value: unknown): string => {
  const s = JSON.stringify(value)
  return s.length > 80 ? `${s.slice(0, 77)}...` : s
}

interface Ctx {
  readonly root: Node
  readonly losses: SchemaLoss[]
}

const lose = (ctx: Ctx, feature: string, path: string, message: string) =>
  ctx.losses.push({ feature, path, message })

interface Out {
  schema: GeminiSchema
  shape: ArgumentShape
}

const withNotes = (schema: GeminiSchema, notes: readonly string[]): GeminiSchema => {
  const text = notes.filter((n) => n !== "").join(" ")
  if (text === "") return schema
  return { ...schema, description: schema.description ? `${schema.description} (${text})` : text }
}

/** A JSON-encoded value: what Gemini cannot type is sent as a string the tool's arguments parse. */
const jsonString = (description: string | undefined, what: string): Out => ({
  schema: {
    type: T("STRING"),
    description: `${description ? `${description} ` : ""}(${what}, sent as JSON text)`,
  },
  shape: JSON_SHAPE,
})

const typesOf = (node: Node): string[] => {
  if (typeof node.type === "string") return [node.type]
  if (Array.isArray(node.type)) return node.type.filter((t): t is string => typeof t === "string")
  if (isJsonObject(node.properties) || node.additionalProperties !== undefined) return ["object"]
  if (node.items !== undefined || node.prefixItems !== undefined) return ["array"]
  const values = Array.isArray(node.enum) ? node.enum : "const" in node ? [node.const] : undefined
  if (values !== undefined) {
    const kinds = new Set(
      values.map((v) =>
        v === null ? "null" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v,
      ),
    )
    if (kinds.has("integer") && kinds.has("number")) kinds.delete("integer")
    return [...kinds].filter((k) => ["string", "number", "integer", "boolean", "null"].includes(k))
  }
  return []
}

const mergeAllOf = (node: Node, path: string, ctx: Ctx, refs: readonly string[] = []): Node => {
  const { allOf, ...base } = node
  const merged: Node = { ...base }
  for (const [i, raw] of (allOf as unknown[]).entries()) {
    let branch = raw
    let seen = refs
    while (isJsonObject(branch) && typeof branch.$ref === "string") {
      const { $ref, ...rest } = branch
      if (seen.includes($ref as string)) {
        branch = undefined
        break
      }
      seen = [...seen, $ref as string]
      const target = resolveLocalRef(ctx.root, $ref as string)
      branch = isJsonObject(target) ? { ...target, ...rest } : undefined
    }
    if (!isJsonObject(branch)) {
      lose(
        ctx,
        "allOf",
        `${path}/allOf/${i}`,
        "an allOf branch that is not a local, non-recursive schema was dropped",
      )
      continue
    }
    const flat = Array.isArray(branch.allOf) ? mergeAllOf(branch, `${path}/allOf/${i}`, ctx, seen) : branch
    for (const [key, value] of Object.entries(flat)) {
      if (key === "properties" && isJsonObject(value))
        merged.properties = { ...(isJsonObject(merged.properties) ? merged.properties : {}), ...value }
      else if (key === "required" && Array.isArray(value))
        merged.required = [...new Set([...((merged.required as string[]) ?? []), ...(value as string[])])]
      else if (key === "description" || key === "title") merged[key] ??= value
      else if (Object.hasOwn(merged, key) && JSON.stringify(merged[key]) !== JSON.stringify(value))
        lose(
          ctx,
          "allOf",
          `${path}/allOf/${i}/${escapeJsonPointer(key)}`,
          `allOf branches disagree on "${key}"; the first was kept`,
        )
      else setOwn(merged, key, value)
    }
  }
  return merged
}

const propertyName = (source: string, taken: ReadonlySet<string>): string => {
  let base = source.replace(/[^a-zA-Z0-9_]/g, "_")
  if (!/^[a-zA-Z_]/.test(base)) base = `_${base}`
  base = base.slice(0, 64)
  let name = base
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 64 - String(n).length - 1)}_${n}`
  return name
}

const convert = (input: unknown, path: string, ctx: Ctx, refs: readonly string[]): Out => {
  if (input === true || (isJsonObject(input) && !TYPE_KEYS.some((k) => k in input))) {
    const description =
      isJsonObject(input) && typeof input.description === "string" ? input.description : undefined
    lose(ctx, "any", path || "/", "a value of any type cannot be typed for Gemini; it is sent as JSON text")
    return jsonString(description, "any JSON value")
  }
  if (!isJsonObject(input)) {
    lose(ctx, "schema", path || "/", "a schema that accepts nothing cannot be expressed; sent as JSON text")
    return jsonString(undefined, "any JSON value")
  }
  let node: Node = input
  // $ref: inline (cut recursion)
  for (let hops = 0; typeof node.$ref === "string"; hops++) {
    const ref = node.$ref
    const { $ref: _r, ...siblings } = node
    const description = typeof siblings.description === "string" ? siblings.description : undefined
    if (!ref.startsWith("#")) {
      lose(
        ctx,
        "$ref",
        `${path}/$ref`,
        `remote $ref "${ref}" cannot be inlined; the value is sent as JSON text`,
      )
      return jsonString(description, `a value of ${ref}`)
    }
    if (refs.includes(ref) || hops > 32) {
      lose(
        ctx,
        "$ref",
        `${path}/$ref`,
        `recursive $ref "${ref}" was cut here; the nested value is sent as JSON text`,
      )
      return jsonString(description, `a nested ${ref.split("/").pop() || "value"}`)
    }
    const target = resolveLocalRef(ctx.root, ref)
    if (!isJsonObject(target)) {
      lose(ctx, "$ref", `${path}/$ref`, `$ref "${ref}" does not resolve; the value is sent as JSON text`)
      return jsonString(description, "any JSON value")
    }
    refs = [...refs, ref]
    node = { ...target, ...siblings }
  }
  if (Array.isArray(node.allOf)) node = mergeAllOf(node, path, ctx, refs)
  if (Array.isArray(node.oneOf)) {
    const { oneOf, ...rest } = node
    if (Array.isArray(rest.anyOf)) {
      lose(ctx, "oneOf", `${path}/oneOf`, "oneOf next to anyOf was removed (the tool still validates it)")
      node = rest
    } else {
      lose(ctx, "oneOf", `${path}/oneOf`, "oneOf became anyOf: exactly-one is now at-least-one")
      node = { ...rest, anyOf: oneOf }
    }
  }
  const notes: string[] = []
  const common: GeminiSchema = {}
  if (typeof node.title === "string") common.title = node.title
  if (typeof node.description === "string") common.description = node.description
  if (node.default !== undefined) common.default = node.default
  if (Array.isArray(node.examples) && node.examples.length > 0) {
    common.example = node.examples[0]
    if (node.examples.length > 1)
      lose(ctx, "examples", `${path}/examples`, "Gemini takes one example; the first was kept")
  }
  for (const [key, value] of Object.entries(node)) {
    const at = `${path}/${escapeJsonPointer(key)}`
    switch (key) {
      case "not":
      case "if":
      case "then":
      case "else":
      case "patternProperties":
      case "dependentRequired":
      case "dependentSchemas":
      case "dependencies":
      case "propertyNames":
      case "contains":
      case "minContains":
      case "maxContains":
      case "unevaluatedProperties":
      case "unevaluatedItems":
      case "readOnly":
      case "writeOnly":
      case "deprecated":
      case "contentEncoding":
      case "contentMediaType":
        lose(
          ctx,
          key,
          at,
          `"${key}" is not supported by Gemini and was removed (the tool still validates it)`,
        )
        break
      case "uniqueItems":
        if (value === true) {
          notes.push("Items must be unique.")
          lose(ctx, key, at, "uniqueItems is not supported by Gemini and was restated in the description")
        }
        break
      case "multipleOf":
        notes.push(`A multiple of ${String(value)}.`)
        lose(ctx, key, at, "multipleOf is not supported by Gemini and was restated in the description")
        break
    }
  }
  // constraint-only unions ({ anyOf: [{ required: [a] }, { required: [b] }] }) say nothing about types
  let branches = Array.isArray(node.anyOf) ? (node.anyOf as unknown[]) : undefined
  if (branches?.every((b) => isJsonObject(b) && !TYPE_KEYS.some((k) => k in b))) {
    lose(
      ctx,
      "anyOf",
      `${path}/anyOf`,
      "a union of constraints only was removed (the tool still validates it)",
    )
    branches = undefined
  }
  if (branches !== undefined) {
    const { anyOf: _a, title: _t, description: _d, default: _f, examples: _e, ...shared } = node
    const nonNull = branches.filter(
      (b) => !(isJsonObject(b) && (b.type === "null" || (b.const === null && !("type" in b)))),
    )
    const nullable = nonNull.length < branches.length
    const all = branches
    const outs = nonNull.map((b) =>
      convert(isJsonObject(b) ? { ...shared, ...b } : b, `${path}/anyOf/${all.indexOf(b)}`, ctx, refs),
    )
    if (outs.length === 0) return { schema: { ...common, type: T("NULL") }, shape: VALUE }
    if (outs.length === 1) {
      const only = outs[0]!
      return {
        schema: withNotes({ ...only.schema, ...common, ...(nullable ? { nullable: true } : {}) }, notes),
        shape: only.shape,
      }
    }
    return {
      schema: withNotes(
        { ...common, anyOf: outs.map((o) => o.schema), ...(nullable ? { nullable: true } : {}) },
        notes,
      ),
      shape: { kind: "union", branches: outs.map((o) => o.shape) },
    }
  }
  const types = typesOf(node)
  const nullable = types.includes("null")
  const concrete = types.filter((t) => t !== "null")
  if (concrete.length === 0) {
    if (nullable) return { schema: withNotes({ ...common, type: T("NULL") }, notes), shape: VALUE }
    lose(ctx, "any", path || "/", "a value of any type cannot be typed for Gemini; it is sent as JSON text")
    return { ...jsonString(common.description, "any JSON value") }
  }
  if (concrete.length > 1) {
    const outs = concrete.map((t) => convert({ ...node, type: t }, path, ctx, refs))
    return {
      schema: withNotes(
        { ...common, anyOf: outs.map((o) => o.schema), ...(nullable ? { nullable: true } : {}) },
        notes,
      ),
      shape: { kind: "union", branches: outs.map((o) => o.shape) },
    }
  }
  const type = concrete[0]!
  const out: GeminiSchema = { ...common }
  if (nullable) out.nullable = true
  let shape: ArgumentShape = VALUE
  const values = Array.isArray(node.enum) ? node.enum : "const" in node ? [node.const] : undefined
  const enumValues = values?.filter((v) => v !== null)
  if (values?.includes(null)) out.nullable = true
  const bound = (keyword: string, into: "minimum" | "maximum", note: string) => {
    const v = node[keyword]
    if (typeof v !== "number") return
    if (out[into] === undefined) out[into] = v
    notes.push(`${note} ${v}.`)
    lose(
      ctx,
      keyword,
      `${path}/${keyword}`,
      `${keyword} is not supported by Gemini; it became ${into} and was restated in the description`,
    )
  }
  const format = (gType: string) => {
    if (typeof node.format !== "string") return
    if (GEMINI_FORMATS[gType]?.includes(node.format)) out.format = node.format
    else {
      notes.push(`Format: ${node.format}.`)
      lose(
        ctx,
        `format:${node.format}`,
        `${path}/format`,
        `format "${node.format}" is not supported by Gemini and was restated in the description`,
      )
    }
  }
  const count = (
    keyword: string,
    into: "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties" | "maxProperties",
  ) => {
    const v = node[keyword]
    if (typeof v === "number" && Number.isInteger(v) && v >= 0) out[into] = String(v)
  }
  const restateValues = () => {
    if (enumValues === undefined || enumValues.length === 0) return
    notes.push(
      enumValues.length === 1
        ? `Must be ${short(enumValues[0])}.`
        : `One of: ${enumValues.map((v) => short(v)).join(", ")}.`,
    )
    lose(
      ctx,
      "enum" in node ? "enum" : "const",
      `${path}/${"enum" in node ? "enum" : "const"}`,
      "Gemini enums hold strings only; the values were restated in the description",
    )
  }
  switch (type) {
    case "string": {
      out.type = T("STRING")
      if (enumValues !== undefined && enumValues.length > 0) {
        if (enumValues.every((v) => typeof v === "string")) {
          out.enum = enumValues as string[]
          out.format = "enum"
        } else restateValues()
      }
      if (typeof node.pattern === "string") out.pattern = node.pattern
      count("minLength", "minLength")
      count("maxLength", "maxLength")
      if (out.format === undefined) format("STRING")
      break
    }
    case "number":
    case "integer": {
      out.type = T(type === "number" ? "NUMBER" : "INTEGER")
      if (typeof node.minimum === "number") out.minimum = node.minimum
      if (typeof node.maximum === "number") out.maximum = node.maximum
      bound("exclusiveMinimum", "minimum", "Greater than")
      bound("exclusiveMaximum", "maximum", "Less than")
      restateValues()
      format(type === "number" ? "NUMBER" : "INTEGER")
      break
    }
    case "boolean":
      out.type = T("BOOLEAN")
      restateValues()
      break
    case "array": {
      out.type = T("ARRAY")
      const tuple = Array.isArray(node.prefixItems)
        ? node.prefixItems
        : Array.isArray(node.items)
          ? node.items
          : undefined
      let items: Out
      if (tuple !== undefined) {
        lose(
          ctx,
          "prefixItems",
          `${path}/${Array.isArray(node.prefixItems) ? "prefixItems" : "items"}`,
          "tuples are not supported by Gemini; every position accepts any of the tuple's item schemas",
        )
        items = convert(tuple.length === 1 ? tuple[0] : { anyOf: tuple }, `${path}/prefixItems`, ctx, refs)
      } else if (
        node.items === undefined ||
        node.items === true ||
        (isJsonObject(node.items) && !TYPE_KEYS.some((k) => k in (node.items as Node)))
      ) {
        lose(
          ctx,
          "items",
          `${path}/items`,
          "an array of any values cannot be typed for Gemini; each item is sent as JSON text",
        )
        items = jsonString(
          isJsonObject(node.items) && typeof node.items.description === "string"
            ? node.items.description
            : undefined,
          "any JSON value",
        )
      } else items = convert(node.items, `${path}/items`, ctx, refs)
      out.items = items.schema
      count("minItems", "minItems")
      count("maxItems", "maxItems")
      shape = { kind: "array", items: items.shape }
      restateValues()
      break
    }
    case "object": {
      const props = isJsonObject(node.properties) ? node.properties : {}
      if (Object.keys(props).length === 0) {
        if (node.additionalProperties === false) {
          // an object that must be empty: nothing to send
          return {
            schema: withNotes({ ...jsonString(common.description, "an empty object").schema }, notes),
            shape: JSON_SHAPE,
          }
        }
        lose(
          ctx,
          "additionalProperties",
          path || "/",
          "an object of any shape cannot be typed for Gemini; it is sent as JSON text",
        )
        return { ...jsonString(common.description, "a JSON object") }
      }
      if (node.additionalProperties !== undefined && node.additionalProperties !== false)
        lose(
          ctx,
          "additionalProperties",
          `${path}/additionalProperties`,
          "Gemini objects take only their named properties; additional properties were dropped",
        )
      out.type = T("OBJECT")
      const required = new Set(
        Array.isArray(node.required) ? (node.required as unknown[]).filter((r) => typeof r === "string") : [],
      )
      const taken = new Set<string>()
      const named = Object.keys(props).filter((n) => GEMINI_PROPERTY_PATTERN.test(n))
      for (const n of named) taken.add(n)
      const outProps: Record<string, GeminiSchema> = {}
      const map = new Map<string, { source: string; shape: ArgumentShape }>()
      const outRequired: string[] = []
      for (const [source, sub] of Object.entries(props)) {
        let name = source
        if (!GEMINI_PROPERTY_PATTERN.test(source)) {
          name = propertyName(source, taken)
          taken.add(name)
          lose(
            ctx,
            "propertyName",
            `${path}/properties/${escapeJsonPointer(source)}`,
            `property "${source}" was renamed "${name}" (Gemini property names allow only [a-zA-Z0-9_]); renamed back before the call`,
          )
        }
        const c = convert(sub, `${path}/properties/${escapeJsonPointer(source)}`, ctx, refs)
        setOwn(outProps, name, c.schema)
        map.set(name, { source, shape: c.shape })
        if (required.has(source)) outRequired.push(name)
      }
      for (const r of required)
        if (!Object.hasOwn(props, r))
          lose(ctx, "required", `${path}/required`, `required "${r}" has no schema and was dropped`)
      out.properties = outProps
      if (outRequired.length > 0) out.required = outRequired
      count("minProperties", "minProperties")
      count("maxProperties", "maxProperties")
      shape = { kind: "object", properties: map }
      break
    }
    default:
      lose(ctx, "type", `${path}/type`, `type "${type}" is unknown; the value is sent as JSON text`)
      return jsonString(common.description, "any JSON value")
  }
  return { schema: withNotes(out, notes), shape }
}

/**
 * Converts an input JSON Schema to Gemini's parameter schema (see the module rules). Never throws: what
 * cannot be expressed is degraded with a loss. A tool without parameters gives `schema: undefined`.
 *
 * @example
 * ```ts
 * const r = toGeminiSchema({ type: "object", properties: { "max-results": { type: "integer", exclusiveMinimum: 0 } } })
 * // r.schema: { type: "OBJECT", properties: { max_results: { type: "INTEGER", minimum: 0, description: "Greater than 0." } } }
 * ```
 * @since 0.1.0
 */
export const toGeminiSchema = (schema: JsonSchema): GeminiSchemaResult => {
  const normalized = normalizeJsonSchema(schema)
  const losses: SchemaLoss[] = normalized.changes.map(({ keyword, path, message }) => ({
    feature: keyword,
    path,
    message,
  }))
  const root = normalized.schema as Node
  const ctx: Ctx = { root, losses }
  if (!isJsonObject(root)) {
    losses.push({
      feature: "inputSchema",
      path: "",
      message: "the input schema is not an object; sent without parameters",
    })
    return { schema: undefined, losses, shape: { kind: "object", properties: new Map() } }
  }
  let top: Node = root
  for (let hops = 0; typeof top.$ref === "string" && hops < 16; hops++) {
    const { $ref, ...rest } = top
    const target = resolveLocalRef(root, $ref as string)
    if (!isJsonObject(target)) break
    top = { ...target, ...rest }
  }
  if (Array.isArray(top.allOf)) top = mergeAllOf(top, "", ctx)
  const props = isJsonObject(top.properties) ? top.properties : {}
  const open = top.additionalProperties === true || isJsonObject(top.additionalProperties)
  if (Object.keys(props).length === 0 && !open && !Array.isArray(top.anyOf) && !Array.isArray(top.oneOf))
    return { schema: undefined, losses, shape: { kind: "object", properties: new Map() } }
  if (Object.keys(props).length === 0) {
    // arguments of any shape: one JSON-text property carries them
    losses.push({
      feature: "additionalProperties",
      path: "",
      message: `the tool takes arguments of any shape; Gemini sends them as JSON text in "${WRAPPED_PROPERTY}"`,
    })
    return {
      schema: {
        type: T("OBJECT"),
        ...(typeof top.description === "string" ? { description: top.description } : {}),
        properties: {
          [WRAPPED_PROPERTY]: { type: T("STRING"), description: "The arguments, as one JSON object" },
        },
        required: [WRAPPED_PROPERTY],
      },
      losses,
      shape: {
        kind: "object",
        properties: new Map([[WRAPPED_PROPERTY, { source: WRAPPED_ROOT, shape: JSON_SHAPE }]]),
      },
    }
  }
  const { schema: converted, shape } = convert({ ...top, type: "object" }, "", ctx, ["#"])
  return { schema: converted, losses, shape }
}

const WRAPPED_PROPERTY = "json_arguments"
const WRAPPED_ROOT = "\u0000root"

const parseJson = (value: unknown): unknown => {
  if (typeof value !== "string") return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

/**
 * Undoes, on the arguments a model sent, what {@link toGeminiSchema} changed: renamed properties get
 * their names back, JSON-text values are parsed, a wrapped root is unwrapped. A value that does not fit
 * the shape is passed on as it is (the runner's validation then says what is wrong).
 *
 * @since 0.1.0
 */
export const restoreArguments = (
  shape: ArgumentShape,
  args: Readonly<Record<string, unknown>>,
): Record<string, unknown> => {
  if (shape.kind === "object" && shape.properties.size === 1) {
    const only = shape.properties.get(WRAPPED_PROPERTY)
    if (only?.source === WRAPPED_ROOT) {
      const parsed = parseJson(args[WRAPPED_PROPERTY])
      return isJsonObject(parsed) ? parsed : {}
    }
  }
  const out = restore(shape, args)
  return isJsonObject(out) ? out : { ...args }
}

const restore = (shape: ArgumentShape, value: unknown): unknown => {
  switch (shape.kind) {
    case "value":
      return value
    case "json":
      return parseJson(value)
    case "array":
      return Array.isArray(value) ? value.map((v) => restore(shape.items, v)) : value
    case "object": {
      if (!isJsonObject(value)) return value
      const out: Record<string, unknown> = {}
      for (const [key, v] of Object.entries(value)) {
        const p = shape.properties.get(key)
        if (p === undefined) setOwn(out, key, v)
        else setOwn(out, p.source, restore(p.shape, v))
      }
      return out
    }
    case "union": {
      const fits = (s: ArgumentShape): boolean =>
        s.kind === "object"
          ? isJsonObject(value) && Object.keys(value).every((k) => s.properties.has(k))
          : s.kind === "array"
            ? Array.isArray(value)
            : s.kind === "json"
              ? typeof value === "string"
              : !isJsonObject(value) && !Array.isArray(value)
      const branch = shape.branches.find(fits)
      return branch === undefined ? value : restore(branch, value)
    }
  }
}

/**
 * The other direction of {@link restoreArguments}: arguments of the original schema as the model would
 * send them for the converted one (renamed properties, JSON text where the schema became a string). Used
 * for the declaration's `example`; useful for few-shot examples of your own.
 *
 * @since 0.1.0
 */
export const toGeminiArguments = (
  shape: ArgumentShape,
  args: Readonly<Record<string, unknown>>,
): Record<string, unknown> => {
  if (shape.kind === "object" && shape.properties.get(WRAPPED_PROPERTY)?.source === WRAPPED_ROOT)
    return { [WRAPPED_PROPERTY]: JSON.stringify(args) }
  const out = forward(shape, args)
  return isJsonObject(out) ? out : {}
}

const forward = (shape: ArgumentShape, value: unknown): unknown => {
  switch (shape.kind) {
    case "value":
      return value
    case "json":
      return JSON.stringify(value)
    case "array":
      return Array.isArray(value) ? value.map((v) => forward(shape.items, v)) : value
    case "object": {
      if (!isJsonObject(value)) return value
      const out: Record<string, unknown> = {}
      for (const [name, p] of shape.properties)
        if (Object.hasOwn(value, p.source)) setOwn(out, name, forward(p.shape, value[p.source]))
      return out
    }
    case "union": {
      const sources = (s: ArgumentShape) =>
        s.kind === "object" ? new Set([...s.properties.values()].map((p) => p.source)) : undefined
      const fits = (s: ArgumentShape): boolean =>
        s.kind === "object"
          ? isJsonObject(value) && Object.keys(value).every((k) => sources(s)!.has(k))
          : s.kind === "array"
            ? Array.isArray(value)
            : s.kind === "value"
              ? !isJsonObject(value) && !Array.isArray(value)
              : s.kind === "json"
      const branch = shape.branches.find(fits)
      return branch === undefined ? value : forward(branch, value)
    }
  }
}
