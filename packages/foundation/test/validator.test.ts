import { describe, expect, it } from "vitest"
import { z } from "zod"
import {
  checkJsonSchema,
  compileJsonSchema,
  InvalidTool,
  schemaFeatures,
  validatorFor,
} from "../src/index.js"

describe("validation", () => {
  it("reports JSON pointers and rules for nested failures (2020-12)", () => {
    const v = compileJsonSchema({
      type: "object",
      properties: {
        items: {
          type: "array",
          items: { type: "object", properties: { qty: { type: "integer", minimum: 1 } } },
        },
        "a/b": { type: "string", format: "email" },
      },
      required: ["items"],
      additionalProperties: false,
    })
    const result = v.validate({ items: [{ qty: 0 }, { qty: "x" }], "a/b": "nope", extra: 1 })
    expect(result).toMatchObject({ ok: false })
    if ("ok" in result && !result.ok) {
      const byPath = Object.fromEntries(result.issues.map((i) => [i.path, i.rule]))
      expect(byPath).toMatchObject({
        "/items/0/qty": "minimum",
        "/items/1/qty": "type",
        "/a~1b": "format",
        "/extra": "additionalProperties",
      })
    }
  })

  it("supports 2020-12 keywords and draft-07", () => {
    const v2020 = compileJsonSchema({
      type: "object",
      properties: { t: { type: "array", prefixItems: [{ type: "number" }] } },
    })
    expect(v2020.validate({ t: ["x"] })).toMatchObject({ ok: false })
    const v07 = compileJsonSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { t: { type: "array", items: [{ type: "number" }] } },
    })
    expect(v07.validate({ t: ["x"] })).toMatchObject({ ok: false })
    expect(v07.validate({ t: [1] })).toMatchObject({ ok: true })
  })

  it("never fetches a remote $ref: the schema is rejected", () => {
    expect(() =>
      compileJsonSchema({ type: "object", properties: { a: { $ref: "https://example.com/s.json" } } }),
    ).toThrow(InvalidTool)
    expect(checkJsonSchema({ $ref: "http://example.com/x" })[0]).toMatch(/resolve|reference/i)
    expect(checkJsonSchema({ type: "object" })).toEqual([])
  })

  it("validates Standard Schemas with their own library", () => {
    const v = validatorFor(z.object({ n: z.coerce.number() }))
    expect(v.validate({ n: "3" })).toEqual({ ok: true, value: { n: 3 } })
  })

  it("lists schema features, nested ones included", () => {
    const features = schemaFeatures({
      type: "object",
      properties: { u: { type: "string", format: "uri" }, c: { oneOf: [{ type: "string", pattern: "^a" }] } },
    })
    expect(features).toEqual(
      expect.arrayContaining([
        { feature: "format:uri", path: "/properties/u/format" },
        { feature: "oneOf", path: "/properties/c/oneOf" },
        { feature: "pattern", path: "/properties/c/oneOf/0/pattern" },
      ]),
    )
  })
})
