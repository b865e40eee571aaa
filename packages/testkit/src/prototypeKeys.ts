/**
 * Schemas and checks for the prototype-key bug class: a JSON Schema whose property, definition, enum
 * value or default is named `__proto__`, `constructor`, `prototype` or `hasOwnProperty` must convert with
 * the key kept as a data property (`obj[key] = v` on `{}` sets the prototype for `__proto__`, and `key in
 * obj` finds `constructor` on every object), and the converted result must be plain JSON.
 */
import { escapeJsonPointer, makeTool, type Tool, type ToolService } from "@toolplane/foundation"

/**
 * The keys an object literal already answers for (`__proto__` sets the prototype when assigned).
 *
 * @since 0.1.0
 */
export const PROTOTYPE_KEYS = ["__proto__", "constructor", "prototype", "hasOwnProperty"] as const

/**
 * The top-level properties of {@link prototypeKeySchema}, in order.
 *
 * @since 0.1.0
 */
export const PROTOTYPE_KEY_PROPERTIES = [
  ...PROTOTYPE_KEYS,
  "nested",
  "map",
  "withDefault",
  "union",
  "merged",
] as const

const keyed = (make: (key: string) => string): string =>
  PROTOTYPE_KEYS.map((k) => `"${k}": ${make(k)}`).join(", ")

/**
 * A fresh object schema (parsed from JSON text, as a schema arrives from a server) that uses every
 * {@link PROTOTYPE_KEYS} key as a property name (all required, each a string enum of itself with a
 * default and examples), and `__proto__` also as a `$defs` name (referenced from property `nested`),
 * a `patternProperties` pattern, a nested object's property, an `anyOf` branch's property and an
 * `allOf` branch's property, and a default object with a `__proto__` key.
 *
 * @since 0.1.0
 */
export const prototypeKeySchema = (): Record<string, unknown> =>
  JSON.parse(`{
    "type": "object",
    "properties": {
      ${keyed((k) => `{ "type": "string", "enum": ["${k}", "other"], "default": "${k}", "examples": ["${k}"] }`)},
      "nested": { "$ref": "#/$defs/__proto__" },
      "map": { "type": "object", "properties": { "a": { "type": "string" } }, "patternProperties": { "__proto__": { "type": "string" } } },
      "withDefault": { "type": "object", "properties": { "a": { "type": "string" } }, "required": ["a"], "default": { "__proto__": { "polluted": true } } },
      "union": { "anyOf": [{ "type": "object", "properties": { "__proto__": { "type": "integer" } }, "required": ["__proto__"] }, { "type": "string" }] },
      "merged": { "allOf": [{ "type": "object", "properties": { "__proto__": { "type": "boolean" } }, "required": ["__proto__"] }, { "properties": { "constructor": { "type": "boolean" } }, "required": ["constructor"] }] }
    },
    "required": [${PROTOTYPE_KEYS.map((k) => `"${k}"`).join(", ")}, "nested"],
    "$defs": {
      "__proto__": { "type": "object", "properties": { ${keyed(() => `{ "type": "number" }`)} }, "required": ["__proto__", "constructor"], "additionalProperties": false }
    }
  }`)

/**
 * Arguments a model may send for {@link prototypeKeySchema} (parsed from JSON text): every prototype key
 * as an own property, also inside `nested`, `union` and `merged`.
 *
 * @since 0.1.0
 */
export const prototypeKeyArguments = (): Record<string, unknown> =>
  JSON.parse(`{
    ${keyed((k) => `"${k}"`)},
    "nested": { "__proto__": 1, "constructor": 2 },
    "union": { "__proto__": 3 },
    "merged": { "__proto__": true, "constructor": false }
  }`)

/**
 * Every place `value` is not plain JSON data, as `"<pointer>: <what>"`: an object whose prototype is not
 * `Object.prototype` (what `obj.__proto__ = x` leaves behind) or `Array.prototype`, a non-enumerable or
 * symbol key, or a value JSON cannot carry (`undefined`, a function, a non-finite number). Empty means
 * `JSON.parse(JSON.stringify(value))` is an identical copy.
 *
 * @since 0.1.0
 */
export const plainJsonViolations = (value: unknown, path = ""): string[] => {
  if (value === null || typeof value === "string" || typeof value === "boolean") return []
  if (typeof value === "number") return Number.isFinite(value) ? [] : [`${path}: non-finite number`]
  if (typeof value !== "object") return [`${path}: ${typeof value}`]
  const array = Array.isArray(value)
  const out: string[] = []
  if (Object.getPrototypeOf(value) !== (array ? Array.prototype : Object.prototype))
    out.push(`${path}: not a plain ${array ? "array" : "object"} (its prototype was replaced)`)
  if (Object.getOwnPropertySymbols(value).length > 0) out.push(`${path}: symbol keys`)
  for (const key of Object.getOwnPropertyNames(value)) {
    if (array && key === "length") continue
    const at = `${path}/${escapeJsonPointer(key)}`
    if (!Object.getOwnPropertyDescriptor(value, key)?.enumerable) out.push(`${at}: not enumerable`)
    else out.push(...plainJsonViolations((value as Record<string, unknown>)[key], at))
  }
  return out
}

/**
 * The value at a path of own properties (`undefined` when a segment is missing): unlike `a.b.c`, never
 * reads a prototype (`x.__proto__` on an object that lost its `__proto__` property returns the object
 * it was assigned to).
 *
 * @since 0.1.0
 */
export const ownAt = (value: unknown, ...path: readonly (string | number)[]): unknown => {
  let node = value
  for (const key of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

/**
 * The own keys of the object at a path of own properties ({@link ownAt}); `[]` when there is none.
 *
 * @since 0.1.0
 */
export const ownKeysAt = (value: unknown, ...path: readonly (string | number)[]): string[] => {
  const node = ownAt(value, ...path)
  return typeof node === "object" && node !== null ? Object.keys(node) : []
}

/**
 * The tool `keys/echo` with input schema {@link prototypeKeySchema}.
 *
 * @since 0.1.0
 */
export const prototypeKeyTool = (): Tool =>
  makeTool({ id: "keys/echo", description: "Echoes its arguments", inputSchema: prototypeKeySchema() })

/**
 * What is wrong with the calls a {@link prototypeKeyService} recorded, when exactly one call with the
 * arguments `expected` (JSON text) should have arrived as plain data: empty when nothing is.
 *
 * @since 0.1.0
 */
export const echoViolations = (calls: readonly unknown[], expected: string): string[] => {
  if (calls.length !== 1) return [`${calls.length} calls instead of 1`]
  const text = JSON.stringify(calls[0])
  return [...plainJsonViolations(calls[0]), ...(text === expected ? [] : [`arguments ${text}`])]
}

/**
 * A tool service with one tool ({@link prototypeKeyTool}) that records the
 * arguments of every call unvalidated and answers with their JSON text: for round trips that check what
 * reaches the tool, past the validator (whose own handling of these keys is not under test).
 *
 * @since 0.1.0
 */
export const prototypeKeyService = (): {
  readonly tool: Tool
  readonly service: ToolService
  readonly calls: unknown[]
} => {
  const tool = prototypeKeyTool()
  const calls: unknown[] = []
  const service: ToolService = {
    listTools: async () => ({ tools: [tool] }),
    callTool: async (request) => {
      calls.push(request.arguments)
      return { content: [{ type: "text", text: JSON.stringify(request.arguments) }] }
    },
  }
  return { tool, service, calls }
}
