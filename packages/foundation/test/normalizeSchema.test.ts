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

  it("treats null keywords as absent, silently, but keeps const: null and default: null", () => {
    const { schema, changes } = normalizeJsonSchema({
      type: "object",
      description: null,
      properties: { q: { type: "string", title: null, const: null, default: null } },
    } as unknown as JsonSchema)
    expect(schema).toEqual({
      type: "object",
      properties: { q: { type: "string", const: null, default: null } },
    })
    expect(changes).toEqual([])
    const bounds = normalizeJsonSchema({ type: "number", minimum: 1, exclusiveMinimum: null } as never)
    expect(bounds).toEqual({ schema: { type: "number", minimum: 1 }, changes: [] })
  })

  it("rewrites draft-04 tuples as prefixItems, additionalItems as items, children normalised", () => {
    const open = normalizeJsonSchema({
      type: "array",
      items: [{ type: "string" }, { type: "number", minimum: 0, exclusiveMinimum: true }],
    } as unknown as JsonSchema)
    expect(open.schema).toEqual({
      type: "array",
      prefixItems: [{ type: "string" }, { type: "number", exclusiveMinimum: 0 }],
    })
    expect(open.changes.map((c) => `${c.keyword} ${c.path}`).sort()).toEqual([
      "exclusiveMinimum /items/1/exclusiveMinimum",
      "items /items",
    ])
    const closed = normalizeJsonSchema({
      type: "array",
      items: [{ type: "string" }],
      additionalItems: false,
    } as unknown as JsonSchema)
    expect(closed.schema).toEqual({ type: "array", prefixItems: [{ type: "string" }], items: false })
    const both = normalizeJsonSchema({
      type: "array",
      items: [{ type: "string" }],
      prefixItems: [{ type: "number" }],
      additionalItems: { type: "boolean" },
    } as unknown as JsonSchema)
    expect(both.schema).toEqual({
      type: "array",
      prefixItems: [{ type: "string" }],
      items: { type: "boolean" },
    })
    expect(both.changes[0]?.message).toMatch(/replacing/)
    expect(checkJsonSchema(closed.schema)).toEqual([])
    const v = compileJsonSchema(closed.schema)
    expect(v.validate(["a"])).toMatchObject({ ok: true })
    expect(v.validate(["a", "b"])).toMatchObject({ ok: false })
  })

  it("drops union branches that match nothing and collapses a union left with one branch", () => {
    const collapse = normalizeJsonSchema({
      description: "n",
      anyOf: [{ type: "number", description: "inner" }, { not: {} }],
    })
    // the parent's own keywords win over the branch's
    expect(collapse).toEqual({ schema: { type: "number", description: "n" }, changes: [] })
    const several = normalizeJsonSchema({ oneOf: [false, { type: "string" }, { type: "null" }] } as never)
    expect(several.schema).toEqual({ oneOf: [{ type: "string" }, { type: "null" }] })
    // a keyword of the branch clashes with the parent's: the union stays, without the dead branch
    const clash = normalizeJsonSchema({ type: "object", anyOf: [{ type: "string" }, { not: {} }] })
    expect(clash.schema).toEqual({ type: "object", anyOf: [{ type: "string" }] })
    // nothing left: the schema accepts nothing, and says so unchanged
    const none = { anyOf: [{ not: {} }, false] } as unknown as JsonSchema
    expect(normalizeJsonSchema(none).schema).toBe(none)
    const nested = normalizeJsonSchema({
      type: "object",
      properties: { n: { anyOf: [{ type: "number" }, { not: {} }, { type: "null" }] } },
    })
    expect(nested.schema).toEqual({
      type: "object",
      properties: { n: { anyOf: [{ type: "number" }, { type: "null" }] } },
    })
    const v = compileJsonSchema(collapse.schema)
    expect(v.validate(1)).toMatchObject({ ok: true })
    expect(v.validate("1")).toMatchObject({ ok: false })
  })

  it("keeps a property named __proto__ when it rebuilds a properties map", () => {
    const input = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}',
    )
    const { schema } = normalizeJsonSchema(input)
    expect(Object.keys(schema.properties!)).toEqual(["__proto__", "n"])
    expect(Object.hasOwn(schema.properties!, "__proto__")).toBe(true)
  })

  it("shares unchanged subtrees and never mutates its input", () => {
    const clean = { type: "object", properties: { a: { type: "string" } } }
    const input = {
      type: "object",
      properties: { keep: clean, fix: { type: "integer", maximum: 3, exclusiveMaximum: true } },
    }
    const before = JSON.stringify(input)
    const { schema } = normalizeJsonSchema(input)
    expect(JSON.stringify(input)).toBe(before)
    expect((schema.properties as Record<string, unknown>).keep).toBe(clean)
    expect(normalizeJsonSchema(schema).changes).toEqual([])
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
