/**
 * Regression tests for the fixes found with a corpus of 527 real MCP tools: null fields from the wire,
 * draft-04/draft-03 schemas, a never-matching union branch, one broken tool in a set, and Responses API
 * outputs that carry images and files. The wild tools are committed in fixtures/wild-mcp-tools.json
 * (in @toolplane/testkit) in the MCP `tools/list` wire shape and go through the MCP plugin's own conversion, as from a server.
 */
import { join } from "node:path"
import {
  defineTool,
  image,
  makeContext,
  makeTool,
  resource,
  type Tool,
  type ToolService,
  text,
} from "@toolplane/foundation"
import { definitionService } from "@toolplane/foundation/testing"
import { fromMcpTool, type McpTool, mcpBackend } from "@toolplane/plugin-mcp"
import { WILD_MCP_TOOLS_PATH, wildMcpTools } from "@toolplane/testkit"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { runToolCalls, toOpenAITools, toResponsesOutput, toStrictSchema } from "../src/index.js"
import { strictViolations } from "./strictChecker.js"

const wild = wildMcpTools() as unknown as McpTool[]
const native = (name: string) => wild.find((t) => t.name === name)!
const imported = (name: string) => fromMcpTool(native(name), "wild")

describe("null fields from the wire count as absent", () => {
  it("annotations: null: makeTool and fromMcpTool accept it, the export does not throw", () => {
    const { value } = imported("get_page")
    expect(value.annotations).toBeUndefined()
    const direct = makeTool({ id: "x/y", annotations: null as never, title: null as never })
    expect("annotations" in direct).toBe(false)
    expect("title" in direct).toBe(false)
    const set = toOpenAITools([value, direct])
    expect(set.tools).toHaveLength(2)
    expect(set.warnings.filter((w) => w.feature === "annotations")).toEqual([])
  })

  it("a null title (tool or annotation) never becomes description: null", () => {
    const { value } = imported("list_items")
    expect(value.title).toBeUndefined()
    expect(value.description).toBeUndefined()
    expect(value.annotations).toEqual({ readOnlyHint: true })
    for (const api of ["chat", "responses"] as const) {
      const json = JSON.stringify(toOpenAITools([value], { api }).tools)
      expect(json).not.toContain("null,")
      expect(json).not.toContain('"description":null')
    }
  })

  it("a tool object that skipped makeTool (annotations, title, description null) still exports", () => {
    const raw = {
      id: "raw/tool",
      namespace: "raw",
      name: "tool",
      title: null,
      description: null,
      annotations: null,
      inputSchema: { type: "object", properties: {} },
    } as unknown as Tool
    const set = toOpenAITools([raw], { api: "responses" })
    expect(set.tools).toHaveLength(1)
    expect(set.tools[0]).not.toHaveProperty("description")
  })
})

describe("schemas from the wild are normalised, not dropped", () => {
  it("a real MCP server listing the wild tools over stdio: every tool survives the MCP client and the export", async () => {
    const backend = mcpBackend({
      name: "wild",
      stdio: {
        command: process.execPath,
        args: [join(import.meta.dirname, "fixtures", "wildServer.mjs"), WILD_MCP_TOOLS_PATH],
      },
    })
    try {
      const tools = await backend.toolSchemas()
      expect(tools.map((t) => t.name).sort()).toEqual(wild.map((t) => t.name).sort())
      const set = toOpenAITools(tools, { api: "responses" })
      expect(set.tools).toHaveLength(wild.length)
      expect(JSON.stringify(set.tools)).not.toContain(":null")
      const result = await backend.execute(
        { toolId: "wild/set_temperature", arguments: { celsius: 20 } },
        makeContext(),
      )
      expect(result.content[0]).toMatchObject({
        type: "text",
        text: expect.stringContaining("set_temperature"),
      })
    } finally {
      await backend.close()
    }
  }, 30_000)

  it("draft-04 boolean exclusiveMinimum/Maximum without $schema: the tool survives, with warnings", () => {
    const { value, warnings } = imported("set_temperature")
    expect(value.inputSchema.properties!.celsius).toEqual({
      type: "number",
      exclusiveMinimum: 0,
      maximum: 100,
    })
    expect(warnings.map((w) => `${w.feature} ${w.path}`)).toEqual([
      "exclusiveMinimum /inputSchema/properties/celsius/exclusiveMinimum",
      "exclusiveMaximum /inputSchema/properties/celsius/exclusiveMaximum",
    ])
    const set = toOpenAITools([value])
    expect(set.tools[0]!.function.strict).toBe(true)
    expect(strictViolations(set.tools[0]!.function.parameters)).toEqual([])
  })

  it("draft-03 required flags move to the parent; type any is removed", () => {
    const { value, warnings } = imported("legacy_search")
    expect(value.inputSchema.required).toEqual(["query"])
    expect(value.inputSchema.properties!.query).toEqual({ type: "string" })
    expect(value.inputSchema.properties!.filter).toEqual({})
    expect(warnings.map((w) => w.feature).sort()).toEqual(["required", "required", "type"])
  })

  it("the raw schemas of the fixture do not compile as they are (the normalisation is what saves them)", () => {
    for (const name of ["set_temperature", "legacy_search"])
      expect(() => makeTool({ id: `wild/${name}`, inputSchema: native(name).inputSchema as never })).toThrow(
        /does not compile/,
      )
  })
})

