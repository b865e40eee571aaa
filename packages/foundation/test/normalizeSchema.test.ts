import { describe, expect, it } from "vitest"
import {
  checkJsonSchema,
  compileJsonSchema,
  type JsonSchema,
  makeTool,
  normalizeJsonSchema,
} from "../src/index.js"

// draft-03/04 keywords the JsonSchema type (rightly) does not allow
const wild = {
  type: "object",
  properties: {
    n: { type: "number", minimum: 0, exclusiveMinimum: true },
    m: { type: "number", maximum: 9, exclusiveMaximum: false },
    q: { type: "string", required: true },
    r: { type: "string", required: false },
    any: { type: "any" },
    list: { type: "array", items: { type: "integer", minimum: 1, exclusiveMinimum: true } },
    nested: {
      type: "object",
      properties: { deep: { type: "integer", required: true } },
      required: ["other"],
    },
  },
  required: ["n"],
  $defs: { d: { type: "number", maximum: 5, exclusiveMaximum: true } },
} as unknown as JsonSchema

describe("normalizeJsonSchema", () => {
  it("rewrites draft-04/03 idioms where the meaning is clear, with one change per rewrite", () => {
    const before = JSON.stringify(wild)
    const { schema, changes } = normalizeJsonSchema(wild)
    expect(JSON.stringify(wild)).toBe(before) // input untouched
    expect(schema).toEqual({
      type: "object",
      properties: {
        n: { type: "number", exclusiveMinimum: 0 },
        m: { type: "number", maximum: 9 },
        q: { type: "string" },
        r: { type: "string" },
        any: {},
        list: { type: "array", items: { type: "integer", exclusiveMinimum: 1 } },
        nested: { type: "object", properties: { deep: { type: "integer" } }, required: ["other", "deep"] },
      },
      required: ["n", "q"],
      $defs: { d: { type: "number", exclusiveMaximum: 5 } },
    })
    expect(changes.map((c) => c.path).sort()).toEqual(
      [
        "/$defs/d/exclusiveMaximum",
        "/properties/any/type",
        "/properties/list/items/exclusiveMinimum",
        "/properties/m/exclusiveMaximum",
        "/properties/n/exclusiveMinimum",
        "/properties/nested/properties/deep/required",
        "/properties/q/required",
        "/properties/r/required",
      ].sort(),
    )
    expect(checkJsonSchema(wild)).not.toEqual([])
    expect(checkJsonSchema(schema)).toEqual([])
    const v = compileJsonSchema(schema)
    expect(v.validate({ n: 0, q: "x" })).toMatchObject({ ok: false })
    expect(v.validate({ n: 0.5, q: "x" })).toMatchObject({ ok: true })
  })

  it("is the identity (same object) on a schema that needs nothing, and idempotent", () => {
    const clean = { type: "object", properties: { a: { type: "number", exclusiveMinimum: 0 } } }
    expect(normalizeJsonSchema(clean)).toEqual({ schema: clean, changes: [] })
    expect(normalizeJsonSchema(clean).schema).toBe(clean)
    const once = normalizeJsonSchema(wild).schema
    expect(normalizeJsonSchema(once).changes).toEqual([])
  })
})

describe("makeTool and null fields from the wire", () => {
  it("treats null title, description, annotations and null hints as absent", () => {
    const tool = makeTool({
      id: "a/b",
      title: null,
      description: null,
      annotations: { title: null, readOnlyHint: true, destructiveHint: null },
    } as never)
    expect(tool).not.toHaveProperty("title")
    expect(tool).not.toHaveProperty("description")
    expect(tool.annotations).toEqual({ readOnlyHint: true })
    expect(makeTool({ id: "a/c", annotations: null } as never)).not.toHaveProperty("annotations")
    expect(makeTool({ id: "a/d", annotations: { title: null } } as never)).not.toHaveProperty("annotations")
    expect(makeTool({ id: "a/e", annotations: {} }).annotations).toEqual({})
  })
})
