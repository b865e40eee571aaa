/**
 * The reference syntax of skill inputs.
 *
 * - `{ "$ref": "search#/items/0/url" }` is replaced by the value at JSON pointer `/items/0/url` (RFC 6901)
 *   in the result of step `search`; `{ "$ref": "search" }` (or `"search#"`) by the whole value.
 * - `{ "$ref": "$input#/city" }` reads the skill's own arguments (when it runs as a tool).
 * - Inside a string, `{{search#/items/0/title}}` is replaced by that value as text (strings verbatim,
 *   anything else as JSON). Only `{{` + a step id or `$input` + optional `#pointer` + `}}` is a template.
 * - `{ "$literal": value }` is replaced by `value` untouched (to pass a literal `$ref` object).
 *
 * A step's value is its result's `structuredContent`; a result without one reads as
 * `{ "text": <its text blocks joined with "\n"> }`.
 *
 * @since 0.1.0
 */

import type { ToolResult } from "@toolplane/foundation"
import { isJsonObject } from "@toolplane/foundation"

/**
 * A reference found in a step's inputs.
 *
 * @since 0.1.0
 */
export interface Reference {
  /** A step id, or `$input`. */
  readonly source: string
  /** JSON pointer into the source's value; `""` is the whole value. */
  readonly pointer: string
  /** Where in the step's inputs it occurs, e.g. `inputs.query` or `inputs.urls[1]`. */
  readonly path: string
}

/**
 * The reserved source naming the skill's own arguments.
 *
 * @since 0.1.0
 */
export const SKILL_INPUT = "$input"

/** A step id: a letter or `_`, then letters, digits, `_` or `-`. @since 0.1.0 */
export const STEP_ID_RE = /^[A-Za-z_][A-Za-z0-9_-]{0,127}$/

const REF_RE = /^(\$input|[A-Za-z_][A-Za-z0-9_-]{0,127})(?:#(\/[\s\S]*)?)?$/
const TEMPLATE_RE = /\{\{\s*(\$input|[A-Za-z_][A-Za-z0-9_-]{0,127})(?:#(\/[^}\s]*)?)?\s*\}\}/g

/**
 * Builds a reference value: `ref("search", "/items/0")` is `{ $ref: "search#/items/0" }`.
 *
 * @since 0.1.0
 */
export const ref = (source: string, pointer = ""): { readonly $ref: string } => ({
  $ref: pointer === "" ? source : `${source}#${pointer}`,
})

/**
 * A malformed reference (reported by the planner as `InvalidStep`).
 *
 * @since 0.1.0
 */
export class MalformedReference extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`)
  }
}

const child = (at: string, key: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`

const refOf = (value: Record<string, unknown>, path: string): Reference | undefined => {
  const keys = Object.keys(value)
  if (!keys.includes("$ref")) return undefined
  if (keys.length !== 1)
    throw new MalformedReference(path, `a {"$ref"} object must have no other keys (found ${keys.join(", ")})`)
  const raw = value.$ref
  if (typeof raw !== "string") throw new MalformedReference(path, '"$ref" must be a string')
  const m = REF_RE.exec(raw)
  if (!m)
    throw new MalformedReference(
      path,
      `"${raw}" is not a reference; write "<step id>#/json/pointer", "<step id>" or "$input#/pointer"`,
    )
  return { source: m[1]!, pointer: m[2] ?? "", path }
}

/**
 * Lists every reference in a step's inputs, depth first. Throws {@link MalformedReference}.
 *
 * @since 0.1.0
 */
export const collectReferences = (inputs: unknown, path = "inputs"): Reference[] => {
  const out: Reference[] = []
  const walk = (value: unknown, at: string): void => {
    if (typeof value === "string") {
      for (const m of value.matchAll(TEMPLATE_RE)) out.push({ source: m[1]!, pointer: m[2] ?? "", path: at })
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, `${at}[${i}]`)
    } else if (isJsonObject(value)) {
      if ("$literal" in value && Object.keys(value).length === 1) return
      const r = refOf(value, at)
      if (r) {
        out.push(r)
        return
      }
      for (const [k, v] of Object.entries(value)) walk(v, child(at, k))
    }
  }
  walk(inputs, path)
  return out
}

/**
 * Reads a JSON pointer (RFC 6901); `found: false` when a segment is missing.
 *
 * @since 0.1.0
 */
export const readPointer = (value: unknown, pointer: string): { found: boolean; value?: unknown } => {
  if (pointer === "") return { found: true, value }
  let current: unknown = value
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) >= current.length) return { found: false }
      current = current[Number(key)]
    } else if (isJsonObject(current) && Object.hasOwn(current, key)) {
      current = current[key]
    } else return { found: false }
  }
  return { found: true, value: current }
}

/**
 * The value references read from a step's result.
 *
 * @since 0.1.0
 */
export const resultValue = (result: ToolResult): unknown =>
  result.structuredContent ?? {
    text: result.content
      .filter((b) => b.type === "text")
      .map((b) => (b as { text: string }).text)
      .join("\n"),
  }

/**
 * A reference whose pointer found nothing at run time.
 *
 * @since 0.1.0
 */
export class UnresolvedReference extends Error {
  constructor(readonly reference: Reference) {
    super(
      `${reference.path}: ${reference.source === SKILL_INPUT ? "the skill input" : `step "${reference.source}"`} has no value at "${reference.pointer || "/"}"`,
    )
  }
}

/**
 * Replaces every reference in `inputs` with the value it points at. Throws {@link UnresolvedReference}.
 *
 * @since 0.1.0
 */
export const resolveInputs = (
  inputs: Readonly<Record<string, unknown>>,
  lookupSource: (source: string) => unknown,
): Record<string, unknown> => {
  const read = (r: Reference): unknown => {
    const hit = readPointer(lookupSource(r.source), r.pointer)
    if (!hit.found) throw new UnresolvedReference(r)
    return hit.value
  }
  const walk = (value: unknown, at: string): unknown => {
    if (typeof value === "string") {
      if (!value.includes("{{")) return value
      return value.replace(TEMPLATE_RE, (_m, source: string, pointer: string | undefined) => {
        const v = read({ source, pointer: pointer ?? "", path: at })
        return typeof v === "string" ? v : JSON.stringify(v)
      })
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${at}[${i}]`))
    if (isJsonObject(value)) {
      if ("$literal" in value && Object.keys(value).length === 1) return value.$literal
      const r = refOf(value, at)
      if (r) return read(r)
      const out: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, child(at, k))
      return out
    }
    return value
  }
  return walk(inputs, "inputs") as Record<string, unknown>
}
