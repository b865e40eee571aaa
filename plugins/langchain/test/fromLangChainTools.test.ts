/**
 * LangChain tools (built with the real `@langchain/core` `tool()` and `DynamicStructuredTool`) as a
 * Toolplane backend under the real runner.
 */
import { ToolMessage } from "@langchain/core/messages"
import { DynamicStructuredTool, tool } from "@langchain/core/tools"
import { createRunner } from "@toolplane/exec"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { fromLangChainTools } from "../src/index.js"

const seen: { aborted?: boolean } = {}
const tools = [
  tool(async ({ q }) => `results for ${q}`, {
    name: "search",
    description: "Web search",
    schema: z.object({ q: z.string().min(1) }),
  }),
  new DynamicStructuredTool({
    name: "lookup",
    description: "Looks up a key (JSON Schema)",
    schema: { type: "object" as const, properties: { key: { type: "string" as const } }, required: ["key"] },
    func: async (input: { key: string }) => ({ key: input.key, value: 42 }),
  }),
  tool(
    async (_input, config) =>
      new ToolMessage({
        content: "quota exceeded",
        tool_call_id: config.toolCall?.id ?? "x",
        status: "error",
      }),
    { name: "quota", description: "Reports an error message", schema: z.object({}) },
  ),
  tool(
    async () => {
      throw new Error("index offline")
    },
    { name: "broken", description: "Fails", schema: z.object({}) },
  ),
  tool(
    (_input, config) =>
      new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve("timed out"), 3_000)
        config.signal?.addEventListener("abort", () => {
          clearTimeout(timer)
          seen.aborted = true
          resolve("aborted")
        })
      }),
    { name: "wait", description: "Waits until aborted", schema: z.object({}) },
  ),
  tool(async () => "x", { name: "bad name!", description: "Invalid name", schema: z.object({}) }),
]

describe("fromLangChainTools", () => {
  it("lists the tools with JSON Schemas and warns about the rest", async () => {
    const backend = fromLangChainTools(tools)
    const listed = await backend.toolSchemas()
    expect(listed.map((t) => t.id)).toEqual([
      "langchain/search",
      "langchain/lookup",
      "langchain/quota",
      "langchain/broken",
      "langchain/wait",
    ])
    expect(listed[0]!.inputSchema).toMatchObject({
      type: "object",
      properties: { q: { type: "string", minLength: 1 } },
      required: ["q"],
    })
    expect(backend.warnings.map((w) => w.toolId)).toEqual(["langchain/bad name!"])
  })

  it("runs under the runner: approval by default, validation, results, failures, signals", async () => {
    await expect(
      createRunner({ backends: [fromLangChainTools(tools)] }).callTool({
        name: "langchain/search",
        arguments: { q: "x" },
      }),
    ).rejects.toMatchObject({ _tag: "ApprovalRequired" })
    const runner = createRunner({ backends: [fromLangChainTools(tools, { requiresApproval: () => false })] })
    expect((await runner.callTool({ name: "langchain/search", arguments: { q: "tea" } })).content).toEqual([
      { type: "text", text: "results for tea" },
    ])
    expect(
      (await runner.callTool({ name: "langchain/lookup", arguments: { key: "k" } })).structuredContent,
    ).toEqual({ key: "k", value: 42 })
    const quota = await runner.callTool({ name: "langchain/quota", arguments: {} })
    expect(quota.isError).toBe(true)
    expect(quota.content).toEqual([{ type: "text", text: "quota exceeded" }])
    await expect(runner.callTool({ name: "langchain/search", arguments: { q: "" } })).rejects.toMatchObject({
      _tag: "InvalidArguments",
    })
    await expect(runner.callTool({ name: "langchain/broken", arguments: {} })).rejects.toMatchObject({
      _tag: "ExecutionFailed",
      message: expect.stringContaining("index offline"),
    })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    await runner
      .callTool({ name: "langchain/wait", arguments: {}, context: { signal: controller.signal } })
      .catch(() => undefined)
    expect(seen.aborted).toBe(true)
  })
})
