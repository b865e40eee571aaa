/**
 * The prototype-key bug class: properties, definitions, enum values and defaults named `__proto__`,
 * `constructor`, `prototype` or `hasOwnProperty` survive every conversion as data, and the results are
 * plain JSON.
 */
import {
  ownAt,
  ownKeysAt,
  PROTOTYPE_KEY_PROPERTIES,
  PROTOTYPE_KEYS,
  plainJsonViolations,
  prototypeKeySchema,
  prototypeKeyTool,
} from "@toolplane/testkit"
import { describe, expect, it } from "vitest"
import { fromAnthropicTool, toAnthropicTools, toStrictSchema } from "../src/index.js"

describe("toStrictSchema with prototype keys", () => {
  const result = toStrictSchema(prototypeKeySchema())
  if (!result.ok) throw new Error(`not strict-able: ${result.reason} at ${result.path}`)
  const schema = result.schema

  it("is plain JSON and keeps every property, required name, definition, enum value and default as data", () => {
    expect(plainJsonViolations(schema)).toEqual([])
    expect(ownKeysAt(schema, "properties")).toEqual([...PROTOTYPE_KEY_PROPERTIES])
    expect(ownAt(schema, "required")).toEqual([...PROTOTYPE_KEYS, "nested"])
    for (const key of PROTOTYPE_KEYS) {
      expect(ownAt(schema, "properties", key, "enum")).toEqual([key, "other"])
      expect(ownAt(schema, "properties", key, "default")).toBe(key)
    }
    expect(ownKeysAt(schema, "properties", "withDefault", "default")).toEqual(["__proto__"])
    expect(ownKeysAt(schema, "$defs")).toEqual(["__proto__"])
    expect(ownKeysAt(schema, "$defs", "__proto__", "properties")).toEqual([...PROTOTYPE_KEYS])
    expect(ownAt(schema, "$defs", "__proto__", "required")).toEqual(["__proto__", "constructor"])
    expect(ownAt(schema, "properties", "nested")).toEqual({ $ref: "#/$defs/__proto__" })
    expect(ownKeysAt(schema, "properties", "union", "anyOf", 0, "properties")).toEqual(["__proto__"])
    expect(ownKeysAt(schema, "properties", "merged", "properties")).toEqual(["__proto__", "constructor"])
    expect(ownAt(schema, "properties", "merged", "required")).toEqual(["__proto__", "constructor"])
  })

  it("reports a required name without a schema, also one every object inherits", () => {
    const r = toStrictSchema({
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a", "constructor", "toString"],
    })
    if (!r.ok) throw new Error(r.reason)
    expect(r.schema.required).toEqual(["a"])
    expect(r.losses.filter((l) => l.feature === "required")).toHaveLength(2)
  })

  it("drops keywords named like Object.prototype members without restating them", () => {
    const r = toStrictSchema({
      type: "object",
      properties: { a: { type: "string", constructor: 1, toString: 2, hasOwnProperty: 3 } },
    })
    if (!r.ok) throw new Error(r.reason)
    expect(ownAt(r.schema, "properties", "a")).toEqual({ type: "string" })
    expect(r.losses.map((l) => l.feature)).toEqual(["constructor", "toString", "hasOwnProperty"])
  })

  it("does not resolve a $ref through Object.prototype", () => {
    for (const ref of ["#/$defs/__proto__", "#/$defs/constructor"]) {
      const r = toStrictSchema({
        type: "object",
        properties: { a: { $ref: ref }, b: { $ref: "#/$defs/b" } },
        $defs: { b: { type: "string" } },
      })
      expect(r).toMatchObject({ ok: false, reason: `$ref "${ref}" does not resolve` })
    }
  })
})

describe("exports and imports with prototype keys", () => {
  it("toAnthropicTools (strict and not) sends plain JSON with every key", () => {
    for (const strict of [true, false]) {
      const set = toAnthropicTools([prototypeKeyTool()], { strict })
      expect(plainJsonViolations(set.tools)).toEqual([])
      expect(set.tools[0]!.strict === true).toBe(strict)
      expect(ownKeysAt(set.tools[0]!.input_schema, "properties").slice(0, 4)).toEqual([...PROTOTYPE_KEYS])
      expect(ownKeysAt(set.tools[0]!.input_schema, "$defs")).toEqual(["__proto__"])
    }
  })

  it("fromAnthropicTool keeps the keys", () => {
    const imported = fromAnthropicTool({ name: "echo", input_schema: prototypeKeySchema() as never })
    expect(plainJsonViolations(imported.inputSchema)).toEqual([])
    expect(ownKeysAt(imported.inputSchema, "$defs", "__proto__", "properties")).toEqual([...PROTOTYPE_KEYS])
  })
})
