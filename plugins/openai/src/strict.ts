/**
 * Strict-mode schema conversion: rewrites a JSON Schema into the subset OpenAI accepts for
 * `strict: true` function tools (Structured Outputs), reporting every change that loses meaning.
 *
 * The rules (OpenAI's documented "supported schemas" for Structured Outputs):
 * - types: `string`, `number`, `integer`, `boolean`, `object`, `array`, `null` (alone or in a type
 *   list), plus `enum`, `const`, `anyOf`, local `$ref` into `$defs` (recursion allowed);
 * - every object has `additionalProperties: false` and lists every property in `required`; a property
 *   that was optional becomes nullable (`null` stands for "left out" and is removed again by
 *   {@link restoreArguments} before the call runs);
 * - the root is a plain object (not `anyOf`); any other root is wrapped as `{ value: <schema> }`;
 * - supported keywords: strings `pattern`, `format` (only `date-time`, `time`, `date`, `duration`,
 *   `email`, `hostname`, `ipv4`, `ipv6`, `uuid`); numbers `minimum`, `maximum`, `exclusiveMinimum`,
 *   `exclusiveMaximum`, `multipleOf`; arrays `items`, `minItems`, `maxItems`; annotations `title`,
 *   `description`; everything else (`default`, `examples`, `minLength`, `maxLength`, `uniqueItems`,
 *   `not`, `if`/`then`/`else`, `dependentRequired`, `patternProperties`, unsupported formats, ...) is
 *   removed with a warning, and constraints that help the model are restated in the description;
 * - `oneOf` becomes `anyOf` (warning: exclusivity is lost); `allOf` of object schemas is merged;
 *   `definitions` becomes `$defs`; `$ref` with sibling keywords is inlined (unless recursive);
 * - shape keywords next to a union (`properties`, `required`, `items`, ...) are distributed into every
 *   branch, so a union node never carries object keywords of its own;
 * - a `$ref` that does not name a root definition (nested `$defs`, a pointer into `properties`, ...)
 *   becomes a root `$defs` entry with a collision-free name: no output `$ref` dangles;
 * - limits: at most 5000 object properties, 10 levels of object nesting, 1000 enum values, 120,000
 *   characters of property names, definition names, enum and const values, and 15,000 characters for
 *   one string enum of more than 250 values.
 *
 * A schema the rules cannot express without changing what it accepts in an essential way (an
 * open-ended map, a root object of any shape, a value of any type, a tuple, a remote `$ref`, a
 * non-mergeable `allOf`, a union branch at odds with the keywords around it, a limit exceeded) is reported as not strict-able, so the caller can send that tool
 * with `strict: false` instead.
 *
 * @since 0.1.0
 */
import type { JsonSchema } from "@toolplane/foundation"

/**
 * One change that lost meaning, as a pointer into the source schema.
 *
 * @since 0.1.0
 */
export interface SchemaLoss {
  /** e.g. `"default"`, `"format:uri"`, `"oneOf"`, `"minLength"`, `"additionalProperties"`. */
  readonly feature: string
  /** JSON pointer into the source schema. */
  readonly path: string
  readonly message: string
}

/**
 * The outcome of {@link toStrictSchema}.
 *
 * @since 0.1.0
 */
export type StrictSchemaResult =
  | {
      readonly ok: true
      readonly schema: JsonSchema
      readonly losses: readonly SchemaLoss[]
      /** The root was not an object and was wrapped as `{ value }`. */
      readonly wrapped: boolean
    }
  | {
      readonly ok: false
      /** JSON pointer to the part that cannot be expressed. */
      readonly path: string
      readonly reason: string
      /**
       * The feature strict mode cannot express, when one keyword is the cause (e.g.
       * `"additionalProperties"` for a root object of any shape).
       */
      readonly feature?: string
      readonly losses: readonly SchemaLoss[]
    }

/**
 * The string formats strict mode accepts.
 *
 * @since 0.1.0
 */
export const STRICT_FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
])

/**
 * The schema limits of strict mode.
 *
 * @since 0.1.0
 */
export const STRICT_LIMITS = Object.freeze({
  maxProperties: 5000,
  maxDepth: 10,
  maxEnumValues: 1000,
  maxStringChars: 120_000,
  largeEnumThreshold: 250,
  maxLargeEnumChars: 15_000,
})

/** The name of the property a non-object root is wrapped in. @since 0.1.0 */
export const WRAPPED_ROOT_PROPERTY = "value"

