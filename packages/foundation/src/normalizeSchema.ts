/**
 * Normalisation of JSON Schemas from the wild (MCP servers, OpenAPI generators, hand-written draft-04
 * schemas) into the 2020-12 form Toolplane validates, where the meaning is clear. Without it a schema such
 * as `{ minimum: 0, exclusiveMinimum: true }` (draft-04) does not compile and the whole tool is lost.
 *
 * @since 0.1.0
 */

import { SUBSCHEMA_LIST, SUBSCHEMA_MAP, SUBSCHEMA_ONE } from "./internal/schemaKeywords.js"
import { isJsonObject } from "./jsonObject.js"
import { escapeJsonPointer } from "./jsonPointer.js"
import type { JsonSchema } from "./jsonSchema.js"
import { setOwn } from "./ownProperty.js"

/**
 * One rewrite {@link normalizeJsonSchema} made, as a JSON pointer into the source schema.
 *
 * @since 0.1.0
 */
export interface SchemaNormalization {
  /** The keyword rewritten, e.g. `"exclusiveMinimum"`, `"required"`, `"type"`. */
  readonly keyword: string
  /** JSON pointer into the source schema. */
  readonly path: string
  readonly message: string
}

type Node = Record<string, unknown>

/** A branch that accepts nothing. */
const matchesNothing = (s: unknown): boolean =>
  s === false || (isJsonObject(s) && isJsonObject(s.not) && Object.keys(s.not).length === 0)

/**
 * Rewrites the draft-03/draft-04 and generator idioms whose meaning is unambiguous, leaving everything
 * else untouched (the input is never mutated; unchanged subtrees are shared). Every rewrite is one entry
 * of `changes`, except the two that are pure spelling (null keywords, dead union branches):
 * - a keyword whose value is `null` is absent (`const: null` and `default: null` are values and stay);
 * - boolean `exclusiveMinimum` / `exclusiveMaximum` (draft-04): `true` with `minimum` / `maximum` becomes
 *   the numeric form, `false` (or `true` without a bound) is removed;
 * - boolean `required` on a property (draft-03) moves into the parent's `required` list;
 * - `type: "any"` is removed, and `"any"` in a type list removes the list (any type);
 * - a `required` list that is not a list of strings keeps only its strings;
 * - a draft-04 tuple (`items: [...]`, `additionalItems`) becomes `prefixItems` (and `items`);
 * - `anyOf` / `oneOf` branches that match nothing (`false`, `{ not: {} }`) are dropped, and a union left
 *   with one object branch becomes that branch (merged into the parent unless a keyword clashes).
 *
 * Exporters run it before converting a schema for a provider, and MCP import runs it on every schema it
 * receives, so all of them accept the same schemas.
 *
 * @example
 * ```ts
 * const { schema, changes } = normalizeJsonSchema({ type: "number", minimum: 0, exclusiveMinimum: true })
 * // schema: { type: "number", exclusiveMinimum: 0 }; changes[0].keyword === "exclusiveMinimum"
 * ```
 * @since 0.1.0
 */
