/**
 * Restoration: undoes, on the arguments a model sent for a strict schema, what strict conversion changed
 * in the contract (a wrapped root, optional properties that became required-but-nullable).
 *
 * @since 0.1.0
 */
import { getOwn, isJsonObject, type JsonSchema, resolveLocalRef, setOwn } from "@toolplane/foundation"
import { allowsNull, followRefs, mergeAllOf, mergeShared, type Node } from "./internal/schemaWalk.js"
import { WRAPPED_ROOT_PROPERTY } from "./strictSchema.js"

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
    ref.startsWith("#/$defs/") && !isJsonObject(root.$defs) ? ref.replace("#/$defs/", "#/definitions/") : ref
  /** Follows `$ref`s and merges `allOf`, with the walkers the conversion uses (a conflict keeps the first). */
  const resolve = (schema: unknown, depth: number): Node | undefined => {
    const { node: s } = followRefs(root, schema, { pointer })
    if (!isJsonObject(s) || depth > 64) return undefined
    if (!Array.isArray(s.allOf)) return s
    return mergeAllOf(s, (raw) => resolve(raw, depth + 1))
  }
  /** The union branches of `s` as complete alternatives (the keywords around the union included). */
  const alternatives = (s: Node, depth: number): Node[] | undefined => {
    const key = Array.isArray(s.anyOf) ? "anyOf" : Array.isArray(s.oneOf) ? "oneOf" : undefined
    if (key === undefined) return undefined
    const { anyOf: _a, oneOf: _o, ...shared } = s
    return (s[key] as unknown[]).flatMap((raw) => {
      const b = resolve(raw, depth + 1)
      if (!b) return []
      const merged = mergeShared(shared, b)
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
    if (!isJsonObject(value)) return undefined
    const covers = (a: Node) => {
      const props = isJsonObject(a.properties) ? a.properties : {}
      return Object.keys(value).every((k) => Object.hasOwn(props, k))
    }
    const fits = (a: Node) => {
      const props = isJsonObject(a.properties) ? a.properties : {}
      const required = Array.isArray(a.required) ? (a.required as string[]) : []
      return (
        covers(a) &&
        required.every(
          (k) => Object.hasOwn(value, k) && (value[k] !== null || matches(getOwn(props, k), null, depth)),
        ) &&
        Object.entries(value).every(([k, v]) => v === null || matches(getOwn(props, k), v, depth))
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
    if (!isJsonObject(value)) return value
    const props = isJsonObject(s.properties) ? s.properties : {}
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : [])
    const out: Record<string, unknown> = {}
    for (const [key, v] of Object.entries(value)) {
      const sub = getOwn(props, key)
      if (v === null && !required.has(key) && isJsonObject(sub) && !acceptsNull(sub, root)) continue
      setOwn(out, key, sub === undefined ? v : restore(sub, v, depth + 1))
    }
    return out
  }
  if (options.wrapped) return restore(root, args[WRAPPED_ROOT_PROPERTY], 0) as Record<string, unknown>
  return restore(root, args, 0) as Record<string, unknown>
}

const acceptsNull = (schema: Node, root: Node): boolean => {
  if (allowsNull(schema)) return true
  if (Array.isArray(schema.oneOf) && schema.oneOf.some((s) => isJsonObject(s) && allowsNull(s))) return true
  if (typeof schema.$ref === "string") {
    const target = resolveLocalRef(
      root,
      schema.$ref.startsWith("#/$defs/") && !isJsonObject(root.$defs)
        ? schema.$ref.replace("#/$defs/", "#/definitions/")
        : schema.$ref,
    )
    return isJsonObject(target) && target !== schema && acceptsNull(target, root)
  }
  return false
}
