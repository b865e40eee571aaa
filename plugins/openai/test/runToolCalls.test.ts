import { defineTool, image, ToolNotFound, type ToolService } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { executeToolCalls, formatToolResult, runToolCalls, toOpenAITools } from "../src/index.js"
import { serviceOf, testService } from "./support.js"

const fnCall = (id: string, name: string, args: string) => ({
  id,
  type: "function",
  function: { name, arguments: args },
})

describe("runToolCalls", () => {
  it("returns nothing for a message without tool calls", async () => {
    expect(await runToolCalls(testService(), { role: "assistant", content: "hi", tool_calls: null })).toEqual(
      [],
    )
    expect(await runToolCalls(testService(), { output: [{ type: "message" }] })).toEqual([])
  })

  it("answers every call of a chat completion, including custom tool calls and non-object arguments", async () => {
    const outputs = await runToolCalls(testService(), {
      choices: [
        {
          message: {
            role: "assistant",
            tool_calls: [
              fnCall("a", "math__add", '{"a":1,"b":41}'),
              { id: "b", type: "custom", custom: { name: "grammar", input: "x" } },
              fnCall("c", "math__add", "[1,2]"),
              fnCall("d", "ops__explode", ""),
            ],
          },
        },
      ],
    })
    expect(outputs.map((o) => o.tool_call_id)).toEqual(["a", "b", "c", "d"])
    expect(outputs[0]!.content).toBe("42")
    expect(outputs[1]!.content).toMatch(/^Error \[UNSUPPORTED_CALL\]/)
    expect(outputs[2]!.content).toContain("must be a JSON object, got an array")
    expect(outputs[3]!.content).toBe(
      'Error [EXECUTION_FAILED] calling "ops__explode": the tool failed: the reactor is offline',
    )
  })

  it("suggests close names for an unknown tool", async () => {
    const [out] = await runToolCalls(testService(), [
      { type: "function_call", call_id: "x", name: "math_add", arguments: "{}" },
    ])
    expect(out!.output).toContain('Did you mean "math__add"?')
  })

  it("never rejects when the service throws something that is not a ToolError", async () => {
    const broken: ToolService = {
      listTools: testService().listTools,
      callTool: async () => {
        throw "plain string"
      },
    }
    const [out] = await runToolCalls(broken, [
      { type: "function_call", call_id: "x", name: "math__add", arguments: '{"a":1,"b":2}' },
    ])
    expect(out!.output).toBe('Error [EXECUTION_FAILED] calling "math__add": plain string')
  })

  it("maps a tool that vanished between listing and call to a readable output", async () => {
    const set = toOpenAITools([defineTool({ id: "gone/tool", handler: () => "x" })])
    const empty = serviceOf([])
    const [out] = await runToolCalls(
      empty,
      [{ type: "function_call", call_id: "x", name: "gone__tool", arguments: "{}" }],
      { tools: set },
    )
    expect(out!.output).toBe('Error [TOOL_NOT_FOUND] calling "gone__tool": the tool no longer exists.')
    expect(new ToolNotFound({ toolId: "a/b", suggestions: [] }).code).toBe("TOOL_NOT_FOUND")
  })

  it("respects maxConcurrency and reports each outcome", async () => {
    let inflight = 0
    let max = 0
    const slow = defineTool({
      id: "t/slow",
      input: z.object({ n: z.number() }),
      handler: async ({ n }) => {
        max = Math.max(max, ++inflight)
        await new Promise((r) => setTimeout(r, 10))
        inflight--
        return `n=${n}`
      },
    })
    const seen: string[] = []
    const items = [1, 2, 3, 4].map((n) => ({
      type: "function_call",
      call_id: `c${n}`,
      name: "t__slow",
      arguments: `{"n":${n}}`,
    }))
    const { outcomes } = await executeToolCalls(serviceOf([slow]), items, {
      maxConcurrency: 2,
      onOutcome: (o) => seen.push(o.callId),
    })
    expect(max).toBe(2)
    expect(outcomes.map((o) => o.output)).toEqual(["n=1", "n=2", "n=3", "n=4"])
    expect(seen.sort()).toEqual(["c1", "c2", "c3", "c4"])
  })
})

describe("formatToolResult", () => {
  it("renders text, structured content, media placeholders and errors", () => {
    expect(
      formatToolResult({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toBe("a\nb")
    expect(formatToolResult({ content: [], structuredContent: { x: 1 } })).toBe('{"x":1}')
    expect(formatToolResult({ content: [image("AAAA", "image/png")] })).toBe(
      "[image image/png, 3 bytes, not shown]",
    )
    expect(formatToolResult({ content: [{ type: "text", text: "bad" }], isError: true })).toBe("Error: bad")
    expect(formatToolResult({ content: [] })).toBe("(the tool returned no output)")
  })
})
