import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { GEMINI_PROPERTY_PATTERN, restoreArguments, toGeminiArguments, toGeminiSchema } from "../src/index.js"
import { schemaViolations } from "./geminiChecker.js"

/** Property names as MCP servers write them: dashes, dots, leading digits, case variants, unicode. */
const propertyName = fc.oneof(
  fc.stringMatching(/^[a-zA-Z0-9_.$-]{1,12}$/),
  fc.constantFrom("a-b", "a_b", "a.b", "1st", "_1st", "x".repeat(70), "X".repeat(70), "déjà", "a b"),
)

describe("Gemini property names", () => {
  test.prop([fc.uniqueArray(propertyName, { minLength: 1, maxLength: 12 }), fc.integer()])(
    "are valid and unique, and arguments sent under them restore to the original names",
    (names, seed) => {
      const schema = {
        type: "object",
        properties: Object.fromEntries(names.map((n) => [n, { type: "integer" }])),
        required: names,
      }
      const { schema: out, shape } = toGeminiSchema(schema)
      expect(schemaViolations(out)).toEqual([])
      const sent = Object.keys(out!.properties!)
      expect(sent).toHaveLength(names.length)
      for (const n of sent) expect(n).toMatch(GEMINI_PROPERTY_PATTERN)
      expect(out!.required).toHaveLength(names.length)
      if (shape.kind !== "object") throw new Error("object shape expected")
      // what the model sends: a value per Gemini name
      const modelArgs = Object.fromEntries(sent.map((n, i) => [n, seed + i]))
      const restored = restoreArguments(shape, modelArgs)
      expect(Object.keys(restored).sort()).toEqual([...names].sort())
      for (const [i, n] of sent.entries()) expect(restored[shape.properties.get(n)!.source]).toBe(seed + i)
      // and the other direction gives back what the model sent
      expect(toGeminiArguments(shape, restored)).toEqual(modelArgs)
    },
  )
})

describe("Gemini schema conversion", () => {
  it("keeps a property named __proto__ (found by the property test above, seed 223218204)", () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"integer"},"a-b":{"type":"integer"}},"required":["__proto__","a-b"]}',
    )
    const { schema: out, shape } = toGeminiSchema(schema)
    expect(Object.keys(out!.properties!).sort()).toEqual(["__proto__", "a_b"])
    expect(out!.required).toHaveLength(2)
    const restored = restoreArguments(shape, JSON.parse('{"__proto__":1,"a_b":2}'))
    expect(Object.keys(restored).sort()).toEqual(["__proto__", "a-b"])
    expect(Object.hasOwn(restored, "__proto__")).toBe(true)
    expect(Object.keys(toGeminiArguments(shape, restored)).sort()).toEqual(["__proto__", "a_b"])
    expect(toGeminiArguments(shape, { "a-b": 2 })).toEqual({ a_b: 2 })
  })

  it("keeps a valid name when a renamed one would collide with it", () => {
    const { schema, shape } = toGeminiSchema({
      type: "object",
      properties: { "a-b": { type: "string" }, a_b: { type: "number" } },
    })
    expect(schema!.properties).toEqual({ a_b_2: { type: "STRING" }, a_b: { type: "NUMBER" } })
    expect(restoreArguments(shape, { a_b_2: "s", a_b: 1 })).toEqual({ "a-b": "s", a_b: 1 })
  })

  it("renames and restores inside nested objects, arrays and unions", () => {
    const { schema, shape, losses } = toGeminiSchema({
      type: "object",
      properties: {
        "list-of": { type: "array", items: { type: "object", properties: { "x-y": { type: "string" } } } },
        either: {
          anyOf: [{ type: "object", properties: { "p-q": { type: "number" } } }, { type: "string" }],
        },
      },
    })
    expect(schemaViolations(schema)).toEqual([])
    expect(losses.filter((l) => l.feature === "propertyName").map((l) => l.path)).toEqual([
      "/properties/list-of",
      "/properties/list-of/items/properties/x-y",
      "/properties/either/anyOf/0/properties/p-q",
    ])
    expect(restoreArguments(shape, { list_of: [{ x_y: "1" }], either: { p_q: 2 } })).toEqual({
      "list-of": [{ "x-y": "1" }],
      either: { "p-q": 2 },
    })
    expect(restoreArguments(shape, { list_of: [], either: "s" })).toEqual({ "list-of": [], either: "s" })
  })

  it("leaves arguments that do not fit the shape for the runner's validation to report", () => {
    const { shape } = toGeminiSchema({
      type: "object",
      properties: { m: { type: "object", additionalProperties: true } },
    })
    expect(restoreArguments(shape, { m: "{not json" })).toEqual({ m: "{not json" })
    expect(restoreArguments(shape, { other: 1 })).toEqual({ other: 1 })
  })
})
