/**
 * Strict tool use: rewrites a JSON Schema into the subset Anthropic accepts for `strict: true` tools
 * (grammar-constrained sampling), reporting every change that loses meaning.
 *
 * The rules (Anthropic's documented JSON Schema limitations for structured outputs and strict tools):
 * - supported: the basic types (alone or as a type list), `enum` of strings, numbers, booleans and
 *   `null`, `const`, `anyOf`, `allOf` (merged here), local `$ref` into `$defs`/`definitions`, `default`,
 *   `title`, `description`, `required` (optional properties stay optional), `items`, `minItems` of 0
 *   or 1, string `format` `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `uri`, `ipv4`,
 *   `ipv6`, `uuid`, and simple regular expressions in `pattern`;
 * - every object has `additionalProperties: false` (an object with named properties and an open
 *   `additionalProperties` is closed, with a warning);
 * - not supported, so removed with a warning and restated in the description where it helps the
 *   model: numeric bounds (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
 *   `multipleOf`), string lengths, `maxItems`, `minItems` above 1, `minProperties`/`maxProperties`,
 *   `uniqueItems`, `examples`, other formats, patterns with backreferences, lookaround, word
 *   boundaries or large repeat counts, and the applicators `not`, `if`/`then`/`else`,
 *   `patternProperties`, `dependentRequired`, `dependentSchemas`, `propertyNames`, `contains`,
 *   `unevaluated*`;
 * - `oneOf` becomes `anyOf` (exclusivity is lost; warning);
 * - cannot be strict (the tool goes out with `strict: false`): recursive schemas, remote `$ref`s,
 *   enums of objects or arrays, tuples (`prefixItems`, an `items` array), an object of any shape
 *   (open map without named properties), an `allOf` whose branches disagree.
 *
 * The runner still validates the original schema before a tool runs, so a dropped constraint is
 * enforced there and reported to the model as invalid arguments.
 *
 * @since 0.1.0
 */
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
 * The outcome of {@link toStrictSchema}.
 *
 * @since 0.1.0
 */
export type StrictSchemaResult =
  | { readonly ok: true; readonly schema: JsonSchema; readonly losses: readonly SchemaLoss[] }
  | {
      readonly ok: false
      /** JSON pointer to the part that cannot be expressed. */
      readonly path: string
      readonly reason: string
      readonly losses: readonly SchemaLoss[]
    }

/**
 * The string formats strict tool use accepts.
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
  "uri",
  "ipv4",
  "ipv6",
  "uuid",
])

/**
 * Anthropic's documented per-request limits for strict tools: strict tools, optional properties and
 * properties with union types, counted over every strict schema of one request.
 *
 * @since 0.1.0
 */
export const STRICT_LIMITS = Object.freeze({
  maxStrictTools: 20,
  maxOptionalProperties: 24,
  maxUnionProperties: 16,
})

class NotStrict extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(reason)
  }
}

type Node = Record<string, unknown>

const SILENT = new Set(["$schema", "$id", "$comment", "$anchor", "$vocabulary", "$dynamicAnchor"])
const KEEP = new Set([
  "type",
  "properties",
  "required",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
  "default",
  "title",
  "description",
  "format",
  "pattern",
  "additionalProperties",
  "minItems",
])
const RESTATE: Record<string, (v: unknown) => string> = {
  minimum: (v) => `At least ${v}.`,
  maximum: (v) => `At most ${v}.`,
  exclusiveMinimum: (v) => `Greater than ${v}.`,
  exclusiveMaximum: (v) => `Less than ${v}.`,
  multipleOf: (v) => `A multiple of ${v}.`,
  minLength: (v) => `At least ${v} characters.`,
  maxLength: (v) => `At most ${v} characters.`,
  maxItems: (v) => `At most ${v} items.`,
  minItems: (v) => `At least ${v} items.`,
  minProperties: (v) => `At least ${v} properties.`,
  maxProperties: (v) => `At most ${v} properties.`,
  uniqueItems: (v) => (v === true ? "Items must be unique." : ""),
  examples: (v) => `Examples: ${short(v)}.`,
  format: (v) => `Format: ${v}.`,
  pattern: (v) => `Must match the regular expression ${short(v)}.`,
}
const TUPLE = new Set(["prefixItems"])

