import { defineTool, makeTool } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { restoreArguments, toOpenAITools, toStrictSchema } from "../src/index.js"

/** `levels` nested objects: {a: {a: ... {a: string}}}. */
const nest = (levels: number): Record<string, unknown> =>
  levels === 0 ? { type: "string" } : { type: "object", properties: { a: nest(levels - 1) }, required: ["a"] }

const ok = (schema: Record<string, unknown>) => {
  const r = toStrictSchema(schema)
  if (!r.ok) throw new Error(`expected strict, got: ${r.reason} at ${r.path}`)
  return r
}

describe("strict schema conversion", () => {
  it("closes objects, requires every property and makes optional ones nullable", () => {
    const r = ok({
      type: "object",
      properties: {
        city: { type: "string" },
        units: { type: "string", enum: ["c", "f"] },
        nested: { type: "object", properties: { x: { type: "integer" } } },
      },
      required: ["city"],
    })
    expect(r.schema).toEqual({
      type: "object",
      properties: {
        city: { type: "string" },
        units: { type: ["string", "null"], enum: ["c", "f", null] },
        nested: {
          type: ["object", "null"],
          properties: { x: { type: ["integer", "null"] } },
          required: ["x"],
          additionalProperties: false,
        },
      },
      required: ["city", "units", "nested"],
      additionalProperties: false,
    })
    expect(r.losses).toEqual([])
  })

  it("removes unsupported keywords with a warning each and restates them in the description", () => {
    const r = ok({
      type: "object",
      properties: {
        name: { type: "string", minLength: 2, maxLength: 5, description: "Name" },
        url: { type: "string", format: "uri" },
        when: { type: "string", format: "date-time" },
        count: { type: "number", default: 3, minimum: 1, maximum: 10 },
        tags: { type: "array", items: { type: "string" }, uniqueItems: true, minItems: 1 },
      },
      required: ["name", "url", "when", "tags"],
    })
    const props = r.schema.properties as Record<string, Record<string, unknown>>
    expect(props.name).toEqual({
      type: "string",
      description: "Name (At least 2 characters. At most 5 characters.)",
    })
    expect(props.url).toEqual({ type: "string", description: "Format: uri." })
    expect(props.when).toEqual({ type: "string", format: "date-time" })
    expect(props.count).toEqual({
      type: ["number", "null"],
      minimum: 1,
      maximum: 10,
      description: "Default: 3.",
    })
    expect(props.tags).toEqual({
      type: "array",
      items: { type: "string" },
      minItems: 1,
      description: "Items must be unique.",
    })
    expect(r.losses.map((l) => `${l.feature} ${l.path}`).sort()).toEqual([
      "default /properties/count/default",
      "format:uri /properties/url/format",
      "maxLength /properties/name/maxLength",
      "minLength /properties/name/minLength",
      "uniqueItems /properties/tags/uniqueItems",
    ])
  })

  it("rewrites oneOf to anyOf with a warning, merges allOf and keeps $defs/$ref", () => {
    const r = ok({
      type: "object",
      definitions: { Point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
      properties: {
        shape: { oneOf: [{ type: "string" }, { $ref: "#/definitions/Point" }] },
        both: {
          allOf: [
            { type: "object", properties: { a: { type: "string" } } },
            { properties: { b: { type: "string" } }, required: ["b"] },
          ],
        },
        tree: { $ref: "#/definitions/Point", description: "a point" },
      },
      required: ["shape", "both", "tree"],
    })
    const props = r.schema.properties as Record<string, Record<string, unknown>>
    expect(props.shape).toEqual({ anyOf: [{ type: "string" }, { $ref: "#/$defs/Point" }] })
    expect(props.both).toEqual({
      type: "object",
      properties: { a: { type: ["string", "null"] }, b: { type: "string" } },
      required: ["a", "b"],
      additionalProperties: false,
    })
    expect(props.tree).toMatchObject({ type: "object", description: "a point", additionalProperties: false })
    expect(r.schema.$defs).toEqual({
      Point: {
        type: "object",
        properties: { x: { type: "number" } },
        required: ["x"],
        additionalProperties: false,
      },
    })
    expect(r.losses.map((l) => l.feature)).toEqual(["oneOf"])
  })

  it("keeps recursive references", () => {
    const r = ok({
      type: "object",
      properties: { root: { $ref: "#/$defs/Node" } },
      required: ["root"],
      $defs: {
        Node: {
          type: "object",
          properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } },
          required: ["children"],
        },
      },
    })
    expect((r.schema.$defs as any).Node.properties.children.items).toEqual({ $ref: "#/$defs/Node" })
  })

  it("accepts 10 levels of object nesting", () => {
    expect(toStrictSchema(nest(10)).ok).toBe(true)
  })

  it("wraps a non-object root", () => {
    const r = ok({ type: "array", items: { type: "string" } })
    expect(r.wrapped).toBe(true)
    expect(r.schema).toEqual({
      type: "object",
      properties: { value: { type: "array", items: { type: "string" } } },
      required: ["value"],
      additionalProperties: false,
    })
    expect(r.losses.map((l) => l.feature)).toEqual(["root"])
    expect(restoreArguments({ type: "array" }, { value: ["a"] }, { wrapped: true })).toEqual(["a"])
  })

  it.each([
    [
      "a free-form map",
      { type: "object", properties: { env: { type: "object", additionalProperties: { type: "string" } } } },
      "/properties/env",
    ],
    ["a value of any type", { type: "object", properties: { v: {} } }, "/properties/v"],
    ["an untyped array", { type: "object", properties: { v: { type: "array" } } }, "/properties/v"],
    [
      "a tuple",
      { type: "object", properties: { v: { type: "array", prefixItems: [{ type: "string" }] } } },
      "/properties/v/prefixItems",
    ],
    [
      "a remote $ref",
      { type: "object", properties: { v: { $ref: "https://example.com/s.json" } } },
      "/properties/v/$ref",
    ],
    [
      "too many enum values",
      {
        type: "object",
        properties: { v: { type: "integer", enum: Array.from({ length: 1001 }, (_, i) => i) } },
      },
      "",
    ],
    ["too deep (11 object levels)", nest(11), `${"/properties/a".repeat(10)}`],
  ])("refuses %s", (_label, schema, path) => {
    const r = toStrictSchema(schema)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.path).toBe(path)
  })

  it("restores left-out arguments from nulls, only where the source did not accept null", () => {
    const source = {
      type: "object",
      properties: {
        a: { type: "string" },
        b: { type: ["string", "null"] },
        c: { type: "string" },
        list: { type: "array", items: { $ref: "#/$defs/Item" } },
      },
      required: ["c"],
      $defs: { Item: { type: "object", properties: { n: { type: "number" } } } },
    }
    expect(restoreArguments(source, { a: null, b: null, c: "x", list: [{ n: null }, { n: 1 }] })).toEqual({
      b: null,
      c: "x",
      list: [{}, { n: 1 }],
    })
  })
})

