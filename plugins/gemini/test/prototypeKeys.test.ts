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
  fromFunctionDeclaration,
  geminiSchemaToJsonSchema,
  restoreArguments,
  toGeminiArguments,
  toGeminiSchema,
  toGeminiTools,
} from "../src/index.js"

describe("toGeminiSchema with prototype keys", () => {
  const { schema, shape } = toGeminiSchema(prototypeKeySchema())

  it("is plain JSON and keeps every property, required name, enum value and default as data", () => {
    expect(plainJsonViolations(schema)).toEqual([])
    expect(ownKeysAt(schema, "properties")).toEqual([...PROTOTYPE_KEY_PROPERTIES])
    expect(ownAt(schema, "required")).toEqual([...PROTOTYPE_KEYS, "nested"])
    for (const key of PROTOTYPE_KEYS) {
      expect(ownAt(schema, "properties", key, "enum")).toEqual([key, "other"])
      expect(ownAt(schema, "properties", key, "default")).toBe(key)
    }
    expect(ownKeysAt(schema, "properties", "withDefault", "default")).toEqual(["__proto__"])
    // the $defs entry named __proto__ is inlined
    expect(ownKeysAt(schema, "properties", "nested", "properties")).toEqual([...PROTOTYPE_KEYS])
    expect(ownKeysAt(schema, "properties", "merged", "properties")).toEqual(["__proto__", "constructor"])
  })

  it("restores and forwards arguments with prototype keys as data", () => {
    const restored = restoreArguments(shape, prototypeKeyArguments())
    expect(plainJsonViolations(restored)).toEqual([])
    expect(JSON.stringify(restored)).toBe(JSON.stringify(prototypeKeyArguments()))
    expect(JSON.stringify(toGeminiArguments(shape, prototypeKeyArguments()))).toBe(
      JSON.stringify(prototypeKeyArguments()),
    )
  })

  it("reports a required name without a schema, also one every object inherits", () => {
    const r = toGeminiSchema({
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a", "constructor", "toString"],
    })
    expect(r.schema?.required).toEqual(["a"])
    expect(r.losses.filter((l) => l.feature === "required").map((l) => l.message)).toEqual([
      'required "constructor" has no schema and was dropped',
      'required "toString" has no schema and was dropped',
    ])
  })

  it("does not resolve a $ref through Object.prototype", () => {
    for (const ref of ["#/$defs/__proto__", "#/$defs/constructor"]) {
      const r = toGeminiSchema({ type: "object", properties: { a: { $ref: ref } }, $defs: {} })
      expect(r.losses.map((l) => l.message)).toContain(
        `$ref "${ref}" does not resolve; the value is sent as JSON text`,
      )
    }
  })
})

describe("exports and imports with prototype keys", () => {
  it("toGeminiTools sends plain JSON with every key", () => {
    const set = toGeminiTools([prototypeKeyTool()])
    expect(plainJsonViolations(set.tool)).toEqual([])
    const parameters = set.tool.functionDeclarations![0]!.parameters
    expect(ownKeysAt(parameters, "properties").slice(0, 4)).toEqual([...PROTOTYPE_KEYS])
  })

  it("geminiSchemaToJsonSchema and fromFunctionDeclaration keep the keys, also unknown ones", () => {
    const native = JSON.parse(
      '{"type":"OBJECT","properties":{"__proto__":{"type":"STRING","enum":["__proto__"]},"constructor":{"type":"STRING"}},"required":["__proto__"],"__proto__":{"x":1}}',
    )
    const back = geminiSchemaToJsonSchema(native)
    expect(plainJsonViolations(back)).toEqual([])
    expect(ownKeysAt(back, "properties")).toEqual(["__proto__", "constructor"])
    expect(ownAt(back, "__proto__")).toEqual({ x: 1 })
    const imported = fromFunctionDeclaration({ name: "echo", parametersJsonSchema: prototypeKeySchema() })
    expect(plainJsonViolations(imported.inputSchema)).toEqual([])
    expect(ownKeysAt(imported.inputSchema, "$defs", "__proto__", "properties")).toEqual([...PROTOTYPE_KEYS])
  })
})
