/**
 * Export of the repository's real MCP tool corpus (live from the installed servers and the committed
 * fixture) plus schemas from the wild that broke exports before, checked by the independent checker in
 * anthropicChecker.ts.
 */
import { makeTool, type Tool } from "@toolplane/foundation"
import { type CorpusTool, fixtureTools, liveTools } from "@toolplane/testkit"
import { describe, expect, it } from "vitest"
import { toAnthropicTools } from "../src/index.js"
import { strictViolations, toolViolations } from "./anthropicChecker.js"

const asTools = (corpus: readonly CorpusTool[]): Tool[] =>
  corpus.map((t) =>
    makeTool({
      id: `${t.server}/${t.name}`,
      // null fields straight from the wire, as an MCP client may hand them over
      description: t.description as string,
      ...(t.annotations !== undefined ? { annotations: t.annotations as Tool["annotations"] } : {}),
      inputSchema: t.inputSchema,
    }),
  )

/**
 * Tools whose schemas broke exports: null fields, draft-04 bounds, a never-matching union branch. Built
 * as plain objects, as another tool service may hand them over (makeTool would reject some).
 */
const raw = (id: string, fields: Record<string, unknown>): Tool => {
  const [namespace, name] = id.split("/") as [string, string]
  return { id, namespace, name, inputSchema: { type: "object" }, ...fields } as Tool
}
const wild = (): Tool[] => [
  raw("wild/null_annotations", {
    description: null,
    title: null,
    annotations: null,
    inputSchema: { type: "object", properties: { q: { type: "string", description: null } } },
  }),
  raw("wild/null_title", { annotations: { title: null }, inputSchema: { type: "object", properties: {} } }),
  raw("wild/draft4_bounds", {
    inputSchema: {
      type: "object",
      properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true } },
    },
  }),
  raw("wild/never_branch", {
    inputSchema: {
      type: "object",
      properties: { n: { anyOf: [{ type: "number" }, { not: {} }, { type: "null" }] } },
    },
  }),
  makeTool({
    id: "wild/recursive",
    inputSchema: {
      type: "object",
      properties: { tree: { $ref: "#/$defs/node" } },
      $defs: {
        node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } },
      },
    },
  }),
  makeTool({
    id: "wild/open_map",
    inputSchema: { type: "object", additionalProperties: { type: "string" } },
  }),
  makeTool({ id: "wild-ns/a.b.c", inputSchema: { type: "object" } }),
  makeTool({ id: `wild/${"x".repeat(100)}`, inputSchema: { type: "object" } }),
]

const check = (tools: Tool[], strict: boolean) => {
  const set = toAnthropicTools(tools, { strict })
  expect(set.tools).toHaveLength(tools.length)
  for (const [i, t] of set.tools.entries())
    expect({ id: tools[i]!.id, problems: toolViolations(t) }).toEqual({ id: tools[i]!.id, problems: [] })
  const names = set.tools.map((t) => t.name)
  expect(new Set(names).size).toBe(names.length)
  expect(names.map((n) => set.names.idOf(n))).toEqual(tools.map((t) => t.id))
  // every tool that fell back from strict says why
  if (strict)
    for (const [i, t] of set.tools.entries())
      if (t.strict !== true)
        expect(set.warnings.some((w) => w.toolId === tools[i]!.id && w.feature === "strict")).toBe(true)
  return set
}

describe("Anthropic export of the real MCP tool corpus", () => {
  it("the checker itself catches violations", () => {
    expect(toolViolations({ name: "a.b", input_schema: { type: "object" } })).toEqual([
      'name "a.b" is invalid',
    ])
    expect(toolViolations({ name: "a", input_schema: { type: "object", description: null } })).toContain(
      "#/description is null",
    )
    expect(
      toolViolations({
        name: "a",
        input_schema: { type: "object", properties: { n: { exclusiveMinimum: true } } },
      })[0],
    ).toMatch(/not valid JSON Schema/)
    expect(strictViolations({ type: "object", properties: { a: { type: "string", minLength: 2 } } })).toEqual(
      ["#: additionalProperties must be false", '#/properties/a: keyword "minLength" is not supported'],
    )
    expect(
      strictViolations({ type: "object", additionalProperties: false, properties: { t: { $ref: "#" } } }),
    ).toEqual(["#/properties/t: recursive $ref #"])
  })

  it.each([false, true])("the committed fixture: every tool valid (strict: %s)", (strict) => {
    const tools = asTools(fixtureTools())
    expect(tools.length).toBeGreaterThan(30)
    const set = check(tools, strict)
    if (strict) {
      // Anthropic's per-request limits cap how many tools go out strict, never the export
      const strictCount = set.tools.filter((t) => t.strict).length
      expect(strictCount).toBeGreaterThan(0)
      expect(strictCount).toBeLessThanOrEqual(20)
      expect(set.warnings.some((w) => w.feature === "strict" && /at most/.test(w.message ?? ""))).toBe(true)
    }
  })

  it("each fixture tool exported on its own is strict-able and passes the strict checker", () => {
    let strict = 0
    for (const tool of asTools(fixtureTools())) {
      const set = toAnthropicTools([tool], { strict: true })
      if (set.tools[0]!.strict) {
        strict++
        expect({ id: tool.id, problems: strictViolations(set.tools[0]!.input_schema) }).toEqual({
          id: tool.id,
          problems: [],
        })
      }
    }
    expect(strict).toBeGreaterThan(30)
  })

  it.each([false, true])("schemas from the wild are exported, never thrown on (strict: %s)", (strict) => {
    const tools = wild()
    const set = check(tools, strict)
    const by = (id: string) => set.tools[tools.findIndex((t) => t.id === id)]!
    expect(by("wild/null_annotations").description).toBeUndefined()
    expect(by("wild/null_title").description).toBeUndefined()
    expect(by("wild/draft4_bounds").input_schema.properties).toEqual({
      n: { type: "number", ...(strict ? { description: "Greater than 0." } : { exclusiveMinimum: 0 }) },
    })
    expect(
      set.warnings.some((w) => w.toolId === "wild/draft4_bounds" && w.feature === "exclusiveMinimum"),
    ).toBe(true)
    expect(by("wild/never_branch").input_schema.properties).toEqual({
      n: { anyOf: [{ type: "number" }, { type: "null" }] },
    })
    if (strict) {
      expect(by("wild/recursive").strict).toBe(false)
      expect(by("wild/open_map").strict).toBe(false)
      expect(by("wild/never_branch").strict).toBe(true)
    }
    expect(set.warnings.some((w) => w.toolId === "wild-ns/a.b.c" && w.feature === "name")).toBe(true)
  })

  it("the live servers' tools (listed through the MCP SDK client) export valid and strict-able", async (ctx) => {
    const { tools: live, failures } = await liveTools()
    if (live.length === 0) {
      ctx.skip(`no MCP server could start: ${failures.join("; ")}`)
      return
    }
    expect(failures).toEqual([])
    const tools = asTools(live)
    check(tools, false)
    for (const tool of tools) {
      const t = toAnthropicTools([tool], { strict: true }).tools[0]!
      if (t.strict)
        expect({ id: tool.id, problems: strictViolations(t.input_schema) }).toEqual({
          id: tool.id,
          problems: [],
        })
    }
  }, 60_000)
})
