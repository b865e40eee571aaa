/**
 * Export of the repository's real MCP tool corpus (live from the installed servers and the committed
 * fixture) plus schemas from the wild that need every conversion, checked by the independent checker in
 * geminiChecker.ts.
 */
import { makeTool, type Tool } from "@toolplane/foundation"
import { type CorpusTool, fixtureTools, liveTools } from "@toolplane/testkit"
import { describe, expect, it } from "vitest"
import { restoreArguments, toGeminiSchema, toGeminiTools } from "../src/index.js"
import { declarationViolations, schemaViolations } from "./geminiChecker.js"

const asTools = (corpus: readonly CorpusTool[]): Tool[] =>
  corpus.map((t) =>
    makeTool({
      id: `${t.server}/${t.name}`,
      description: t.description as string,
      ...(t.annotations !== undefined ? { annotations: t.annotations as Tool["annotations"] } : {}),
      inputSchema: t.inputSchema,
    }),
  )

const raw = (id: string, inputSchema: unknown, fields: Record<string, unknown> = {}): Tool => {
  const [namespace, name] = id.split("/") as [string, string]
  return { id, namespace, name, inputSchema, ...fields } as Tool
}

/** Schemas that need every conversion Gemini's subset asks for. */
const wild = (): Tool[] => [
  raw(
    "wild/null_fields",
    { type: "object", properties: { q: { type: "string", description: null } } },
    { description: null, title: null, annotations: null },
  ),
  raw("wild/draft4_bounds", {
    type: "object",
    properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true } },
  }),
  raw("wild/never_branch", {
    type: "object",
    properties: { n: { anyOf: [{ type: "number" }, { not: {} }, { type: "null" }] } },
  }),
  raw("wild/recursive", {
    type: "object",
    properties: { tree: { $ref: "#/$defs/node" } },
    $defs: {
      node: {
        type: "object",
        properties: { label: { type: "string" }, kids: { type: "array", items: { $ref: "#/$defs/node" } } },
      },
    },
  }),
  raw("wild/unions", {
    type: "object",
    properties: {
      id: { type: ["string", "integer", "null"] },
      shape: {
        oneOf: [
          { type: "object", properties: { r: { type: "number" } } },
          { type: "object", properties: { w: { type: "number" } } },
        ],
      },
      kind: { const: "fixed" },
      level: { enum: [1, 2, 3] },
      flag: { const: true },
      pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] },
      any: {},
      list: { type: "array" },
      map: { type: "object", additionalProperties: { type: "integer" } },
      merged: {
        allOf: [
          { type: "object", properties: { a: { type: "string" } } },
          { properties: { b: { type: "string" } }, required: ["b"] },
        ],
      },
      "max-results": { type: "integer", multipleOf: 5, format: "uint32" },
      "9lives": { type: "string", format: "uri", not: { const: "" } },
    },
    required: ["max-results", "kind"],
    anyOf: [{ required: ["id"] }, { required: ["shape"] }],
  }),
  raw("wild/open_root", { type: "object", additionalProperties: true }),
  raw("wild/no_params", { type: "object" }),
  raw("wild/not_object", { type: "string" }),
  makeTool({ id: "wild-ns/a.b.c", inputSchema: { type: "object" } }),
  makeTool({ id: "9wild/x", inputSchema: { type: "object" } }),
  makeTool({ id: `wild/${"x".repeat(100)}`, inputSchema: { type: "object" } }),
]

const check = (tools: Tool[]) => {
  const set = toGeminiTools(tools)
  for (const d of set.declarations)
    expect({ name: d.name, problems: declarationViolations(d) }).toEqual({ name: d.name, problems: [] })
  const names = set.declarations.map((d) => d.name)
  expect(new Set(names).size).toBe(names.length)
  for (const d of set.declarations) expect(set.byName.get(d.name)!.id).toBe(set.names.idOf(d.name))
  return set
}