export const normalizeJsonSchema = (
  schema: JsonSchema,
): { readonly schema: JsonSchema; readonly changes: readonly SchemaNormalization[] } => {
  const changes: SchemaNormalization[] = []
  const note = (keyword: string, path: string, message: string) => changes.push({ keyword, path, message })

  const visit = (input: unknown, path: string, depth: number): unknown => {
    if (!isJsonObject(input) || depth > 128) return input
    let node: Node | undefined
    const edit = (): Node => {
      if (node === undefined) node = { ...input }
      return node
    }
    const get = (k: string) => (node ?? input)[k]
    for (const [k, v] of Object.entries(input))
      if (v === null && k !== "const" && k !== "default") delete edit()[k]
    for (const [bound, exclusive] of [
      ["minimum", "exclusiveMinimum"],
      ["maximum", "exclusiveMaximum"],
    ] as const) {
      const flag = get(exclusive)
      if (typeof flag !== "boolean") continue
      const n = edit()
      const limit = n[bound]
      if (flag && typeof limit === "number") {
        n[exclusive] = limit
        delete n[bound]
        note(
          exclusive,
          `${path}/${exclusive}`,
          `draft-04 "${exclusive}: true" became "${exclusive}: ${limit}"`,
        )
      } else {
        delete n[exclusive]
        note(exclusive, `${path}/${exclusive}`, `draft-04 "${exclusive}: ${flag}" removed (no effect)`)
      }
    }
    const type = get("type")
    if (type === "any" || (Array.isArray(type) && type.includes("any"))) {
      delete edit().type
      note("type", `${path}/type`, '"any" is not a JSON Schema type; the type constraint was removed')
    }
    const required = get("required")
    if (required !== undefined && typeof required !== "boolean" && !Array.isArray(required)) {
      delete edit().required
      note(
        "required",
        `${path}/required`,
        `"required" must be a list of names; ${JSON.stringify(required)} removed`,
      )
    } else if (Array.isArray(required) && required.some((r) => typeof r !== "string")) {
      edit().required = required.filter((r) => typeof r === "string")
      note("required", `${path}/required`, 'non-string entries of "required" removed')
    }
    if (typeof required === "boolean") {
      // a draft-03 flag on a schema that is not a property (the parent handles properties)
      delete edit().required
      if (path === "" || !/\/properties\/[^/]+$/.test(path))
        note("required", `${path}/required`, `draft-03 "required: ${required}" outside properties removed`)
    }
    for (const k of SUBSCHEMA_ONE) {
      const v = get(k)
      if (!isJsonObject(v)) continue
      const out = visit(v, `${path}/${k}`, depth + 1)
      if (out !== v) edit()[k] = out
    }
    for (const k of [...SUBSCHEMA_LIST, "items"]) {
      const v = get(k)
      if (!Array.isArray(v)) continue
      const out = v.map((s, i) => visit(s, `${path}/${k}/${i}`, depth + 1))
      if (out.some((s, i) => s !== v[i])) edit()[k] = out
    }
    for (const k of SUBSCHEMA_MAP) {
      const v = get(k)
      if (!isJsonObject(v)) continue
      let changed = false
      const lifted: string[] = []
      const out: Node = {}
      for (const [name, sub] of Object.entries(v)) {
        if (k === "properties" && isJsonObject(sub) && typeof sub.required === "boolean") {
          if (sub.required) {
            lifted.push(name)
            note(
              "required",
              `${path}/properties/${escapeJsonPointer(name)}/required`,
              `draft-03 "required: true" moved into the parent's "required" list`,
            )
          } else
            note(
              "required",
              `${path}/properties/${escapeJsonPointer(name)}/required`,
              'draft-03 "required: false" removed',
            )
        }
        const converted = visit(sub, `${path}/${k}/${escapeJsonPointer(name)}`, depth + 1)
        if (converted !== sub) changed = true
        setOwn(out, name, converted)
      }
      if (changed) edit()[k] = out
      if (lifted.length > 0) {
        const current = get("required")
        const list = Array.isArray(current) ? (current as string[]) : []
        edit().required = [...new Set([...list, ...lifted])]
      }
    }
    const tuple = get("items")
    if (Array.isArray(tuple)) {
      // an items array is draft-04 whatever else the node says; it replaces a prefixItems beside it
      const n = edit()
      const replaced = n.prefixItems !== undefined
      n.prefixItems = tuple
      if (n.additionalItems === undefined) delete n.items
      else n.items = n.additionalItems
      delete n.additionalItems
      note(
        "items",
        `${path}/items`,
        `draft-04 tuple (items array) rewritten as prefixItems${replaced ? ", replacing the prefixItems beside it" : ""}`,
      )
    }
    for (const k of ["anyOf", "oneOf"] as const) {
      const branches = get(k)
      if (!Array.isArray(branches) || !branches.some(matchesNothing)) continue
      const kept = branches.filter((b) => !matchesNothing(b))
      if (kept.length === 0) continue // the schema accepts nothing; say so by leaving it as it is
      const n = edit()
      const only = kept.length === 1 && isJsonObject(kept[0]) ? kept[0] : undefined
      const clash =
        only !== undefined &&
        Object.keys(only).some((key) => key in n && key !== k && key !== "description" && key !== "title")
      if (only === undefined || clash) n[k] = kept
      else {
        delete n[k]
        node = { ...only, ...n }
      }
    }
    return node ?? input
  }

  return { schema: visit(schema, "", 0) as JsonSchema, changes }
}