describe("toOpenAITools", () => {
  const wide = makeTool({
    id: "kv/set",
    description: "Sets keys",
    inputSchema: {
      type: "object",
      properties: { values: { type: "object", additionalProperties: { type: "string" } } },
    },
    annotations: { readOnlyHint: false },
  })
  const fine = defineTool({
    id: "weather/current",
    description: "Weather",
    input: z.object({ city: z.string(), days: z.number().int().default(1) }),
    handler: () => "sunny",
  })

  it("falls back to non-strict for one tool with a warning and keeps the others strict", () => {
    const { tools, warnings, byName } = toOpenAITools([wide, fine], { strict: true })
    expect(tools.map((t) => [t.function.name, t.function.strict])).toEqual([
      ["kv__set", false],
      ["weather__current", true],
    ])
    expect(tools[0]!.function.parameters).toEqual(wide.inputSchema)
    const fallback = warnings.find((w) => w.feature === "strict")!
    expect(fallback).toMatchObject({
      toolId: "kv/set",
      path: "/inputSchema/properties/values",
      from: "canonical",
      to: "openai",
    })
    expect(fallback.message).toContain("strict: false")
    expect(warnings.find((w) => w.feature === "annotations")?.toolId).toBe("kv/set")
    expect(warnings.find((w) => w.feature === "default")).toMatchObject({
      toolId: "weather/current",
      path: "/inputSchema/properties/days/default",
    })
    expect(byName.get("weather__current")).toMatchObject({ id: "weather/current", strict: true })
  })

  it("sends schemas unchanged with strict off, and in the Responses shape on request", () => {
    const { tools, warnings } = toOpenAITools([fine], { strict: false, api: "responses" })
    expect(tools[0]).toEqual({
      type: "function",
      name: "weather__current",
      description: "Weather",
      parameters: fine.inputSchema,
      strict: false,
    })
    expect(warnings).toEqual([])
  })

  it("reports lossy renames as warnings", () => {
    const dotted = makeTool({ id: "fs/read.file" })
    const { tools, warnings } = toOpenAITools([dotted])
    expect(tools[0]!.function.name).toBe("fs__read_file")
    expect(warnings).toEqual([expect.objectContaining({ feature: "name", toolId: "fs/read.file" })])
  })
})
