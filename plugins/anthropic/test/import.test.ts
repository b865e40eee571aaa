import { allowList, createRunner } from "@toolplane/exec"
import { ConversionFailed } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import {
  anthropicToolsBackend,
  fromAnthropicTool,
  fromAnthropicTools,
  runToolCalls,
  toAnthropicTools,
} from "../src/index.js"

const getWeather = {
  name: "get_weather",
  description: "Weather for a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
} as const

describe("import from Anthropic tool definitions", () => {
  it("converts custom tools and skips server tools and broken ones with warnings", () => {
    const { tools, warnings } = fromAnthropicTools([
      getWeather,
      { type: "web_search_20250305", name: "web_search" },
      { name: "", input_schema: { type: "object" } },
      { name: "bad", input_schema: { type: "string" } },
      { type: "custom", name: "nulls", description: null, input_schema: null },
    ])
    expect(tools.map((t) => t.id)).toEqual(["anthropic/get_weather", "anthropic/nulls"])
    expect(tools[1]!.description).toBeUndefined()
    expect(warnings.map((w) => [w.path, w.feature])).toEqual([
      ["/1", "tool:web_search_20250305"],
      ["/2", "tool"],
      ["/3", "tool"],
    ])
    expect(() => fromAnthropicTool({ name: "x y" })).toThrow(ConversionFailed)
  })

  it("round-trips: imported tools export to the same Anthropic definitions", () => {
    const tool = fromAnthropicTool(getWeather, { namespace: "w" })
    const back = toAnthropicTools([tool]).tools[0]!
    expect(back).toEqual({ ...getWeather, name: "w__get_weather" })
  })

  it("serves imported definitions with supplied handlers through the runner (validation and approval included)", async () => {
    const { backend, warnings } = anthropicToolsBackend({
      namespace: "legacy",
      tools: [getWeather, { name: "orphan", input_schema: { type: "object" } }],
      handlers: { get_weather: ({ city }) => `Sunny in ${String(city)}` },
    })
    expect(warnings.map((w) => [w.toolId, w.feature])).toEqual([["legacy/orphan", "handler"]])
    const runner = createRunner({ backends: [backend], approver: allowList(["legacy/get_weather"]) })
    const results = await runToolCalls(runner, [
      { type: "tool_use", id: "t1", name: "legacy__get_weather", input: { city: "Oslo" } },
      { type: "tool_use", id: "t2", name: "legacy__get_weather", input: { town: "Oslo" } },
    ])
    expect(results[0]).toEqual({
      type: "tool_result",
      tool_use_id: "t1",
      content: [{ type: "text", text: "Sunny in Oslo" }],
    })
    expect(results[1]!.is_error).toBe(true)
    expect(results[1]!.content[0]).toMatchObject({ text: expect.stringContaining("INVALID_ARGUMENTS") })
    // approval is on by default for imported tools
    const { backend: guarded } = anthropicToolsBackend({
      tools: [getWeather],
      handlers: { get_weather: () => "x" },
    })
    const denied = await runToolCalls(createRunner({ backends: [guarded] }), [
      { type: "tool_use", id: "t3", name: "anthropic__get_weather", input: { city: "Oslo" } },
    ])
    expect(denied[0]!.content[0]).toMatchObject({ text: expect.stringContaining("APPROVAL_REQUIRED") })
    await runner.close()
  })
})
