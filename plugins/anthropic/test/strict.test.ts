import { describe, expect, it } from "vitest"
import { isSimplePattern, toStrictSchema } from "../src/index.js"

describe("strict schema conversion", () => {
  it("closes objects, restates constraints it drops, keeps what strict mode supports", () => {
    const r = toStrictSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        name: { type: "string", minLength: 2, maxLength: 10, format: "uri" },
        when: { type: "string", format: "date-time" },
        n: { type: "integer", minimum: 1, maximum: 5, default: 2 },
        tags: { type: "array", items: { type: "string", pattern: "^(?=a)" }, minItems: 3, uniqueItems: true },
        kind: { oneOf: [{ const: "a" }, { const: "b" }] },
        nested: { type: "object", properties: { x: { type: "boolean" } }, additionalProperties: true },
      },
      required: ["name"],
    })
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.schema).toEqual({
      type: "object",
      properties: {
        name: { type: "string", format: "uri", description: "At least 2 characters. At most 10 characters." },
        when: { type: "string", format: "date-time" },
        n: { type: "integer", default: 2, description: "At least 1. At most 5." },
        tags: {
          type: "array",
          items: { type: "string", description: 'Must match the regular expression "^(?=a)".' },
          minItems: 1,
          description: "At least 3 items. Items must be unique.",
        },
        kind: { anyOf: [{ const: "a" }, { const: "b" }] },
        nested: { type: "object", properties: { x: { type: "boolean" } }, additionalProperties: false },
      },
      required: ["name"],
      additionalProperties: false,
    })
    expect(r.losses.map((l) => `${l.feature} ${l.path}`).sort()).toEqual([
      "additionalProperties /properties/nested/additionalProperties",
      "maxLength /properties/name/maxLength",
      "maximum /properties/n/maximum",
      "minItems /properties/tags/minItems",
      "minLength /properties/name/minLength",
      "minimum /properties/n/minimum",
      "oneOf /properties/kind/oneOf",
      "pattern /properties/tags/items/pattern",
      "uniqueItems /properties/tags/uniqueItems",
    ])
  })

  it("refuses what cannot be strict, with a path", () => {
    const cases: [unknown, string, RegExp][] = [
      [{ type: "object", properties: { t: { $ref: "#" } } }, "/properties/t/$ref", /recursive/],
      [{ type: "object", additionalProperties: { type: "number" } }, "/additionalProperties", /any shape/],
      [
        { type: "object", properties: { p: { type: "array", prefixItems: [{ type: "string" }] } } },
        "/properties/p/prefixItems",
        /tuple/,
      ],
      [{ type: "object", properties: { e: { enum: [{ a: 1 }] } } }, "/properties/e/enum", /enums of objects/],
      [
        { type: "object", properties: { r: { $ref: "https://example.com/s.json" } } },
        "/properties/r/$ref",
        /remote/,
      ],
    ]
    for (const [schema, path, reason] of cases) {
      const r = toStrictSchema(schema as never)
      expect(r.ok).toBe(false)
      if (r.ok) continue
      expect(r.path).toBe(path)
      expect(r.reason).toMatch(reason)
    }
  })

  it("keeps local non-recursive refs and definitions", () => {
    const r = toStrictSchema({
      type: "object",
      properties: { a: { $ref: "#/$defs/A" } },
      $defs: { A: { type: "object", properties: { x: { type: "string" } } } },
    })
    expect(r.ok && r.schema).toEqual({
      type: "object",
      properties: { a: { $ref: "#/$defs/A" } },
      $defs: { A: { type: "object", properties: { x: { type: "string" } }, additionalProperties: false } },
      additionalProperties: false,
    })
  })

  it("tells simple patterns from unsupported ones", () => {
    expect(isSimplePattern("^[a-z]{2,8}$")).toBe(true)
    for (const p of ["(a)\\1", "(?=x)", "(?<!x)", "\\bword", "a{1000}"])
      expect(isSimplePattern(p)).toBe(false)
  })
})
