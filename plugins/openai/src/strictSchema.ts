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
import {
  escapeJsonPointer,
  isJsonObject,
  type JsonSchema,
  resolveLocalRef,
  setOwn,
  unescapeJsonPointer,
} from "@toolplane/foundation"
import { NotStrict } from "./internal/notStrict.js"
import {
  allowsNull,
  followRefs,
  mergeAllOf as mergeAllOfWith,
  mergeShared,
  type Node,
} from "./internal/schemaWalk.js"
import { checkStrictLimits } from "./strictLimits.js"

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

/** The name of the property a non-object root is wrapped in. @since 0.1.0 */
export const WRAPPED_ROOT_PROPERTY = "value"

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
  (isJsonObject(schema) &&
    Object.keys(schema).every((k) => k === "not" || k === "description" || k === "title" || SILENT.has(k)) &&
    (schema.not === true || (isJsonObject(schema.not) && Object.keys(schema.not).length === 0)))

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
  if (m && m[1] === ctx.defsKey && ctx.rootDefs?.has(unescapeJsonPointer(m[2]!))) return `#/$defs/${m[2]}`
  const hoisted = ctx.hoisted
  if (hoisted === undefined) return rewriteRef(ref)
  let name = hoisted.get(ref)
  if (name === undefined) {
    const segments = ref.slice(2).split("/").map(unescapeJsonPointer)
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
  const {
    node: branch,
    refs,
    unresolved,
  } = followRefs(ctx.root, raw, {
    before: (ref, followed) => {
      if (!ref.startsWith("#")) throw new NotStrict(`${at}/$ref`, `remote $ref "${ref}" is not supported`)
      if (ctx.expanding.includes(ref) || followed.includes(ref))
        throw new NotStrict(
          `${at}/$ref`,
          `recursive union branch ${ref} cannot take the keywords around the union`,
        )
    },
  })
  if (unresolved !== undefined) throw new NotStrict(`${at}/$ref`, `$ref "${unresolved}" does not resolve`)
  if (!isJsonObject(branch)) throw new NotStrict(at, "union branch is not a schema object")
  const own: Node = Array.isArray(branch.allOf) ? mergeAllOf(branch, at, ctx) : branch
  const node = mergeShared(shared, own, (key) => {
    throw new NotStrict(
      `${at}/${escapeJsonPointer(key)}`,
      `the union branch and the schema around the union disagree on "${key}"`,
    )
  })
  return { node, refs }
}

/** `allOf` merged for conversion: a branch that is only a `$ref` is inlined; any disagreement is not strict-able. */
const mergeAllOf = (node: Node, path: string, ctx: Ctx): Node =>
  mergeAllOfWith(
    node,
    (raw, i) => {
      let branch = raw
      if (isJsonObject(branch) && typeof branch.$ref === "string" && Object.keys(branch).length === 1) {
        const target = resolveLocalRef(ctx.root, branch.$ref)
        if (target === undefined || ctx.expanding.includes(branch.$ref))
          throw new NotStrict(`${path}/allOf/${i}`, `allOf branch ${branch.$ref} cannot be merged`)
        branch = target
      }
      if (!isJsonObject(branch))
        throw new NotStrict(`${path}/allOf/${i}`, "allOf branch is not a schema object")
      return branch
    },
    (key, i) => {
      throw new NotStrict(
        `${path}/allOf/${i}/${escapeJsonPointer(key)}`,
        `allOf branches disagree on "${key}"`,
      )
    },
  )