describe("a never-matching union branch", () => {
  it("anyOf [number, {not: {}}, null] drops the {not: {}} branch and stays strict", () => {
    const { value } = imported("scale")
    const set = toOpenAITools([value])
    const tool = set.tools[0]!.function
    expect(tool.strict).toBe(true)
    expect((tool.parameters as any).properties.factor).toEqual({
      anyOf: [{ type: "number" }, { type: "null" }],
    })
    expect(strictViolations(tool.parameters)).toEqual([])
    expect(set.warnings.filter((w) => w.feature === "strict" || w.feature === "not")).toEqual([])
  })

  it("a union of only never-matching branches is not strict-able (no silent rewrite)", () => {
    const r = toStrictSchema({
      type: "object",
      properties: { x: { anyOf: [{ not: {} }, false] } },
      required: ["x"],
    } as never)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.path).toBe("/properties/x/anyOf")
  })
})

describe("one broken tool never costs the set", () => {
  it("a tool whose schema is not an object is left out with a warning", () => {
    const good = makeTool({ id: "ok/tool", inputSchema: { type: "object", properties: {} } })
    const broken = { ...good, id: "bad/tool", namespace: "bad", inputSchema: null } as unknown as Tool
    for (const strict of [true, false]) {
      const set = toOpenAITools([broken, good], { strict })
      expect(set.tools.map((t) => t.function.name)).toEqual(["ok__tool"])
      expect(set.warnings.find((w) => w.toolId === "bad/tool" && w.feature === "tool")?.message).toMatch(
        /left out/,
      )
      expect(set.byName.has("bad__tool")).toBe(false)
    }
  })

  it("every tool of the wild fixture exports (after import) in one set", () => {
    const tools = wild.map((t) => fromMcpTool(t, "wild").value)
    const set = toOpenAITools(tools, { api: "responses" })
    expect(set.tools).toHaveLength(wild.length)
    for (const t of set.tools) if (t.strict) expect(strictViolations(t.parameters)).toEqual([])
  })
})

describe("Responses API outputs carry images and files", () => {
  const png = Buffer.from("fake-png").toString("base64")
  const pdf = Buffer.from("%PDF-1.4").toString("base64")
  const shot = defineTool({
    id: "screen/shot",
    description: "A screenshot and its PDF",
    input: z.object({}),
    handler: () => ({
      content: [
        text("here it is"),
        image(png, "image/png"),
        resource({ uri: "file:///tmp/report%201.pdf", mimeType: "application/pdf", blob: pdf }),
      ],
    }),
  })
  const service: ToolService = definitionService([shot])

  it("toResponsesOutput: text, input_image data URL, input_file base64 data with the file name", () => {
    expect(toResponsesOutput({ content: [text("only text")] })).toBeUndefined()
    expect(
      toResponsesOutput({
        content: [text("a"), image(png, "image/png"), resource({ uri: "x:/r.pdf", blob: pdf })],
      }),
    ).toEqual([
      { type: "input_text", text: "a" },
      { type: "input_image", image_url: `data:image/png;base64,${png}` },
      { type: "input_file", file_data: `data:application/octet-stream;base64,${pdf}`, filename: "r.pdf" },
    ])
  })

  it("runToolCalls sends content parts for the Responses API and text for Chat Completions", async () => {
    const [item] = await runToolCalls(service, {
      output: [{ type: "function_call", call_id: "c1", name: "screen__shot", arguments: "{}" }],
    })
    expect(item!.output).toEqual([
      { type: "input_text", text: "here it is" },
      { type: "input_image", image_url: `data:image/png;base64,${png}` },
      { type: "input_file", file_data: `data:application/pdf;base64,${pdf}`, filename: "report 1.pdf" },
    ])
    const [message] = await runToolCalls(service, {
      role: "assistant",
      tool_calls: [{ id: "c2", type: "function", function: { name: "screen__shot", arguments: "{}" } }],
    })
    expect(message!.content).toContain("here it is")
    expect(message!.content).toContain("[image image/png")
  })
})