class NotStrict extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
    /** The source feature strict mode cannot express, when one keyword is the cause. */
    readonly feature?: string,
  ) {
    super(reason)
  }
}

type Node = Record<string, unknown>

const isRecord = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v)
const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1")
const unesc = (s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~")

/** Keywords dropped without a warning: they carry no meaning for the model. */
const SILENT = new Set(["$schema", "$id", "$comment", "$anchor", "$vocabulary", "$dynamicAnchor"])
/** Keywords dropped with a warning, whose value is worth restating in the description. */
const RESTATE = new Set([
  "default",
  "examples",
  "minLength",
  "maxLength",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "contentEncoding",
  "contentMediaType",
  "minContains",
  "maxContains",
])
const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]

const describe = (value: unknown): string => {
  const s = JSON.stringify(value)
  return s.length > 80 ? `${s.slice(0, 77)}...` : s
}

const restatement = (key: string, value: unknown): string => {
  switch (key) {
    case "default":
      return `Default: ${describe(value)}.`
    case "examples":
      return `Examples: ${describe(value)}.`
    case "minLength":
      return `At least ${value} characters.`
    case "maxLength":
      return `At most ${value} characters.`
    case "uniqueItems":
      return value === true ? "Items must be unique." : ""
    case "minProperties":
      return `At least ${value} properties.`
    case "maxProperties":
      return `At most ${value} properties.`
    case "format":
      return `Format: ${value}.`
    default:
      return `${key}: ${describe(value)}.`
  }
}

const allowsNull = (schema: Node): boolean => {
  const t = schema.type
  if (t === "null" || (Array.isArray(t) && t.includes("null"))) return true
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true
  if ("const" in schema && schema.const === null) return true
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((s) => isRecord(s) && allowsNull(s))
  return false
}

/** Makes a converted schema accept `null` too. */
const nullable = (schema: Node): Node => {
  if (allowsNull(schema)) return schema
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] }
  if (schema.$ref !== undefined || "const" in schema || schema.type === undefined) {
    const { description, title, ...rest } = schema
    return {
      ...(title !== undefined ? { title } : {}),
      ...(description !== undefined ? { description } : {}),
      anyOf: [rest, { type: "null" }],
    }
  }
  const type = Array.isArray(schema.type) ? [...schema.type, "null"] : [schema.type, "null"]
  const out: Node = { ...schema, type }
  if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null]
  return out
}

/** `false`, `{ not: {} }`, `{ not: true }`: a schema no value matches. */
const neverMatches = (schema: unknown): boolean =>
  schema === false ||
  (isRecord(schema) &&
    Object.keys(schema).every((k) => k === "not" || k === "description" || k === "title" || SILENT.has(k)) &&
    (schema.not === true || (isRecord(schema.not) && Object.keys(schema.not).length === 0)))

const resolvePointer = (root: Node, ref: string): unknown => {
  if (ref === "#") return root
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = root
  for (const seg of ref.slice(2).split("/").map(unesc)) {
    if (!isRecord(node)) return undefined
    node = node[seg]
  }
  return node
}

interface Ctx {
  readonly root: Node
  readonly losses: SchemaLoss[]
  readonly expanding: string[]
  /** `$defs` or `definitions`: the key of the root definitions. */
  readonly defsKey?: string
  /** Names of the root definitions (kept under the same names in the output's `$defs`). */
  readonly rootDefs?: ReadonlySet<string>
  /** Every other ref target (nested definitions, pointers into properties, ...) → its name in `$defs`. */
  readonly hoisted?: Map<string, string>
  /** Hoisted refs whose targets still have to be converted. */
  readonly pending?: string[]
}

const lose = (ctx: Ctx, feature: string, path: string, message: string) =>
  ctx.losses.push({ feature, path, message })

const rewriteRef = (ref: string): string => ref.replace(/^#\/definitions\//, "#/$defs/")

/**
 * The output `$ref` for a source ref: `#` stays, a root definition keeps its name, anything else (a
 * definition nested below the root, a pointer into `properties` or into a definition) becomes a new
 * root definition with a collision-free name, converted from the source target on its own (so a ref to
 * an optional property points at the property's own schema, not at its nullable rewrite).
 */
const outputRef = (ref: string, ctx: Ctx): string => {
  if (ref === "#") return ref
  const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref)
  if (m && ctx.rootDefs === undefined) return rewriteRef(ref)
  if (m && m[1] === ctx.defsKey && ctx.rootDefs?.has(unesc(m[2]!))) return `#/$defs/${m[2]}`
  const hoisted = ctx.hoisted
  if (hoisted === undefined) return rewriteRef(ref)
  let name = hoisted.get(ref)
  if (name === undefined) {
    const segments = ref.slice(2).split("/").map(unesc)
    const base = (segments[segments.length - 1] ?? "").replace(/[^A-Za-z0-9_-]/g, "_") || "def"
    const taken = new Set([...(ctx.rootDefs ?? []), ...hoisted.values()])
    name = base
    for (let i = 2; taken.has(name); i++) name = `${base}_${i}`
    hoisted.set(ref, name)
    ctx.pending?.push(ref)
  }
  return `#/$defs/${name}`
}