const short = (value: unknown): string => {
  const s = JSON.stringify(value)
  return s.length > 80 ? `${s.slice(0, 77)}...` : s
}

/** Regular-expression features grammar-constrained sampling does not support. */
const UNSUPPORTED_PATTERN = /\\[1-9]|\\k<|\(\?[=!<]|\\[bB]|\{(\d{3,}|\d+,\d{3,})\}/

/**
 * Tells whether a `pattern` uses only the regular-expression features strict tool use supports (no
 * backreferences, lookaround, word boundaries or repeat counts of 100 and more).
 *
 * @since 0.1.0
 */
export const isSimplePattern = (pattern: string): boolean => !UNSUPPORTED_PATTERN.test(pattern)

interface Ctx {
  readonly root: Node
  readonly losses: SchemaLoss[]
}

const lose = (ctx: Ctx, feature: string, path: string, message: string) =>
  ctx.losses.push({ feature, path, message })

/**
 * Drops root definitions no `$ref` reachable from the root uses: they mean nothing, and a strict
 * grammar would still have to compile them.
 */
const pruneDefinitions = (root: Node): Node => {
  const used = new Set<string>()
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n)
      return
    }
    if (!isJsonObject(node)) return
    for (const [key, value] of Object.entries(node)) {
      if (key === "$defs" || key === "definitions") continue
      if (key === "$ref" && typeof value === "string" && !used.has(value)) {
        used.add(value)
        visit(resolveLocalRef(root, value))
      } else if (typeof value === "object" && value !== null && key !== "enum" && key !== "const")
        visit(value)
    }
  }
  visit(root)
  const out: Node = { ...root }
  for (const key of ["$defs", "definitions"]) {
    if (!isJsonObject(root[key])) continue
    const kept = Object.entries(root[key] as Node).filter(([name]) =>
      [...used].some(
        (ref) =>
          ref === `#/${key}/${escapeJsonPointer(name)}` ||
          ref.startsWith(`#/${key}/${escapeJsonPointer(name)}/`),
      ),
    )
    if (kept.length > 0) out[key] = Object.fromEntries(kept)
    else delete out[key]
  }
  return out
}

/** Fails when following `$ref`s from the root can come back to a schema already being expanded. */
const checkNotRecursive = (root: Node): void => {
  const visit = (node: unknown, path: string, stack: readonly string[]): void => {
    if (Array.isArray(node)) {
      for (const [i, n] of node.entries()) visit(n, `${path}/${i}`, stack)
      return
    }
    if (!isJsonObject(node)) return
    for (const [key, value] of Object.entries(node)) {
      if (key === "$defs" || key === "definitions") continue
      if (key === "$ref" && typeof value === "string") {
        if (!value.startsWith("#"))
          throw new NotStrict(`${path}/$ref`, `remote $ref "${value}" is not supported`)
        if (stack.includes(value))
          throw new NotStrict(`${path}/$ref`, `recursive schema (${value}) is not supported in strict mode`)
        const target = resolveLocalRef(root, value)
        if (target === undefined) throw new NotStrict(`${path}/$ref`, `$ref "${value}" does not resolve`)
        visit(target, value.slice(1), [...stack, value])
      } else if (typeof value === "object" && value !== null)
        visit(value, `${path}/${escapeJsonPointer(key)}`, stack)
    }
  }
  visit(root, "", ["#"])
}

const mergeAllOf = (node: Node, path: string, ctx: Ctx, depth = 0): Node => {
  if (depth > 32) throw new NotStrict(path, "allOf nested too deeply (recursive?)")
  const { allOf, ...base } = node
  let merged: Node = { ...base }
  for (const [i, raw] of (allOf as unknown[]).entries()) {
    let branch = raw
    if (isJsonObject(branch) && typeof branch.$ref === "string" && Object.keys(branch).length === 1)
      branch = resolveLocalRef(ctx.root, branch.$ref)
    if (!isJsonObject(branch))
      throw new NotStrict(`${path}/allOf/${i}`, "allOf branch is not a schema object")
    const flat: Node = Array.isArray(branch.allOf)
      ? mergeAllOf(branch, `${path}/allOf/${i}`, ctx, depth + 1)
      : branch
    for (const [key, value] of Object.entries(flat)) {
      if (key === "properties" && isJsonObject(value))
        merged = {
          ...merged,
          properties: { ...(isJsonObject(merged.properties) ? merged.properties : {}), ...value },
        }
      else if (key === "required" && Array.isArray(value))
        merged.required = [...new Set([...((merged.required as string[]) ?? []), ...(value as string[])])]
      else if (key === "description" || key === "title") merged[key] ??= value
      else if (Object.hasOwn(merged, key) && JSON.stringify(merged[key]) !== JSON.stringify(value))
        throw new NotStrict(
          `${path}/allOf/${i}/${escapeJsonPointer(key)}`,
          `allOf branches disagree on "${key}"`,
        )
      else setOwn(merged, key, value)
    }
  }
  return merged
}

