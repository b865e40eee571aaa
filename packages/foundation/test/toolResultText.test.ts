import { describe, expect, it } from "vitest"
import {
  ApprovalRequired,
  type CallToolRequest,
  callToolForModel,
  contentBlockText,
  formatToolError,
  mapConcurrent,
  type ToolResult,
  type ToolService,
  textResult,
  toolResultText,
} from "../src/index.js"

describe("toolResultText", () => {
  it("joins block texts and shows what it cannot render as placeholders", () => {
    const result: ToolResult = {
      content: [
        { type: "text", text: "first" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "audio", data: "AAAAAAAA", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AA==" } },
        { type: "resource_link", name: "c", uri: "file:///c" },
      ],
    }
    expect(toolResultText(result)).toBe(
      [
        "first",
        "[image image/png, 3 bytes, not shown]",
        "[audio audio/wav, 6 bytes, not shown]",
        "inside",
        "[resource file:///b.bin]",
        '[resource link "c": file:///c]',
      ].join("\n"),
    )
    expect(contentBlockText({ type: "text", text: "" })).toBe("")
  })

  it("falls back to structured content, then to a note; marks failures once", () => {
    expect(toolResultText({ content: [], structuredContent: { t: 12 } })).toBe('{"t":12}')
    expect(toolResultText({ content: [{ type: "text", text: "x" }], structuredContent: { t: 1 } })).toBe("x")
    expect(toolResultText({ content: [] })).toBe("(the tool returned no output)")
    expect(toolResultText({ content: [{ type: "text", text: "boom" }], isError: true })).toBe("Error: boom")
    expect(toolResultText({ content: [{ type: "text", text: "Error: boom" }], isError: true })).toBe(
      "Error: boom",
    )
    expect(toolResultText({ content: [], isError: true })).toBe("Error: (the tool returned no output)")
  })
})

describe("mapConcurrent", () => {
  const gate = () => {
    let open!: () => void
    const opened = new Promise<void>((r) => (open = r))
    return { open, opened }
  }

  it("keeps input order and never runs more than max at once", async () => {
    let inFlight = 0
    let most = 0
    const gates = Array.from({ length: 7 }, gate)
    const done = mapConcurrent([0, 1, 2, 3, 4, 5, 6], 3, async (i) => {
      inFlight++
      most = Math.max(most, inFlight)
      await gates[i]!.opened
      inFlight--
      return i * 10
    })
    // release in reverse order: results still come back in input order
    for (const g of [...gates].reverse()) {
      await new Promise((r) => setImmediate(r))
      g.open()
    }
    expect(await done).toEqual([0, 10, 20, 30, 40, 50, 60])
    expect(most).toBe(3)
  })

  it("runs everything at once with Infinity, at least one with 0, and rejects like Promise.all", async () => {
    let inFlight = 0
    let most = 0
    const track = async (i: number) => {
      inFlight++
      most = Math.max(most, inFlight)
      await new Promise((r) => setImmediate(r))
      inFlight--
      return i
    }
    expect(await mapConcurrent([1, 2, 3, 4], Number.POSITIVE_INFINITY, track)).toEqual([1, 2, 3, 4])
    expect(most).toBe(4)
    most = 0
    expect(await mapConcurrent([1, 2], 0, track)).toEqual([1, 2])
    expect(most).toBe(1)
    expect(await mapConcurrent([], 2, track)).toEqual([])
    await expect(
      mapConcurrent([1, 2], 2, async (i) => {
        if (i === 2) throw new Error("two")
        return i
      }),
    ).rejects.toThrow("two")
  })
})

describe("callToolForModel", () => {
  const seen: CallToolRequest[] = []
  const service: ToolService = {
    listTools: async () => ({ tools: [] }),
    callTool: async (request) => {
      seen.push(request)
      if (request.name === "a/typed") throw new ApprovalRequired({ toolId: "a/typed" })
      if (request.name === "a/plain") throw new Error("socket hang up")
      if (request.name === "a/string") throw "not an error"
      return textResult(`ran ${request.name}`)
    },
  }

  it("passes the model's call id as request id and context callId, and returns the result", async () => {
    const outcome = await callToolForModel(service, {
      callId: "call_1",
      name: "a__ok",
      toolId: "a/ok",
      arguments: { x: 1 },
      context: { callerId: "agent" },
    })
    expect(outcome).toEqual({ ok: true, result: textResult("ran a/ok") })
    expect(seen.at(-1)).toMatchObject({
      id: "call_1",
      name: "a/ok",
      arguments: { x: 1 },
      context: { callerId: "agent", callId: "call_1" },
    })
  })

  it("turns typed and untyped failures into the model's text, never rejecting", async () => {
    const typed = await callToolForModel(service, {
      callId: "c",
      name: "a__typed",
      toolId: "a/typed",
      arguments: {},
    })
    expect(typed).toEqual({
      ok: false,
      errorCode: "APPROVAL_REQUIRED",
      text: formatToolError(new ApprovalRequired({ toolId: "a/typed" }), "a__typed"),
    })
    const plain = await callToolForModel(service, {
      callId: "c",
      name: "a__plain",
      toolId: "a/plain",
      arguments: {},
    })
    expect(plain).toEqual({
      ok: false,
      errorCode: "EXECUTION_FAILED",
      text: 'Error [EXECUTION_FAILED] calling "a__plain": socket hang up',
    })
    const odd = await callToolForModel(service, {
      callId: "c",
      name: "a__string",
      toolId: "a/string",
      arguments: {},
    })
    expect(odd).toMatchObject({
      ok: false,
      text: 'Error [EXECUTION_FAILED] calling "a__string": not an error',
    })
  })
})