const convert = (input: unknown, path: string, ctx: Ctx): Node => {
  if (
    input === true ||
    (isJsonObject(input) &&
      Object.keys(input).every((k) => k === "description" || k === "title" || SILENT.has(k)))
  )
    throw new NotStrict(path, "a schema that accepts any value cannot be expressed in strict mode")
  if (input === false)
    throw new NotStrict(path, "a schema that accepts nothing cannot be expressed in strict mode")
  if (!isJsonObject(input)) throw new NotStrict(path, "not a schema object")
  let node: Node = input
  if (Array.isArray(node.allOf)) node = mergeAllOf(node, path, ctx)
  if (typeof node.$ref === "string") {
    if (!node.$ref.startsWith("#"))
      throw new NotStrict(`${path}/$ref`, `remote $ref "${node.$ref}" is not supported`)
    const siblings = Object.keys(node).filter((k) => k !== "$ref" && !SILENT.has(k))
    if (resolveLocalRef(ctx.root, node.$ref) === undefined)
      throw new NotStrict(`${path}/$ref`, `$ref "${node.$ref}" does not resolve`)
    if (siblings.length === 0) return { $ref: outputRef(node.$ref, ctx) }
    if (ctx.expanding.includes(node.$ref)) {
      for (const k of siblings)
        lose(ctx, k, `${path}/${escapeJsonPointer(k)}`, `"${k}" next to a recursive $ref was dropped`)
      return { $ref: outputRef(node.$ref, ctx) }
    }
    const target = resolveLocalRef(ctx.root, node.$ref)
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
    const at = `${path}/${escapeJsonPointer(key)}`
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
          node.type !== undefined && isJsonObject(b) && b.type === undefined && b.$ref === undefined
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
    (types.length === 0 && (isJsonObject(node.properties) || node.additionalProperties !== undefined))
  if (isObject) {
    if (types.length === 0) out.type = "object"
    const props = isJsonObject(node.properties) ? node.properties : undefined
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
      const at = `${path}/properties/${escapeJsonPointer(name)}`
      const converted = convert(sub, at, ctx)
      if (required.has(name)) setOwn(outProps, name, converted)
      else {
        if (allowsNull(converted))
          lose(
            ctx,
            "optional",
            at,
            `optional nullable "${name}": leaving it out and sending null are now the same`,
          )
        setOwn(outProps, name, nullable(converted))
      }
    }
    for (const name of required)
      if (!Object.hasOwn(outProps, name))
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

/** Tells whether a (source) schema describes a plain object root. */
const isObjectRoot = (schema: Node): boolean =>
  (schema.type === "object" ||
    (schema.type === undefined &&
      (isJsonObject(schema.properties) ||
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
    if (!isJsonObject(schema)) throw new NotStrict("", "not a schema object")
    let root: Node = schema
    // a root that only points into its definitions: inline the target at the root
    if (typeof root.$ref === "string" && root.$ref !== "#") {
      const target = resolveLocalRef(root, root.$ref)
      if (isJsonObject(target) && !JSON.stringify(target).includes(`"${root.$ref}"`)) {
        const { $ref: _r, ...rest } = root
        root = { ...target, ...rest }
      }
    }
    if (Array.isArray(root.allOf)) root = mergeAllOf(root, "", { root, losses, expanding: [] })
    const defsSource = isJsonObject(root.$defs)
      ? root.$defs
      : isJsonObject(root.definitions)
        ? root.definitions
        : undefined
    const defsKey = isJsonObject(root.$defs) ? "$defs" : "definitions"
    if (isJsonObject(root.$defs) && isJsonObject(root.definitions))
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
      ctx.expanding.push(`#/${defsKey}/${escapeJsonPointer(name)}`)
      try {
        setOwn(defs, name, convert(sub, `/${defsKey}/${escapeJsonPointer(name)}`, ctx))
      } finally {
        ctx.expanding.pop()
      }
    }
    // every other ref target, converted on its own under a new root definition (which may hoist more)
    for (let ref = ctx.pending!.shift(); ref !== undefined; ref = ctx.pending!.shift()) {
      ctx.expanding.push(ref)
      try {
        setOwn(defs, ctx.hoisted!.get(ref)!, convert(resolveLocalRef(ctx.root, ref), ref.slice(1), ctx))
      } finally {
        ctx.expanding.pop()
      }
    }
    if (defsSource || Object.keys(defs).length > 0) converted = { ...converted, $defs: defs }
    checkStrictLimits(converted)
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