const typesOf = (node: Node): string[] =>
  typeof node.type === "string" ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : []

const convert = (input: unknown, path: string, ctx: Ctx): unknown => {
  if (input === true || input === false) return input
  if (!isJsonObject(input)) throw new NotStrict(path, "not a schema object")
  let node = input
  if (Array.isArray(node.allOf)) node = mergeAllOf(node, path, ctx)
  if (Array.isArray(node.oneOf)) {
    const { oneOf, ...rest } = node
    lose(ctx, "oneOf", `${path}/oneOf`, "oneOf became anyOf: exactly-one is now at-least-one")
    if (Array.isArray(rest.anyOf))
      throw new NotStrict(path, "anyOf and oneOf on the same schema cannot be expressed in strict mode")
    node = { ...rest, anyOf: oneOf }
  }
  const out: Node = {}
  const notes: string[] = []
  const types = typesOf(node)
  const isObject =
    types.includes("object") ||
    (types.length === 0 && (isJsonObject(node.properties) || node.additionalProperties !== undefined))
  for (const [key, value] of Object.entries(node)) {
    if (value === undefined || SILENT.has(key)) continue
    const at = `${path}/${escapeJsonPointer(key)}`
    if (
      types.length > 0 &&
      !types.includes("object") &&
      (key === "properties" || key === "required" || key === "additionalProperties")
    ) {
      lose(
        ctx,
        key,
        at,
        `"${key}" on a schema of type ${JSON.stringify(node.type)} means nothing and was removed`,
      )
      continue
    }
    if (TUPLE.has(key) || (key === "items" && Array.isArray(value)))
      throw new NotStrict(at, "tuples cannot be expressed in strict mode")
    if (key === "properties" && isJsonObject(value)) {
      const props: Node = {}
      for (const [name, sub] of Object.entries(value))
        setOwn(props, name, convert(sub, `${at}/${escapeJsonPointer(name)}`, ctx))
      out.properties = props
    } else if ((key === "$defs" || key === "definitions") && isJsonObject(value)) {
      const defs: Node = {}
      for (const [name, sub] of Object.entries(value))
        setOwn(defs, name, convert(sub, `${at}/${escapeJsonPointer(name)}`, ctx))
      out[key] = defs
    } else if (key === "items") {
      out.items = convert(value, at, ctx)
    } else if (key === "anyOf" && Array.isArray(value)) {
      out.anyOf = value.map((b, i) => convert(b, `${at}/${i}`, ctx))
    } else if (key === "enum" && Array.isArray(value)) {
      if (value.some((v) => typeof v === "object" && v !== null))
        throw new NotStrict(at, "enums of objects or arrays are not supported in strict mode")
      out.enum = value
    } else if (key === "const") {
      if (typeof value === "object" && value !== null)
        throw new NotStrict(at, "a const object or array is not supported in strict mode")
      out.const = value
    } else if (key === "format") {
      if (STRICT_FORMATS.has(String(value))) out.format = value
      else {
        lose(
          ctx,
          `format:${String(value)}`,
          at,
          `format "${String(value)}" is not supported in strict mode and was restated in the description`,
        )
        notes.push(RESTATE.format!(value))
      }
    } else if (key === "pattern") {
      if (typeof value === "string" && isSimplePattern(value)) out.pattern = value
      else {
        lose(
          ctx,
          "pattern",
          at,
          "the pattern uses features strict mode does not support and was restated in the description",
        )
        notes.push(RESTATE.pattern!(value))
      }
    } else if (key === "minItems") {
      if (value === 0 || value === 1) out.minItems = value
      else {
        lose(
          ctx,
          key,
          at,
          `minItems ${String(value)} is not supported in strict mode (only 0 or 1) and was restated in the description`,
        )
        out.minItems = 1
        notes.push(RESTATE.minItems!(value))
      }
    } else if (key === "additionalProperties") {
      if (value === false) continue
      if (!isJsonObject(node.properties) || Object.keys(node.properties).length === 0)
        throw new NotStrict(
          at,
          "an object of any shape (a map without named properties) cannot be expressed in strict mode",
        )
      lose(
        ctx,
        key,
        at,
        "additional properties are not allowed in strict mode; only the named properties can be sent",
      )
    } else if (key === "required" && Array.isArray(value)) {
      const named = isJsonObject(node.properties) ? node.properties : {}
      const kept = value.filter((r) => typeof r === "string" && Object.hasOwn(named, r))
      for (const r of value)
        if (!kept.includes(r))
          lose(
            ctx,
            "required",
            at,
            `required "${String(r)}" has no property schema; closed objects cannot carry it, so it was dropped`,
          )
      if (kept.length > 0 || !isObject) out.required = isObject ? kept : value
    } else if (KEEP.has(key)) {
      out[key] = value
    } else if (Object.hasOwn(RESTATE, key)) {
      const note = RESTATE[key]!(value)
      if (note !== "") notes.push(note)
      lose(ctx, key, at, `"${key}" is not supported in strict mode and was restated in the description`)
    } else {
      lose(
        ctx,
        key,
        at,
        `"${key}" is not supported in strict mode and was removed (the tool still validates it)`,
      )
    }
  }
  if (isObject) out.additionalProperties = false
  if (notes.length > 0) {
    const text = notes.join(" ")
    out.description =
      typeof out.description === "string" && out.description !== "" ? `${out.description} (${text})` : text
  }
  return out
}