/** Keywords of a union node's shape that belong in every branch of the union. */
const SHAPE_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
])

/**
 * `shared` (the shape keywords next to a union) and one branch, as one schema: properties of both
 * (the branch's schema wins for a name in both), required of both, `additionalProperties: false` when
 * either says so; any other keyword must agree. A `$ref` branch is inlined first; the refs it followed
 * are returned so the caller can treat them as being expanded.
 */
const mergeBranch = (shared: Node, raw: unknown, at: string, ctx: Ctx): { node: Node; refs: string[] } => {
  let branch = raw
  const refs: string[] = []
  while (isRecord(branch) && typeof branch.$ref === "string") {
    const ref = branch.$ref
    if (!ref.startsWith("#")) throw new NotStrict(`${at}/$ref`, `remote $ref "${ref}" is not supported`)
    if (ctx.expanding.includes(ref) || refs.includes(ref))
      throw new NotStrict(
        `${at}/$ref`,
        `recursive union branch ${ref} cannot take the keywords around the union`,
      )
    const target = resolvePointer(ctx.root, ref)
    if (!isRecord(target)) throw new NotStrict(`${at}/$ref`, `$ref "${ref}" does not resolve`)
    refs.push(ref)
    const { $ref: _r, ...siblings } = branch
    branch = { ...target, ...siblings }
  }
  if (!isRecord(branch)) throw new NotStrict(at, "union branch is not a schema object")
  const merged: Node = Array.isArray(branch.allOf) ? mergeAllOf(branch, at, ctx) : { ...branch }
  for (const [key, value] of Object.entries(shared)) {
    const own = merged[key]
    if (key === "properties" && isRecord(value)) {
      merged.properties = { ...value, ...(isRecord(own) ? own : {}) }
    } else if (key === "required" && Array.isArray(value)) {
      merged.required = [...new Set([...value, ...(Array.isArray(own) ? own : [])])]
    } else if (key === "additionalProperties") {
      if (value === false || own === false) merged.additionalProperties = false
      else if (own === undefined) merged.additionalProperties = value
    } else if (own === undefined) {
      merged[key] = value
    } else if (JSON.stringify(own) !== JSON.stringify(value)) {
      throw new NotStrict(
        `${at}/${esc(key)}`,
        `the union branch and the schema around the union disagree on "${key}"`,
      )
    }
  }
  return { node: merged, refs }
}

const mergeAllOf = (node: Node, path: string, ctx: Ctx): Node => {
  const branches = node.allOf as unknown[]
  const { allOf: _a, ...base } = node
  const merged: Node = { ...base }
  for (const [i, raw] of branches.entries()) {
    let branch = raw
    if (isRecord(branch) && typeof branch.$ref === "string" && Object.keys(branch).length === 1) {
      const target = resolvePointer(ctx.root, branch.$ref)
      if (target === undefined || ctx.expanding.includes(branch.$ref))
        throw new NotStrict(`${path}/allOf/${i}`, `allOf branch ${branch.$ref} cannot be merged`)
      branch = target
    }
    if (!isRecord(branch)) throw new NotStrict(`${path}/allOf/${i}`, "allOf branch is not a schema object")
    for (const [key, value] of Object.entries(branch)) {
      if (key === "properties" && isRecord(value)) {
        merged.properties = { ...(isRecord(merged.properties) ? merged.properties : {}), ...value }
      } else if (key === "required" && Array.isArray(value)) {
        merged.required = [...new Set([...((merged.required as string[]) ?? []), ...(value as string[])])]
      } else if (key === "description" || key === "title") {
        if (merged[key] === undefined) merged[key] = value
      } else if (key in merged && JSON.stringify(merged[key]) !== JSON.stringify(value)) {
        throw new NotStrict(`${path}/allOf/${i}/${esc(key)}`, `allOf branches disagree on "${key}"`)
      } else merged[key] = value
    }
  }
  return merged
}

