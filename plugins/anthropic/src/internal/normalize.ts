/**
 * Normalisation of schemas from the wild, where the meaning is clear: keywords whose value is `null`
 * are absent; draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum` become the 2020-12 numeric form;
 * draft-04 tuples (`items: [...]`, `additionalItems`) become `prefixItems`/`items`; draft-03
 * `required: true` on a property moves into the parent's `required` list;
 * union branches that can never match (`{ not: {} }`, `false`) are dropped, and a union left with one
 * branch becomes that branch. Every change that is more than spelling is reported.
 */
import type { JsonSchema } from "@toolplane/foundation"

/**
 * One change to a schema that lost meaning, as a JSON pointer into the source schema.
 *
 * @since 0.2.0
 */
export interface SchemaLoss {
  readonly feature: string
  /** JSON pointer into the source schema. */
  readonly path: string
  readonly message: string
}

type Node = Record<string, unknown>

export const isRecord = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v)
export const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1")

const SCHEMA_MAPS = ["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"]
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"]
const SCHEMA_VALUES = [
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
]

/** A branch that accepts nothing. */
const never = (s: unknown): boolean =>
  s === false || (isRecord(s) && isRecord(s.not) && Object.keys(s.not).length === 0)

const normalizeNode = (input: unknown, path: string, losses: SchemaLoss[]): unknown => {
  if (!isRecord(input)) return input
  const out: Node = {}
  for (const [key, value] of Object.entries(input)) {
    if (value === null && key !== "const" && key !== "default") continue
    if (SCHEMA_MAPS.includes(key) && isRecord(value)) {
      const map: Node = {}
      for (const [k, v] of Object.entries(value))
        map[k] = normalizeNode(v, `${path}/${key}/${esc(k)}`, losses)
      out[key] = map
    } else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) {
      out[key] = value.map((v, i) => normalizeNode(v, `${path}/${key}/${i}`, losses))
    } else if (SCHEMA_VALUES.includes(key) && (isRecord(value) || Array.isArray(value))) {
      out[key] = Array.isArray(value)
        ? value.map((v, i) => normalizeNode(v, `${path}/${key}/${i}`, losses))
        : normalizeNode(value, `${path}/${key}`, losses)
    } else out[key] = value
  }
  if (Array.isArray(out.items)) {
    const { items, additionalItems, ...rest } = out
    const tuple: Node = { ...rest, prefixItems: items }
    if (additionalItems !== undefined) tuple.items = additionalItems
    for (const k of Object.keys(out)) delete out[k]
    Object.assign(out, tuple)
    losses.push({
      feature: "items",
      path: `${path}/items`,
      message: "draft-04 tuple (items array) rewritten as prefixItems",
    })
  }
  if (isRecord(out.properties)) {
    const flagged = Object.entries(out.properties)
      .filter(([, sub]) => isRecord(sub) && typeof sub.required === "boolean")
      .map(([name, sub]) => [name, (sub as Node).required === true] as const)
    if (flagged.length > 0) {
      const props: Node = {}
      for (const [name, sub] of Object.entries(out.properties)) {
        if (isRecord(sub) && typeof sub.required === "boolean") {
          const { required: _r, ...rest } = sub
          props[name] = rest
        } else props[name] = sub
      }
      out.properties = props
      const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : [])
      for (const [name, on] of flagged) if (on) required.add(name)
      if (required.size > 0) out.required = [...required]
      losses.push({
        feature: "required",
        path: `${path}/properties`,
        message: "draft-03 required: true on properties moved into the required list",
      })
    }
  }
  for (const [bound, plain] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof out[bound] !== "boolean") continue
    if (out[bound] === true && typeof out[plain] === "number") {
      out[bound] = out[plain]
      delete out[plain]
      losses.push({
        feature: bound,
        path: `${path}/${bound}`,
        message: `draft-04 "${bound}: true" rewritten as "${bound}: ${String(out[bound])}"`,
      })
    } else {
      if (out[bound] === true)
        losses.push({
          feature: bound,
          path: `${path}/${bound}`,
          message: `"${bound}: true" without "${plain}" means nothing and was dropped`,
        })
      delete out[bound]
    }
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = out[key]
    if (!Array.isArray(branches) || !branches.some(never)) continue
    const kept = branches.filter((b) => !never(b))
    const only = kept.length === 1 && isRecord(kept[0]) ? kept[0] : undefined
    const clash =
      only !== undefined &&
      Object.keys(only).some((k) => k in out && k !== key && k !== "description" && k !== "title")
    if (only !== undefined && !clash) {
      const { [key]: _u, ...rest } = out
      const merged: Node = { ...only, ...rest }
      for (const k of Object.keys(out)) delete out[k]
      Object.assign(out, merged)
    } else if (kept.length > 0) out[key] = kept
  }
  return out
}

/** Normalises a schema from the wild (see the module rules). Never throws. */
export const normalizeSchema = (schema: JsonSchema): { schema: JsonSchema; losses: SchemaLoss[] } => {
  const losses: SchemaLoss[] = []
  return { schema: normalizeNode(schema, "", losses) as JsonSchema, losses }
}
