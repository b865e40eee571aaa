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
  prototypeKeyArguments,
  prototypeKeySchema,
  prototypeKeyTool,
} from "@toolplane/testkit"
import { describe, expect, it } from "vitest"
import {
  fromOpenAITool,
  functionTools,
  restoreArguments,
  toOpenAITools,
  toStrictSchema,
} from "../src/index.js"

describe("toStrictSchema with prototype keys", () => {
  const result = toStrictSchema(prototypeKeySchema())
  if (!result.ok) throw new Error(`not strict-able: ${result.reason} at ${result.path}`)
  const schema = result.schema

  it("is plain JSON and keeps every property, required name and definition as data", () => {
    expect(plainJsonViolations(schema)).toEqual([])
    expect(ownKeysAt(schema, "properties")).toEqual([...PROTOTYPE_KEY_PROPERTIES])
    expect(ownAt(schema, "required")).toEqual(ownKeysAt(schema, "properties"))
    for (const key of PROTOTYPE_KEYS) {
      expect(ownAt(schema, "properties", key, "type")).toBe("string")
      expect(ownAt(schema, "properties", key, "enum")).toEqual([key, "other"])
      expect(ownAt(schema, "properties", key, "description")).toBe(`Default: "${key}". Examples: ["${key}"].`)
    }
    expect(ownKeysAt(schema, "$defs")).toEqual(["__proto__"])
    expect(ownKeysAt(schema, "$defs", "__proto__", "properties")).toEqual([...PROTOTYPE_KEYS])
    expect(ownAt(schema, "properties", "nested")).toEqual({ $ref: "#/$defs/__proto__" })
    expect(ownAt(schema, "properties", "union", "anyOf", 0, "required")).toEqual(["__proto__"])
    expect(ownKeysAt(schema, "properties", "union", "anyOf", 0, "properties")).toEqual(["__proto__"])
    expect(ownKeysAt(schema, "properties", "merged", "properties")).toEqual(["__proto__", "constructor"])
  })

  it("reports a required name without a schema, also one every object inherits", () => {
    const r = toStrictSchema({
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a", "constructor", "toString"],
    })
    expect(r.ok).toBe(true)
    expect(r.losses.filter((l) => l.feature === "required").map((l) => l.message)).toEqual([
      'required "constructor" has no schema and was dropped',
      'required "toString" has no schema and was dropped',
    ])
  })

  it("does not resolve a $ref through Object.prototype", () => {
    for (const ref of ["#/$defs/__proto__", "#/$defs/constructor", "#/properties/a/__proto__"]) {
      const r = toStrictSchema({ type: "object", properties: { a: { $ref: ref } }, $defs: {} })
      expect(r).toMatchObject({ ok: false, reason: `$ref "${ref}" does not resolve` })
    }
  })

  it("leaves Object.prototype alone", () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe("restoreArguments with prototype keys", () => {
  it("keeps every argument as data and still drops an optional null", () => {
    const args = { ...prototypeKeyArguments(), map: null, withDefault: null }
    const restored = restoreArguments(prototypeKeySchema(), args)
    expect(plainJsonViolations(restored)).toEqual([])
    expect(Object.keys(restored)).toEqual([...PROTOTYPE_KEYS, "nested", "union", "merged"])
    expect(ownKeysAt(restored, "nested")).toEqual(["__proto__", "constructor"])
    expect(ownAt(restored, "union", "__proto__")).toBe(3)
    expect(ownAt(restored, "merged", "__proto__")).toBe(true)
    expect(JSON.stringify(restored)).toBe(JSON.stringify(prototypeKeyArguments()))
  })

  it("drops an optional null named __proto__ and keeps a required one", () => {
    const source = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"string"}},"required":["constructor"]}',
    )
    expect(
      JSON.stringify(restoreArguments(source, JSON.parse('{"__proto__":null,"constructor":null}'))),
    ).toBe('{"constructor":null}')
    expect(JSON.stringify(restoreArguments(source, JSON.parse('{"__proto__":"x","constructor":"y"}')))).toBe(
      '{"__proto__":"x","constructor":"y"}',
    )
  })
})

describe("exports and imports with prototype keys", () => {
  it.each(["chat", "responses"] as const)("toOpenAITools (%s, strict and not) sends plain JSON", (api) => {
    for (const strict of [true, false]) {
      const set = toOpenAITools([prototypeKeyTool()], { api, strict })
      expect(plainJsonViolations(set.tools)).toEqual([])
      const sent = set.tools[0]!
      const fn = "function" in sent ? sent.function : sent
      expect(fn.strict).toBe(strict)
      const parameters = fn.parameters
      expect(ownKeysAt(parameters, "properties").slice(0, 4)).toEqual([...PROTOTYPE_KEYS])
      expect(ownKeysAt(parameters, "$defs")).toEqual(["__proto__"])
    }
  })

  it("functionTools and fromOpenAITool keep the keys", () => {
    const { entries } = functionTools([prototypeKeyTool()], "test")
    expect(plainJsonViolations(entries[0]!.parameters)).toEqual([])
    expect(ownKeysAt(entries[0]!.parameters, "properties").slice(0, 4)).toEqual([...PROTOTYPE_KEYS])
    const imported = fromOpenAITool({
      type: "function",
      function: { name: "echo", parameters: prototypeKeySchema(), strict: false },
    })
    expect(plainJsonViolations(imported.inputSchema)).toEqual([])
    expect(ownKeysAt(imported.inputSchema, "$defs", "__proto__", "properties")).toEqual([...PROTOTYPE_KEYS])
  })
})
