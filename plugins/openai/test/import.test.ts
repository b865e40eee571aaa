import { ConversionFailed } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { fromOpenAITool, fromOpenAITools, openAIAdapter, toOpenAITools } from "../src/index.js"
import { weather } from "./support.js"

describe("import (OpenAI → canonical)", () => {
  it("imports chat, responses and bare function definitions", () => {
    const params = { type: "object", properties: { q: { type: "string" } }, required: ["q"] }
    const a = fromOpenAITool({
      type: "function",
      function: { name: "search", description: "Find", parameters: params, strict: true },
    })
    const b = fromOpenAITool(
      { type: "function", name: "search", description: null, parameters: params, strict: false },
      { namespace: "web" },
    )
    const c = fromOpenAITool({ name: "noargs" })
    expect(a).toMatchObject({
      id: "openai/search",
      namespace: "openai",
      name: "search",
      description: "Find",
      inputSchema: params,
    })
    expect(a.metadata).toEqual({ openai: { name: "search", strict: true } })
    expect(b.id).toBe("web/search")
    expect(b.description).toBeUndefined()
    expect(c.inputSchema).toEqual({ type: "object", properties: {} })
  })

  it("fails with ConversionFailed for unusable input, and skips it with a warning in lists", () => {
    expect(() => fromOpenAITool({ name: "" })).toThrow(ConversionFailed)
    expect(() => fromOpenAITool({ name: "x", parameters: { type: "string" } })).toThrow(
      /must describe an object/,
    )
    const { tools, warnings } = fromOpenAITools([
      { type: "function", function: { name: "ok" } },
      { type: "web_search" },
      { type: "function", function: { name: "bad", parameters: { type: "array" } } },
    ])
    expect(tools.map((t) => t.id)).toEqual(["openai/ok"])
    expect(warnings.map((w) => [w.feature, w.path])).toEqual([
      ["tool:web_search", "/1"],
      ["tool", "/2"],
    ])
  })

  it("round-trips a non-strict export", () => {
    const { tools } = toOpenAITools([weather], { strict: false })
    const back = fromOpenAITool(tools[0]!, { namespace: "weather" })
    expect(back.id).toBe("weather/weather__current")
    expect(back.inputSchema).toEqual(tools[0]!.function.parameters)
    expect(back.description).toBe(weather.description)
  })

  it("is an Adapter: fromCanonical, toCanonical and supportsFeature", () => {
    const adapter = openAIAdapter({ strict: true })
    const { value, warnings } = adapter.fromCanonical(weather)
    expect(value.function).toMatchObject({ name: "weather__current", strict: true })
    expect(warnings.map((w) => [w.feature, w.path])).toEqual([
      ["minLength", "/inputSchema/properties/city/minLength"],
    ])
    expect(adapter.toCanonical(value).id).toBe("openai/weather__current")
    expect(adapter.supportsFeature("format:uri")).toBe(false)
    expect(adapter.supportsFeature("format:email")).toBe(true)
    expect(adapter.supportsFeature("outputSchema")).toBe(false)
    expect(openAIAdapter({ strict: false }).supportsFeature("format:uri")).toBe(true)
    expect(openAIAdapter({ api: "responses" }).fromCanonical(weather).value).toMatchObject({
      name: "weather__current",
    })
  })
})