const convert = (input: unknown, path: string, ctx: Ctx): Node => {
  if (
    input === true ||
    (isRecord(input) &&
      Object.keys(input).every((k) => k === "description" || k === "title" || SILENT.has(k)))
  )
    throw new NotStrict(path, "a schema that accepts any value cannot be expressed in strict mode")
  if (input === false)
    throw new NotStrict(path, "a schema that accepts nothing cannot be expressed in strict mode")
  if (!isRecord(input)) throw new NotStrict(path, "not a schema object")
  let node: Node = input
  if (Array.isArray(node.allOf)) node = mergeAllOf(node, path, ctx)
  if (typeof node.$ref === "string") {
    if (!node.$ref.startsWith("#"))
      throw new NotStrict(`${path}/$ref`, `remote $ref "${node.$ref}" is not supported`)
    const siblings = Object.keys(node).filter((k) => k !== "$ref" && !SILENT.has(k))
    if (resolvePointer(ctx.root, node.$ref) === undefined)
      throw new NotStrict(`${path}/$ref`, `$ref "${node.$ref}" does not resolve`)
    if (siblings.length === 0) return { $ref: outputRef(node.$ref, ctx) }
    if (ctx.expanding.includes(node.$ref)) {
      for (const k of siblings)
        lose(ctx, k, `${path}/${esc(k)}`, `"${k}" next to a recursive $ref was dropped`)
      return { $ref: outputRef(node.$ref, ctx) }
    }
    const target = resolvePointer(ctx.root, node.$ref)
    const { $ref: _r, ...rest } = node
    ctx.expanding.push(node.$ref)
    try {
      return convert({ ...(target as Node), ...rest }, path, ctx)
    } finally {
      ctx.expanding.pop()
    }
  }
  const out: Node = {}
  const notes: string[] = []
  const types = Array.isArray(node.type)
    ? (node.type as string[])
    : node.type !== undefined
      ? [node.type]
      : []
  const is = (t: string) => types.includes(t) || (t === "number" && types.includes("integer"))
  for (const [key, value] of Object.entries(node)) {
    const at = `${path}/${esc(key)}`
    switch (key) {
      case "type":
      case "enum":
      case "const":
      case "description":
      case "title":
        out[key] = value
        break
      case "properties":
      case "required":
      case "additionalProperties":
      case "items":
      case "anyOf":
      case "oneOf":
      case "$defs":
      case "definitions":
        break // handled below
      case "pattern":
        if (is("string") || types.length === 0) out.pattern = value
        break
      case "format":
        if (typeof value === "string" && STRICT_FORMATS.has(value)) out.format = value
        else {
          lose(ctx, `format:${value}`, at, `format "${value}" is not supported in strict mode`)
          notes.push(restatement("format", value))
        }
        break
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
      case "multipleOf":
        if (typeof value === "number") out[key] = value
        else lose(ctx, key, at, `non-numeric "${key}" is not supported`)
        break
      case "minItems":
      case "maxItems":
        out[key] = value
        break
      case "prefixItems":
        throw new NotStrict(at, "tuples (prefixItems) cannot be expressed in strict mode")
      default:
        if (SILENT.has(key)) break
        if (RESTATE.has(key)) {
          lose(ctx, key, at, `"${key}" is not supported in strict mode`)
          const note = restatement(key, value)
          if (note) notes.push(note)
        } else if (
          key === "patternProperties" ||
          key === "propertyNames" ||
          key === "unevaluatedProperties"
        ) {
          lose(ctx, key, at, `"${key}" is not supported in strict mode`)
        } else {
          lose(ctx, key, at, `"${key}" is not supported in strict mode`)
        }
    }
  }
  // number keywords on a non-number are meaningless; keep only what applies
  if (types.length > 0 && !is("number")) for (const k of NUMBER_KEYWORDS) delete out[k]
  const union = Array.isArray(node.oneOf) || Array.isArray(node.anyOf)
  if (union) {
    const key = Array.isArray(node.anyOf) ? "anyOf" : "oneOf"
    // a branch that can never match (`false`, `{ not: {} }`) changes nothing: drop it, keep the index
    const indexed = [...((node.anyOf as unknown[]) ?? []), ...((node.oneOf as unknown[]) ?? [])]
      .map((b, i) => [b, i] as const)
      .filter(([b]) => !neverMatches(b))
    if (indexed.length === 0)
      throw new NotStrict(`${path}/${key}`, "a union whose branches can never match accepts nothing")
    if (Array.isArray(node.oneOf)) {
      lose(ctx, "oneOf", `${path}/oneOf`, '"oneOf" became "anyOf": the model may match more than one branch')
      if (Array.isArray(node.anyOf))
        throw new NotStrict(path, "anyOf and oneOf on the same schema cannot be combined")
    }
    // A union next to other keywords is their intersection. Shape keywords (properties, required,
    // items, ...) are distributed into every branch, so each branch is one complete alternative and the
    // union node itself carries no object or array keywords.
    const shared: Node = {}
    for (const [k, v] of Object.entries(node)) if (SHAPE_KEYWORDS.has(k)) shared[k] = v
    const distribute = Object.keys(shared).some((k) => k !== "type")
    if (distribute) {
      out.anyOf = indexed.map(([b, i]) => {
        const at = `${path}/${key}/${i}`
        const { node: merged, refs } = mergeBranch(shared, b, at, ctx)
        ctx.expanding.push(...refs)
        try {
          return convert(merged, at, ctx)
        } finally {
          ctx.expanding.splice(ctx.expanding.length - refs.length, refs.length)
        }
      })
      for (const k of SHAPE_KEYWORDS) delete out[k]
    } else {
      // only a type next to the union: it goes into the branches that have none (a branch with its own
      // type or a $ref keeps it)
      out.anyOf = indexed.map(([b, i]) =>
        convert(
          node.type !== undefined && isRecord(b) && b.type === undefined && b.$ref === undefined
            ? { ...b, type: node.type }
            : b,
          `${path}/${key}/${i}`,
          ctx,
        ),
      )
      delete out.type
    }
  }
  const isObject =
    (!union && is("object")) ||
    (types.length === 0 && (isRecord(node.properties) || node.additionalProperties !== undefined))
  if (isObject) {
    if (types.length === 0) out.type = "object"
    const props = isRecord(node.properties) ? node.properties : undefined
    const extra = node.additionalProperties
    if (props === undefined || Object.keys(props).length === 0) {
      if ((extra !== undefined && extra !== false) || node.patternProperties !== undefined)
        throw new NotStrict(path, "an object with free-form keys (a map) cannot be expressed in strict mode")
      if (path === "" && props === undefined && extra === undefined)
        throw new NotStrict(
          path,
          "an object of any shape (no properties, additionalProperties not false) cannot be expressed in strict mode",
          "additionalProperties",
        )
      if (path !== "" && extra === undefined)
        throw new NotStrict(path, "an object of unspecified shape cannot be expressed in strict mode")
    } else if (extra !== undefined && extra !== false) {
      lose(
        ctx,
        "additionalProperties",
        `${path}/additionalProperties`,
        "extra properties are no longer accepted",
      )
    }
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : [])
    const outProps: Record<string, unknown> = {}
    for (const [name, sub] of Object.entries(props ?? {})) {
      const at = `${path}/properties/${esc(name)}`
      const converted = convert(sub, at, ctx)
      if (required.has(name)) outProps[name] = converted
      else {
        if (allowsNull(converted))
          lose(
            ctx,
            "optional",
            at,
            `optional nullable "${name}": leaving it out and sending null are now the same`,
          )
        outProps[name] = nullable(converted)
      }
    }
    for (const name of required)
      if (!(name in outProps))
        lose(ctx, "required", `${path}/required`, `required "${name}" has no schema and was dropped`)
    out.properties = outProps
    out.required = Object.keys(outProps)
    out.additionalProperties = false
  }
  if (!union && (is("array") || (types.length === 0 && node.items !== undefined))) {
    if (types.length === 0) out.type = "array"
    if (Array.isArray(node.items))
      throw new NotStrict(`${path}/items`, "tuples (items array) cannot be expressed in strict mode")
    if (node.items === undefined || node.items === true)
      throw new NotStrict(path, "an array of unspecified items cannot be expressed in strict mode")
    out.items = convert(node.items, `${path}/items`, ctx)
  }
  if (out.type === undefined && out.anyOf === undefined && out.enum === undefined && !("const" in out))
    throw new NotStrict(path, "a schema without a type cannot be expressed in strict mode")
  if (notes.length > 0) {
    const text = notes.join(" ")
    out.description =
      typeof out.description === "string" && out.description !== "" ? `${out.description} (${text})` : text
  }
  return out
}

