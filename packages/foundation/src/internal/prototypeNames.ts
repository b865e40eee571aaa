/**
 * Schemas whose property names are `Object.prototype` members (`constructor`, `toString`, ...) or
 * `__proto__`, which Ajv's default code gets wrong: it tests presence with `data[name] !== undefined`, so
 * an inherited member counts as present (a missing required `constructor` passes, an absent optional one
 * is a type error), and it leaves `__proto__` out of `properties` and draft-07 `dependencies` altogether
 * (a declared `__proto__` is then an additional property and is never checked against its subschema).
 *
 * {@link namesInheritedMember} finds such schemas once, when the schema is compiled; only they take the
 * other path: an Ajv instance with `ownProperties: true` (presence is an own property) and the schema
 * after {@link withProtoAsPattern}, which says the same thing about `__proto__` in keywords Ajv does
 * apply to it. Every other schema compiles exactly as before.
 */

import { isJsonObject } from "../jsonObject.js"
import type { JsonSchema } from "../jsonSchema.js"
import { setOwn } from "../ownProperty.js"
import { SUBSCHEMA_LIST, SUBSCHEMA_MAP, SUBSCHEMA_ONE } from "./schemaKeywords.js"

type Node = Record<string, unknown>

/** `__proto__`, `constructor`, `hasOwnProperty`, `toString`, ... (read once, before any user code). */
const INHERITED: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype))

/** Keywords whose values are data, not schemas or names: nothing in them is a property name. */
const DATA = new Set(["const", "enum", "default", "examples"])

/**
 * Whether any property name in the schema (a key of any object in it: `properties`, `$defs`,
 * `dependentRequired`, ...; or a string in a list: `required`, dependency lists) is an `Object.prototype`
 * member or `__proto__`, at any depth. Values of `const`, `enum`, `default` and `examples` are skipped.
 * It may say yes for a name that is not a property (a `$defs` entry called `toString`); that only costs
 * the slower path.
 */
export const namesInheritedMember = (schema: unknown): boolean => {
  const seen = new Set<object>()
  const walk = (node: unknown): boolean => {
    if (typeof node === "string") return INHERITED.has(node)
    if (typeof node !== "object" || node === null || seen.has(node)) return false
    seen.add(node)
    if (Array.isArray(node)) return node.some(walk)
    for (const key of Object.keys(node)) {
      if (INHERITED.has(key)) return true
      const value = (node as Node)[key]
      if (DATA.has(key) || typeof value === "string") continue
      if (walk(value)) return true
    }
    return false
  }
  return walk(schema)
}

/** Where subschemas are, draft-04 `items` lists and draft-07 `dependencies` included. */
const ONE = SUBSCHEMA_ONE
const MANY = [...SUBSCHEMA_LIST, "items"]
const MAP = [...SUBSCHEMA_MAP, "dependencies"]

/** A pattern matching exactly `__proto__` that the node's `patternProperties` does not use yet. */
const protoPattern = (patterns: Node): string => {
  let pattern = "^__proto__$"
  while (Object.hasOwn(patterns, pattern)) pattern = `^(?:${pattern.slice(1, -1)})$`
  return pattern
}

/** The own `__proto__` entry of `node`, and a copy of `node` without it. */
const takeProto = (node: Node): [unknown, Node] => {
  const rest: Node = {}
  for (const key of Object.keys(node)) if (key !== "__proto__") rest[key] = node[key]
  return [Object.getOwnPropertyDescriptor(node, "__proto__")?.value, rest]
}

/**
 * The schema with every own `__proto__` key that Ajv skips restated in keywords it applies:
 * `properties.__proto__` becomes `patternProperties["^__proto__$"]` (same subschema, same effect on
 * `additionalProperties` and `unevaluatedProperties`, issues at the same instance path), and a draft-07
 * `dependencies.__proto__` becomes an `if`/`then` in `allOf`. The input is never mutated; unchanged
 * subtrees are shared, and a schema without such keys comes back as it is.
 */
export const withProtoAsPattern = (schema: JsonSchema): JsonSchema => {
  const seen = new Map<object, unknown>()
  const visit = (input: unknown): unknown => {
    if (!isJsonObject(input)) return input
    const done = seen.get(input)
    if (done !== undefined) return done
    seen.set(input, input)
    let node: Node | undefined
    const edit = (): Node => {
      node ??= { ...input }
      return node
    }
    for (const k of ONE) {
      const v = input[k]
      if (!isJsonObject(v)) continue
      const out = visit(v)
      if (out !== v) edit()[k] = out
    }
    for (const k of MANY) {
      const v = input[k]
      if (!Array.isArray(v)) continue
      const out = v.map(visit)
      if (out.some((s, i) => s !== v[i])) edit()[k] = out
    }
    for (const k of MAP) {
      const v = input[k]
      if (!isJsonObject(v)) continue
      const out: Node = {}
      let changed = false
      for (const name of Object.keys(v)) {
        const converted = visit(v[name])
        if (converted !== v[name]) changed = true
        setOwn(out, name, converted)
      }
      if (changed) edit()[k] = out
    }
    const properties = (node ?? input).properties
    if (isJsonObject(properties) && Object.hasOwn(properties, "__proto__")) {
      const n = edit()
      const [sub, rest] = takeProto(properties)
      n.properties = rest
      const patterns = isJsonObject(n.patternProperties) ? { ...n.patternProperties } : {}
      setOwn(patterns, protoPattern(patterns), sub)
      n.patternProperties = patterns
    }
    const dependencies = (node ?? input).dependencies
    if (isJsonObject(dependencies) && Object.hasOwn(dependencies, "__proto__")) {
      const n = edit()
      const [dep, rest] = takeProto(dependencies)
      n.dependencies = rest
      const then = Array.isArray(dep) ? { required: dep } : dep
      const allOf = Array.isArray(n.allOf) ? n.allOf : []
      n.allOf = [...allOf, { if: { required: ["__proto__"] }, then }]
    }
    const result = node ?? input
    seen.set(input, result)
    return result
  }
  return visit(schema) as JsonSchema
}
