/**
 * The JSON Schema walking that strict conversion, its limits check and argument restoration share:
 * pointers, `$ref` chains, `allOf` merging and merging the keywords around a union into one branch.
 * Written once; each caller decides what a conflict means (conversion: not strict-able; restoration: keep
 * the first).
 */

import { getOwn, isJsonObject, resolveLocalRef, setOwn } from "@toolplane/foundation"

export type Node = Record<string, unknown>

/** Whether a schema (converted or source) accepts `null` by its type, enum, const or an `anyOf` branch. */
export const allowsNull = (schema: Node): boolean => {
  const t = schema.type
  if (t === "null" || (Array.isArray(t) && t.includes("null"))) return true
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true
  if ("const" in schema && schema.const === null) return true
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((s) => isJsonObject(s) && allowsNull(s))
  return false
}

/**
 * Follows a chain of `$ref`s from `schema`: each target is taken with the referring node's other
 * keywords on top (`{ ...target, ...siblings }`). `before(ref, followed)` runs before each hop and may
 * throw to refuse it. Stops at the first ref that does not resolve (reported as `unresolved`) or after
 * `maxHops`.
 */
export const followRefs = (
  root: Node,
  schema: unknown,
  options: {
    readonly pointer?: (ref: string) => string
    readonly before?: (ref: string, followed: readonly string[]) => void
    readonly maxHops?: number
  } = {},
): { readonly node: unknown; readonly refs: string[]; readonly unresolved?: string } => {
  let node = schema
  const refs: string[] = []
  const max = options.maxHops ?? 32
  while (isJsonObject(node) && typeof node.$ref === "string" && refs.length < max) {
    const ref = node.$ref
    options.before?.(ref, refs)
    const target = resolveLocalRef(root, options.pointer ? options.pointer(ref) : ref)
    if (!isJsonObject(target)) return { node, refs, unresolved: ref }
    refs.push(ref)
    const { $ref: _r, ...siblings } = node
    node = { ...target, ...siblings }
  }
  return { node, refs }
}

/**
 * Merges `node.allOf` into one schema: `branchOf(raw, i)` turns each branch into a schema object (or
 * `undefined` to skip it); properties are merged (a later branch wins for a name in both), `required`
 * lists united, the first `description`/`title` kept; another keyword two branches disagree on goes to
 * `conflict(key, i)`, which may throw (default: keep the first).
 */
export const mergeAllOf = (
  node: Node,
  branchOf: (raw: unknown, index: number) => Node | undefined,
  conflict: (key: string, index: number) => void = () => {},
): Node => {
  const { allOf, ...base } = node
  const merged: Node = { ...base }
  for (const [i, raw] of (allOf as unknown[]).entries()) {
    const branch = branchOf(raw, i)
    if (branch === undefined) continue
    for (const [key, value] of Object.entries(branch)) {
      if (key === "properties" && isJsonObject(value)) {
        merged.properties = { ...(isJsonObject(merged.properties) ? merged.properties : {}), ...value }
      } else if (key === "required" && Array.isArray(value)) {
        merged.required = [...new Set([...((merged.required as string[]) ?? []), ...(value as string[])])]
      } else if (key === "description" || key === "title") {
        if (getOwn(merged, key) === undefined) setOwn(merged, key, value)
      } else if (Object.hasOwn(merged, key) && JSON.stringify(merged[key]) !== JSON.stringify(value)) {
        conflict(key, i)
      } else setOwn(merged, key, value)
    }
  }
  return merged
}

/**
 * One union branch with the keywords around the union (`shared`) on it, as one complete alternative:
 * properties of both (the branch wins for a name in both), `required` of both,
 * `additionalProperties: false` when either says so; another keyword both set differently goes to
 * `conflict(key)`, which may throw (default: the branch's own value).
 */
export const mergeShared = (shared: Node, branch: Node, conflict: (key: string) => void = () => {}): Node => {
  const merged: Node = { ...branch }
  for (const [key, value] of Object.entries(shared)) {
    const mine = getOwn(merged, key)
    if (key === "properties" && isJsonObject(value)) {
      merged.properties = { ...value, ...(isJsonObject(mine) ? mine : {}) }
    } else if (key === "required" && Array.isArray(value)) {
      merged.required = [...new Set([...value, ...(Array.isArray(mine) ? mine : [])])]
    } else if (key === "additionalProperties") {
      if (value === false || mine === false) merged.additionalProperties = false
      else if (mine === undefined) merged.additionalProperties = value
    } else if (mine === undefined) {
      setOwn(merged, key, value)
    } else if (JSON.stringify(mine) !== JSON.stringify(value)) {
      conflict(key)
    }
  }
  return merged
}
