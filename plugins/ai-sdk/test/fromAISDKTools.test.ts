/**
 * AI SDK tools (built with the real `ai` package's `tool`, `dynamicTool`, `jsonSchema`) as a Toolplane
 * backend under the real runner: validation, approval by default, abort signals, typed failures.
 */
import { createRunner } from "@toolplane/exec"
import { dynamicTool, jsonSchema, tool } from "ai"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { fromAISDKTools } from "../src/index.js"

const seen: { signal?: AbortSignal; callId?: string; aborted?: boolean } = {}
const tools = {
  weather: tool({
    description: "Weather for a city",
    inputSchema: z.object({ city: z.string().min(2) }),
    execute: async ({ city }, { abortSignal, toolCallId }) => {
      seen.signal = abortSignal
      seen.callId = toolCallId
      return { city, temp: 21 }
    },
  }),
  shout: dynamicTool({
    description: "Upper-cases text",
    inputSchema: jsonSchema({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
    execute: async (input) => (input as { text: string }).text.toUpperCase(),
  }),
  stream: dynamicTool({
    description: "Streams previews, the last value is the result",
    inputSchema: z.object({}),
    async *execute() {
      yield "partial"
      yield "final"
    },
  }),
  broken: dynamicTool({
    description: "Fails",
    inputSchema: z.object({}),
    execute: async () => {
      throw new Error("backend down")
    },
  }),
  wait: dynamicTool({
    description: "Waits until aborted",
    inputSchema: z.object({}),
    execute: (_input, { abortSignal }) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve("timed out"), 3_000)
        abortSignal?.addEventListener("abort", () => {
          clearTimeout(timer)
          seen.aborted = true
          resolve("aborted")
        })
      }),
  }),
  clientSide: tool({ description: "No execute", inputSchema: z.object({}), outputSchema: z.string() }),
  "bad name!": tool({ description: "Invalid key", inputSchema: z.object({}), execute: async () => "x" }),
}

describe("fromAISDKTools", () => {
  it("lists the executable tools with JSON Schemas and warns about the rest", async () => {
    const backend = await fromAISDKTools(tools, { namespace: "ai" })
    const listed = await backend.toolSchemas()
    expect(listed.map((t) => t.id)).toEqual(["ai/weather", "ai/shout", "ai/stream", "ai/broken", "ai/wait"])
    expect(listed[0]!.inputSchema).toMatchObject({
      type: "object",
      properties: { city: { type: "string", minLength: 2 } },
      required: ["city"],
    })
    expect(listed[0]!.inputSchema).not.toHaveProperty("$schema")
    expect(backend.warnings.map((w) => w.toolId).sort()).toEqual(["ai/bad name!", "ai/clientSide"])
  })

  it("runs under the runner: validation, approval by default, signals, results and typed failures", async () => {
    const guarded = createRunner({ backends: [await fromAISDKTools(tools)] })
    await expect(guarded.callTool({ name: "ai/shout", arguments: { text: "hi" } })).rejects.toMatchObject({
      _tag: "ApprovalRequired",
    })
    const runner = createRunner({
      backends: [await fromAISDKTools(tools, { requiresApproval: () => false })],
    })
    const controller = new AbortController()
    const weather = await runner.callTool({
      name: "ai/weather",
      arguments: { city: "Oslo" },
      context: { callId: "call-1", signal: controller.signal },
    })
    expect(weather.structuredContent).toEqual({ city: "Oslo", temp: 21 })
    expect(seen.callId).toBe("call-1")
    expect(seen.signal).toBeInstanceOf(AbortSignal)
    const waiting = runner.callTool({
      name: "ai/wait",
      arguments: {},
      context: { signal: controller.signal },
    })
    setTimeout(() => controller.abort(), 50)
    await waiting.catch(() => undefined)
    expect(seen.aborted).toBe(true)
    expect((await runner.callTool({ name: "ai/shout", arguments: { text: "hi" } })).content).toEqual([
      { type: "text", text: "HI" },
    ])
    expect((await runner.callTool({ name: "ai/stream", arguments: {} })).content).toEqual([
      { type: "text", text: "final" },
    ])
    await expect(runner.callTool({ name: "ai/weather", arguments: { city: "X" } })).rejects.toMatchObject({
      _tag: "InvalidArguments",
    })
    await expect(runner.callTool({ name: "ai/broken", arguments: {} })).rejects.toMatchObject({
      _tag: "ExecutionFailed",
      message: expect.stringContaining("backend down"),
    })
  })
})
