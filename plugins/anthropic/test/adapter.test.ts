import { ConversionFailed, makeTool, type Tool } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { anthropicAdapter, toAnthropicTools } from "../src/index.js"

describe("toAnthropicTools", () => {
  const tool = makeTool({
    id: "repo/create_issue",
    title: "Create issue",
    inputSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
    outputSchema: { type: "object", properties: { number: { type: "integer" } } },
    annotations: { readOnlyHint: false, destructiveHint: false },
    exampleArgs: [{ title: "Crash on start" }, { title: "Typo" }],
  })

  it("carries exampleArgs as input_examples, the title as description, and warns for what it drops", () => {
    const set = toAnthropicTools([tool])
    expect(set.tools).toEqual([
      {
        name: "repo__create_issue",
        description: "Create issue",
        input_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
        input_examples: [{ title: "Crash on start" }, { title: "Typo" }],
      },
    ])
    expect(set.warnings.map((w) => [w.feature, w.path])).toEqual([
      ["annotations", "/annotations"],
      ["outputSchema", "/outputSchema"],
    ])
  })

  it("defers tools by predicate, and says strict: false only when strict was asked for", () => {
    const other = makeTool({ id: "repo/list", inputSchema: { type: "object", properties: {} } })
    const set = toAnthropicTools([tool, other], { deferLoading: (t) => t.id === "repo/list", strict: true })
    expect(set.tools.map((t) => [t.name, t.defer_loading, t.strict])).toEqual([
      ["repo__create_issue", undefined, true],
      ["repo__list", true, true],
    ])
    expect(set.byName.get("repo__list")).toMatchObject({ id: "repo/list", deferred: true, strict: true })
  })

  it("skips a tool without an object input schema with a warning; the adapter throws ConversionFailed for it", () => {
    const bad = { id: "x/bad", namespace: "x", name: "bad", inputSchema: { type: "string" } } as Tool
    const set = toAnthropicTools([bad, tool])
    expect(set.tools.map((t) => t.name)).toEqual(["repo__create_issue"])
    expect(set.warnings[0]).toMatchObject({
      toolId: "x/bad",
      feature: "inputSchema",
      path: "/inputSchema/type",
    })
    const adapter = anthropicAdapter()
    expect(() => adapter.fromCanonical(bad)).toThrow(ConversionFailed)
    expect(adapter.fromCanonical(tool).value.name).toBe("repo__create_issue")
    expect(adapter.toCanonical({ name: "lookup", input_schema: { type: "object" } }).id).toBe(
      "anthropic/lookup",
    )
    expect(adapter.supportsFeature("outputSchema")).toBe(false)
  })

  it("exports duplicate ids once", () => {
    expect(toAnthropicTools([tool, tool]).tools).toHaveLength(1)
  })
})

describe("a skipped tool takes no name", () => {
  it("so it never forces a hashed rename on the tool it would have collided with", () => {
    const bad = { id: "a/b.c", namespace: "a", name: "b.c", inputSchema: { type: "string" } } as Tool
    const good = makeTool({ id: "a/b_c", inputSchema: { type: "object" } })
    const set = toAnthropicTools([bad, good])
    expect(set.tools.map((t) => t.name)).toEqual(["a__b_c"])
    expect(set.warnings.map((w) => [w.toolId, w.feature])).toEqual([["a/b.c", "inputSchema"]])
  })
})

describe("prompt caching of the tool definitions", () => {
  it("puts one cache breakpoint on the last tool, with an optional TTL", () => {
    const tools = [
      makeTool({ id: "a/one", inputSchema: { type: "object" } }),
      makeTool({ id: "a/two", inputSchema: { type: "object" } }),
    ]
    expect(toAnthropicTools(tools, { cacheTools: true }).tools.map((t) => t.cache_control)).toEqual([
      undefined,
      { type: "ephemeral" },
    ])
    expect(toAnthropicTools(tools, { cacheTools: "1h" }).tools[1]!.cache_control).toEqual({
      type: "ephemeral",
      ttl: "1h",
    })
    expect(toAnthropicTools(tools).tools.some((t) => "cache_control" in t)).toBe(false)
  })
})