interface Tally {
  properties: number
  enumValues: number
  chars: number
}

const checkLimits = (schema: Node): void => {
  const tally: Tally = { properties: 0, enumValues: 0, chars: 0 }
  const visit = (node: unknown, path: string, depth: number): void => {
    if (!isRecord(node)) return
    let d = depth
    if (isRecord(node.properties)) {
      d = depth + 1
      if (d > STRICT_LIMITS.maxDepth)
        throw new NotStrict(path, `more than ${STRICT_LIMITS.maxDepth} levels of object nesting`)
      for (const [name, sub] of Object.entries(node.properties)) {
        tally.properties++
        tally.chars += name.length
        visit(sub, `${path}/properties/${esc(name)}`, d)
      }
    }
    if (Array.isArray(node.enum)) {
      tally.enumValues += node.enum.length
      const strings = node.enum.filter((v): v is string => typeof v === "string")
      const len = strings.reduce((n, s) => n + s.length, 0)
      tally.chars += len
      if (strings.length > STRICT_LIMITS.largeEnumThreshold && len > STRICT_LIMITS.maxLargeEnumChars)
        throw new NotStrict(
          `${path}/enum`,
          `an enum of more than ${STRICT_LIMITS.largeEnumThreshold} values longer than ${STRICT_LIMITS.maxLargeEnumChars} characters in total`,
        )
    }
    if (typeof node.const === "string") tally.chars += node.const.length
    if (isRecord(node.$defs))
      for (const [name, sub] of Object.entries(node.$defs)) {
        tally.chars += name.length
        visit(sub, `${path}/$defs/${esc(name)}`, 0)
      }
    if (Array.isArray(node.anyOf))
      for (const [i, b] of node.anyOf.entries()) visit(b, `${path}/anyOf/${i}`, d)
    if (node.items !== undefined) visit(node.items, `${path}/items`, d)
  }
  visit(schema, "", 0)
  if (tally.properties > STRICT_LIMITS.maxProperties)
    throw new NotStrict("", `${tally.properties} object properties (limit ${STRICT_LIMITS.maxProperties})`)
  if (tally.enumValues > STRICT_LIMITS.maxEnumValues)
    throw new NotStrict("", `${tally.enumValues} enum values (limit ${STRICT_LIMITS.maxEnumValues})`)
  if (tally.chars > STRICT_LIMITS.maxStringChars)
    throw new NotStrict(
      "",
      `${tally.chars} characters of names and enum values (limit ${STRICT_LIMITS.maxStringChars})`,
    )
}

