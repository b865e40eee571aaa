import { allowList, createRunner } from "@toolplane/exec"
import { ConversionFailed } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import {
  fromFunctionDeclaration,
  fromFunctionDeclarations,
  functionDeclarationsBackend,
  geminiSchemaToJsonSchema,
  runToolCalls,
  toGeminiTools,
} from "../src/index.js"

const getWeather = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: {
    type: "OBJECT",
    properties: {
      city: { type: "STRING", description: "City name" },
      days: { type: "INTEGER", minimum: 1, maxItems: undefined, nullable: true },
      units: { type: "STRING", format: "enum", enum: ["c", "f"] },
      tags: { type: "ARRAY", items: { type: "STRING" }, maxItems: "3" },
    },
    required: ["city"],
    propertyOrdering: ["city", "days", "units", "tags"],
  },
}

describe("import from Gemini function declarations", () => {
  it("turns the OpenAPI subset into JSON Schema", () => {
    expect(geminiSchemaToJsonSchema(getWeather.parameters)).toEqual({
      type: "object",
      properties: {
        city: { type: "string", description: "City name" },
        days: { type: ["integer", "null"], minimum: 1 },
        units: { type: "string", enum: ["c", "f"] },
        tags: { type: "array", items: { type: "string" }, maxItems: 3 },
      },
      required: ["city"],
    })
    expect(geminiSchemaToJsonSchema({ anyOf: [{ type: "STRING" }], nullable: true, example: 1 })).toEqual({
      anyOf: [{ type: "string" }, { type: "null" }],
      examples: [1],
    })
  })

  it("converts declarations and Gemini tools, skipping non-function tools and broken ones with warnings", () => {
    const { tools, warnings } = fromFunctionDeclarations([
      { functionDeclarations: [getWeather, { name: "ping" }], googleSearch: {} },
      { codeExecution: {} },
      { name: "bad", parametersJsonSchema: { type: "string" } },
      { name: "js", parametersJsonSchema: { type: "object", properties: { q: { type: "string" } } } },
    ])
    expect(tools.map((t) => t.id)).toEqual(["gemini/get_weather", "gemini/ping", "gemini/js"])
    expect(tools[1]!.inputSchema).toEqual({ type: "object", properties: {} })
    expect(warnings.map((w) => [w.path, w.feature])).toEqual([
      ["/0/googleSearch", "tool:googleSearch"],
      ["/1", "tool:codeExecution"],
      ["/2", "tool"],
    ])
    expect(() => fromFunctionDeclaration({ description: "no name" })).toThrow(ConversionFailed)
  })

  it("round-trips: an imported declaration exports to an equivalent one", () => {
    const tool = fromFunctionDeclaration(getWeather, { namespace: "w" })
    const back = toGeminiTools([tool]).declarations[0]!
    expect(back.name).toBe("w__get_weather")
    expect(back.parameters).toEqual({
      type: "OBJECT",
      properties: {
        city: { type: "STRING", description: "City name" },
        days: { type: "INTEGER", minimum: 1, nullable: true },
        units: { type: "STRING", enum: ["c", "f"], format: "enum" },
        tags: { type: "ARRAY", items: { type: "STRING" }, maxItems: "3" },
      },
      required: ["city"],
    })
  })

  it("serves imported declarations with supplied handlers through the runner", async () => {
    const { backend, warnings } = functionDeclarationsBackend({
      namespace: "legacy",
      declarations: [getWeather, { name: "orphan" }],
      handlers: { get_weather: ({ city }) => ({ city, sky: "clear" }) },
    })
    expect(warnings.map((w) => [w.toolId, w.feature])).toEqual([["legacy/orphan", "handler"]])
    const runner = createRunner({ backends: [backend], approver: allowList(["legacy/get_weather"]) })
    const parts = await runToolCalls(runner, [
      { functionCall: { name: "legacy__get_weather", args: { city: "Oslo" } } },
      { functionCall: { name: "legacy__get_weather", args: { town: "Oslo" } } },
    ])
    expect(parts[0]).toEqual({
      functionResponse: { name: "legacy__get_weather", response: { output: { city: "Oslo", sky: "clear" } } },
    })
    expect((parts[1]!.functionResponse.response as { error: string }).error).toContain("INVALID_ARGUMENTS")
    const { backend: guarded } = functionDeclarationsBackend({
      declarations: [getWeather],
      handlers: { get_weather: () => "x" },
    })
    const denied = await runToolCalls(createRunner({ backends: [guarded] }), [
      { functionCall: { name: "gemini__get_weather", args: { city: "Oslo" } } },
    ])
    expect((denied[0]!.functionResponse.response as { error: string }).error).toContain("APPROVAL_REQUIRED")
    await runner.close()
  })
})