/**
 * Converts a JSON Schema to Anthropic's strict subset (see the module rules). Never throws: a schema
 * that cannot be strict comes back as `{ ok: false, path, reason }`.
 *
 * @example
 * ```ts
 * const r = toStrictSchema({ type: "object", properties: { n: { type: "integer", minimum: 1 } } })
 * // r.schema: { type: "object", properties: { n: { type: "integer", description: "At least 1." } }, additionalProperties: false }
 * ```
 * @since 0.1.0
 */
export const toStrictSchema = (schema: JsonSchema): StrictSchemaResult => {
  const normalized = normalizeJsonSchema(schema)
  const losses: SchemaLoss[] = normalized.changes.map(({ keyword, path, message }) => ({
    feature: keyword,
    path,
    message,
  }))
  try {
    if (!isJsonObject(normalized.schema)) throw new NotStrict("", "not a schema object")
    const root = pruneDefinitions(normalized.schema as Node)
    checkNotRecursive(root)
    const converted = convert({ ...root, type: root.type ?? "object" }, "", { root, losses }) as Node
    return { ok: true, schema: converted as JsonSchema, losses }
  } catch (error) {
    if (error instanceof NotStrict) return { ok: false, path: error.path, reason: error.reason, losses }
    return { ok: false, path: "", reason: (error as Error).message, losses }
  }
}

/**
 * Counts what Anthropic's per-request strict limits count in one strict schema: optional properties
 * and properties whose schema is a union (`anyOf` or a type list).
 *
 * @since 0.1.0
 */
export const strictComplexity = (schema: JsonSchema): { optional: number; unions: number } => {
  let optional = 0
  let unions = 0
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n)
      return
    }
    if (!isJsonObject(node)) return
    if (isJsonObject(node.properties)) {
      const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : [])
      for (const [name, sub] of Object.entries(node.properties)) {
        if (!required.has(name)) optional++
        if (
          isJsonObject(sub) &&
          (Array.isArray(sub.anyOf) || (Array.isArray(sub.type) && sub.type.length > 1))
        )
          unions++
      }
    }
    for (const [key, value] of Object.entries(node))
      if (key !== "enum" && key !== "const" && key !== "default" && typeof value === "object") visit(value)
  }
  visit(schema)
  return { optional, unions }
}