/** Tells whether a (source) schema describes a plain object root. */
const isObjectRoot = (schema: Node): boolean =>
  (schema.type === "object" ||
    (schema.type === undefined &&
      (isRecord(schema.properties) ||
        (schema.$ref === undefined &&
          schema.allOf === undefined &&
          schema.anyOf === undefined &&
          schema.oneOf === undefined &&
          schema.additionalProperties !== undefined)))) &&
  schema.anyOf === undefined &&
  schema.oneOf === undefined

/**
 * Converts a JSON Schema to OpenAI's strict subset. Never throws: a schema that cannot be made strict
 * comes back as `{ ok: false, path, reason }`.
 *
 * @example
 * ```ts
 * const r = toStrictSchema({ type: "object", properties: { city: { type: "string" }, days: { type: "integer", default: 1 } }, required: ["city"] })
 * // r.schema.required: ["city", "days"]; days: { type: ["integer", "null"], description: "Default: 1." }
 * // r.losses: [{ feature: "default", path: "/properties/days/default", ... }]
 * ```
 * @since 0.1.0
 */
export const toStrictSchema = (schema: JsonSchema): StrictSchemaResult => {
  const losses: SchemaLoss[] = []
  try {
    if (!isRecord(schema)) throw new NotStrict("", "not a schema object")
    let root: Node = schema
    // a root that only points into its definitions: inline the target at the root
    if (typeof root.$ref === "string" && root.$ref !== "#") {
      const target = resolvePointer(root, root.$ref)
      if (isRecord(target) && !JSON.stringify(target).includes(`"${root.$ref}"`)) {
        const { $ref: _r, ...rest } = root
        root = { ...target, ...rest }
      }
    }
    if (Array.isArray(root.allOf)) root = mergeAllOf(root, "", { root, losses, expanding: [] })
    const defsSource = isRecord(root.$defs)
      ? root.$defs
      : isRecord(root.definitions)
        ? root.definitions
        : undefined
    const defsKey = isRecord(root.$defs) ? "$defs" : "definitions"
    if (isRecord(root.$defs) && isRecord(root.definitions))
      throw new NotStrict("", "both $defs and definitions are used")
    const ctx: Ctx = {
      root: schema as Node,
      losses,
      expanding: [],
      defsKey,
      rootDefs: new Set(Object.keys(defsSource ?? {})),
      hoisted: new Map(),
      pending: [],
    }
    let wrapped = false
    let converted: Node
    if (isObjectRoot(root)) {
      converted = convert({ ...root, type: "object" }, "", ctx)
    } else {
      if (JSON.stringify(root).includes('"$ref":"#"'))
        throw new NotStrict("", "a non-object root that refers to itself cannot be wrapped")
      const { $defs: _d, definitions: _f, ...inner } = root
      const value = convert(inner, "", ctx)
      converted = {
        type: "object",
        properties: { [WRAPPED_ROOT_PROPERTY]: value },
        required: [WRAPPED_ROOT_PROPERTY],
        additionalProperties: false,
      }
      wrapped = true
      losses.push({
        feature: "root",
        path: "",
        message: `the root is not an object; the model sends it as the "${WRAPPED_ROOT_PROPERTY}" property`,
      })
    }
    const defs: Record<string, unknown> = {}
    for (const [name, sub] of Object.entries(defsSource ?? {})) {
      ctx.expanding.push(`#/${defsKey}/${esc(name)}`)
      try {
        defs[name] = convert(sub, `/${defsKey}/${esc(name)}`, ctx)
      } finally {
        ctx.expanding.pop()
      }
    }
    // every other ref target, converted on its own under a new root definition (which may hoist more)
    for (let ref = ctx.pending!.shift(); ref !== undefined; ref = ctx.pending!.shift()) {
      ctx.expanding.push(ref)
      try {
        defs[ctx.hoisted!.get(ref)!] = convert(resolvePointer(ctx.root, ref), ref.slice(1), ctx)
      } finally {
        ctx.expanding.pop()
      }
    }
    if (defsSource || Object.keys(defs).length > 0) converted = { ...converted, $defs: defs }
    checkLimits(converted)
    return { ok: true, schema: converted as JsonSchema, losses, wrapped }
  } catch (error) {
    if (error instanceof NotStrict)
      return {
        ok: false,
        path: error.path,
        reason: error.reason,
        ...(error.feature !== undefined ? { feature: error.feature } : {}),
        losses,
      }
    return { ok: false, path: "", reason: (error as Error).message ?? String(error), losses }
  }
}

