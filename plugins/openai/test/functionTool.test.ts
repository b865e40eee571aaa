import { makeTool, type Tool, toolDescription } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { functionTools, looseParameters } from "../src/index.js"

describe("functionTools (the groundwork of the AI SDK and LangChain exports)", () => {
  it("maps names once per id, normalises schemas and warns for every loss", () => {
    const tools: Tool[] = [
      makeTool({ id: "weather/current", description: "Now", inputSchema: { type: "object" } }),
      makeTool({ id: "weather/current", description: "a duplicate id", inputSchema: { type: "object" } }),
      makeTool({ id: "fs/read.file", title: "Read", inputSchema: { type: "object" } }),
      {
        id: "wild/bounds",
        namespace: "wild",
        name: "bounds",
        inputSchema: {
          $schema: "http://json-schema.org/draft-04/schema#",
          properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true } },
        },
      } as unknown as Tool,
      { id: "wild/broken", namespace: "wild", name: "broken", inputSchema: "nope" } as unknown as Tool,
    ]
    const { entries, names, warnings } = functionTools(tools, "somewhere")
    expect(entries.map((e) => [e.tool.id, e.name, e.description])).toEqual([
      ["weather/current", "weather__current", "Now"],
      ["fs/read.file", "fs__read_file", "Read"],
      ["wild/bounds", "wild__bounds", undefined],
    ])
    expect(entries[2]!.parameters).toEqual({
      type: "object",
      properties: { n: { type: "number", exclusiveMinimum: 0 } },
    })
    expect(names.idOf("wild__broken")).toBe("wild/broken")
    expect(warnings.map((w) => [w.toolId, w.feature, w.path, w.to])).toEqual([
      ["fs/read.file", "name", "/id", "somewhere"],
      ["wild/bounds", "exclusiveMinimum", "/inputSchema/properties/n/exclusiveMinimum", "somewhere"],
      ["wild/broken", "tool", "", "somewhere"],
    ])
    expect(warnings[2]!.message).toMatch(/left out: the input schema is not an object/)
  })

  it("looseParameters adds a root type and drops $schema; toolDescription falls back to the title", () => {
    expect(looseParameters({ $schema: "x", properties: {} })).toEqual({ type: "object", properties: {} })
    expect(looseParameters({ $ref: "#/$defs/a" })).toEqual({ $ref: "#/$defs/a" })
    expect(() => looseParameters(null as never)).toThrow(TypeError)
    expect(toolDescription(makeTool({ id: "a/b", title: "T", inputSchema: { type: "object" } }))).toBe("T")
  })

  it("describes a tool that has only an annotations title by that title, as Anthropic and Gemini do", () => {
    const tool = makeTool({ id: "a/b", annotations: { title: "Find a customer" } })
    const { entries } = functionTools([tool], "OpenAI")
    expect(entries[0]!.description).toBe("Find a customer")
  })
})