describe("Gemini export of the real MCP tool corpus", () => {
  it("the checker itself catches violations", () => {
    expect(declarationViolations({ name: "9x", parameters: { type: "OBJECT", properties: {} } })).toEqual([
      'name "9x" is invalid',
      "#: OBJECT without properties",
    ])
    expect(
      schemaViolations({
        type: "object",
        properties: { "a-b": { type: "STRING", enum: [1], minLength: 2 } },
      }),
    ).toEqual(['#: type "object"', "#: properties on object"])
    expect(
      schemaViolations({
        type: "OBJECT",
        properties: { "a-b": { type: "STRING", enum: [1], minLength: 2, $ref: "#" } },
      }),
    ).toEqual([
      '#: property name "a-b"',
      '#/properties/a-b: field "$ref" is not part of Schema',
      "#/properties/a-b: enum values must be strings",
      "#/properties/a-b: minLength must be an int64 string",
    ])
    expect(schemaViolations({ type: "ARRAY" })).toEqual(["#: ARRAY without items"])
  })

  it("the committed fixture: every tool exported and valid", () => {
    const tools = asTools(fixtureTools())
    expect(tools.length).toBeGreaterThan(30)
    const set = check(tools)
    expect(set.declarations).toHaveLength(tools.length)
    expect(set.declarations.map((d) => set.names.idOf(d.name))).toEqual(tools.map((t) => t.id))
    // what the corpus loses is reported
    const features = new Set(set.warnings.map((w) => w.feature))
    expect(features).toContain("format:uri")
    for (const w of set.warnings) expect(w.toolId).toBeDefined()
  })

  it("schemas from the wild are converted with warnings, never thrown on", () => {
    const tools = wild()
    const set = check(tools)
    // only the tool whose input is not an object schema is skipped, with a warning
    expect(set.declarations).toHaveLength(tools.length - 1)
    expect(set.warnings.some((w) => w.toolId === "wild/not_object" && w.feature === "inputSchema")).toBe(true)
    const d = (id: string) => set.declarations.find((x) => set.names.idOf(x.name) === id)!
    expect(d("wild/null_fields").description).toBeUndefined()
    expect(d("wild/draft4_bounds").parameters!.properties!.n).toEqual({
      type: "NUMBER",
      minimum: 0,
      description: "Greater than 0.",
    })
    expect(d("wild/never_branch").parameters!.properties!.n).toEqual({ type: "NUMBER", nullable: true })
    expect(d("wild/no_params").parameters).toBeUndefined()
    expect(d("9wild/x").name).toBe("_9wild__x")
    const tree = d("wild/recursive").parameters!.properties!.tree!
    expect(tree.properties!.kids!.items).toMatchObject({ type: "STRING" })
    expect(
      set.warnings.some(
        (w) => w.toolId === "wild/recursive" && w.feature === "$ref" && /recursive/.test(w.message!),
      ),
    ).toBe(true)
    const u = d("wild/unions").parameters!
    expect(u.required).toEqual(["kind", "max_results"])
    expect(u.properties!.id).toEqual({ anyOf: [{ type: "STRING" }, { type: "INTEGER" }], nullable: true })
    expect(u.properties!.kind).toEqual({ type: "STRING", enum: ["fixed"], format: "enum" })
    expect(u.properties!.level!.description).toBe("One of: 1, 2, 3.")
    expect(u.properties!.merged!.required).toEqual(["b"])
    expect(Object.keys(u.properties!).sort()).toEqual([
      "_9lives",
      "any",
      "flag",
      "id",
      "kind",
      "level",
      "list",
      "map",
      "max_results",
      "merged",
      "pair",
      "shape",
    ])
    const features = set.warnings.filter((w) => w.toolId === "wild/unions").map((w) => w.feature)
    for (const f of [
      "oneOf",
      "const",
      "enum",
      "prefixItems",
      "any",
      "items",
      "additionalProperties",
      "multipleOf",
      "format:uint32",
      "format:uri",
      "not",
      "propertyName",
      "anyOf",
    ])
      expect(features).toContain(f)
  })

  it("arguments sent for a converted schema are restored to the original shape", () => {
    const tool = wild().find((t) => t.id === "wild/unions")!
    const { shape } = toGeminiSchema(tool.inputSchema)
    expect(
      restoreArguments(shape, {
        max_results: 10,
        _9lives: "x",
        map: '{"a":1}',
        any: "[1,2]",
        list: ['{"k":1}', "2"],
        shape: { w: 2 },
        id: 7,
        kind: "fixed",
      }),
    ).toEqual({
      "max-results": 10,
      "9lives": "x",
      map: { a: 1 },
      any: [1, 2],
      list: [{ k: 1 }, 2],
      shape: { w: 2 },
      id: 7,
      kind: "fixed",
    })
    const open = toGeminiSchema({ type: "object", additionalProperties: true })
    expect(restoreArguments(open.shape, { json_arguments: '{"x":1}' })).toEqual({ x: 1 })
  })

  it("names stay valid for the jsonSchema mode too, which keeps the schema as JSON Schema", () => {
    const set = toGeminiTools(asTools(fixtureTools()), { schema: "jsonSchema" })
    for (const d of set.declarations) {
      expect(d.parameters).toBeUndefined()
      expect((d.parametersJsonSchema as { type: string }).type).toBe("object")
      expect(JSON.stringify(d.parametersJsonSchema)).not.toContain('"$schema"')
    }
  })

  it("the live servers' tools (listed through the MCP SDK client) export valid", async (ctx) => {
    const { tools: live, failures } = await liveTools()
    if (live.length === 0) {
      ctx.skip(`no MCP server could start: ${failures.join("; ")}`)
      return
    }
    expect(failures).toEqual([])
    const set = check(asTools(live))
    expect(set.declarations).toHaveLength(live.length)
  }, 60_000)
})