/**
 * Undoes, on the arguments a model sent for a strict schema, the changes {@link toStrictSchema} made to
 * the contract: unwraps a wrapped root and removes `null` values of properties that were optional and
 * not nullable in the source schema (strict mode made them required-but-nullable). Follows
 * `properties`, `items`, local `$ref`s (also into nested definitions), `allOf`, and `anyOf`/`oneOf`: a
 * value under a union is restored with the first branch it fits (its keys are the branch's properties,
 * the branch's required properties are present, consts, enums and types of the present values match),
 * the keywords next to the union counting for every branch, as in the conversion.
 *
 * @since 0.1.0
 */
export const restoreArguments = (
  source: JsonSchema,
  args: Record<string, unknown>,
  options: { readonly wrapped?: boolean } = {},
): Record<string, unknown> => {
  const root = source as Node
  const pointer = (ref: string) =>
    ref.startsWith("#/$defs/") && !isRecord(root.$defs) ? ref.replace("#/$defs/", "#/definitions/") : ref
  /** Follows `$ref`s and merges `allOf`, like the conversion does. */
  const resolve = (schema: unknown, depth: number): Node | undefined => {
    let s = schema
    for (let hops = 0; isRecord(s) && typeof s.$ref === "string" && hops < 32; hops++) {
      const target = resolvePointer(root, pointer(s.$ref))
      if (!isRecord(target)) break
      const { $ref: _r, ...siblings } = s
      s = { ...target, ...siblings }
    }
    if (!isRecord(s) || depth > 64) return undefined
    if (!Array.isArray(s.allOf)) return s
    const { allOf, ...base } = s
    const props: Record<string, unknown> = { ...(isRecord(base.properties) ? base.properties : {}) }
    const required = new Set<string>(Array.isArray(base.required) ? (base.required as string[]) : [])
    let merged: Node = base
    for (const raw of allOf) {
      const b = resolve(raw, depth + 1)
      if (!b) continue
      if (isRecord(b.properties)) Object.assign(props, b.properties)
      if (Array.isArray(b.required)) for (const r of b.required as string[]) required.add(r)
      const { properties: _p, required: _q, ...rest } = b
      merged = { ...rest, ...merged }
    }
    return { ...merged, properties: props, required: [...required] }
  }
  /** The union branches of `s` as complete alternatives (the keywords around the union included). */
  const alternatives = (s: Node, depth: number): Node[] | undefined => {
    const key = Array.isArray(s.anyOf) ? "anyOf" : Array.isArray(s.oneOf) ? "oneOf" : undefined
    if (key === undefined) return undefined
    const { anyOf: _a, oneOf: _o, ...shared } = s
    return (s[key] as unknown[]).flatMap((raw) => {
      const b = resolve(raw, depth + 1)
      if (!b) return []
      const merged: Node = { ...shared, ...b }
      if (isRecord(shared.properties) || isRecord(b.properties))
        merged.properties = {
          ...(isRecord(shared.properties) ? shared.properties : {}),
          ...(isRecord(b.properties) ? b.properties : {}),
        }
      if (Array.isArray(shared.required) || Array.isArray(b.required))
        merged.required = [
          ...new Set([
            ...(Array.isArray(shared.required) ? (shared.required as string[]) : []),
            ...(Array.isArray(b.required) ? (b.required as string[]) : []),
          ]),
        ]
      const nested = alternatives(merged, depth + 1)
      return nested ?? [merged]
    })
  }
  const typeOf = (v: unknown): string =>
    v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v
  /** A light check of one value against a schema: const, enum and type. */
  const matches = (schema: unknown, v: unknown, depth: number): boolean => {
    const s = resolve(schema, depth + 1)
    if (!s) return true
    const alts = alternatives(s, depth + 1)
    if (alts) return alts.some((a) => matches(a, v, depth + 1))
    if ("const" in s && JSON.stringify(s.const) !== JSON.stringify(v)) return false
    if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) return false
    if (s.type === undefined) return true
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string]
    const t = typeOf(v)
    return (
      types.includes(t) ||
      (t === "number" && types.includes("integer") && Number.isInteger(v)) ||
      (t === "number" && types.includes("number"))
    )
  }
  /** The alternative an object value was produced for: see {@link restoreArguments}. */
  const pick = (alts: Node[], value: unknown, depth: number): Node | undefined => {
    if (Array.isArray(value)) return alts.find((a) => a.items !== undefined)
    if (!isRecord(value)) return undefined
    const covers = (a: Node) => {
      const props = isRecord(a.properties) ? a.properties : {}
      return Object.keys(value).every((k) => k in props)
    }
    const fits = (a: Node) => {
      const props = isRecord(a.properties) ? a.properties : {}
      const required = Array.isArray(a.required) ? (a.required as string[]) : []
      return (
        covers(a) &&
        required.every((k) => k in value && (value[k] !== null || matches(props[k], null, depth))) &&
        Object.entries(value).every(([k, v]) => v === null || matches(props[k], v, depth))
      )
    }
    return alts.find(fits) ?? alts.find(covers)
  }
  const restore = (schema: unknown, value: unknown, depth: number): unknown => {
    let s = resolve(schema, depth)
    if (!s) return value
    const alts = alternatives(s, depth)
    if (alts) {
      s = pick(alts, value, depth)
      if (!s) return value
    }
    if (Array.isArray(value)) return value.map((v) => restore(s.items, v, depth + 1))
    if (!isRecord(value)) return value
    const props = isRecord(s.properties) ? s.properties : {}
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : [])
    const out: Record<string, unknown> = {}
    for (const [key, v] of Object.entries(value)) {
      const sub = props[key]
      if (v === null && !required.has(key) && isRecord(sub) && !acceptsNull(sub, root)) continue
      out[key] = sub === undefined ? v : restore(sub, v, depth + 1)
    }
    return out
  }
  if (options.wrapped) return restore(root, args[WRAPPED_ROOT_PROPERTY], 0) as Record<string, unknown>
  return restore(root, args, 0) as Record<string, unknown>
}

const acceptsNull = (schema: Node, root: Node): boolean => {
  if (allowsNull(schema)) return true
  if (Array.isArray(schema.oneOf) && schema.oneOf.some((s) => isRecord(s) && allowsNull(s))) return true
  if (typeof schema.$ref === "string") {
    const target = resolvePointer(
      root,
      schema.$ref.startsWith("#/$defs/") && !isRecord(root.$defs)
        ? schema.$ref.replace("#/$defs/", "#/definitions/")
        : schema.$ref,
    )
    return isRecord(target) && target !== schema && acceptsNull(target, root)
  }
  return false
}
