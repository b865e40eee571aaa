/**
 * Code mode for OpenAI: one function tool whose calls run programs (QuickJS sandbox, real runner) through
 * `runToolCalls`. The model's messages are literal Chat Completions / Responses shapes (no hosted API).
 */
import { approveWith, codeExecutor, createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { quickJsSandbox } from "@toolplane/plugin-sandbox-quickjs"
import { afterAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { openAICodeMode, runToolCalls } from "../src/index.js"

const add = defineTool({
  id: "math/add",
  description: "Adds two numbers.",
  input: z.object({ a: z.number(), b: z.number() }),
  output: z.object({ sum: z.number() }),
  handler: ({ a, b }) => ({ sum: a + b }),
})
const wipe = defineTool({
  id: "ops/wipe",
  description: "Wipes everything.",
  input: z.object({}),
  handler: () => "wiped",
})
const defs = [add, wipe]
const backend = definitionBackend(defs, { name: "local", approval: (id) => id === "ops/wipe" })
const runner = createRunner({
  backends: [backend],
  approver: approveWith(() => ({ approved: false, reason: "no" })),
})
const sandbox = quickJsSandbox({ maxWorkers: 1 })
afterAll(() => sandbox.close())

describe("openAICodeMode", () => {
  it("exports one function tool declaring the toolset", async () => {
    const code = await openAICodeMode(runner, { executor: codeExecutor({ sandbox }) })
    expect(code.tools).toHaveLength(1)
    const tool = code.tools[0] as {
      type: string
      function: { name: string; description: string; parameters: unknown }
    }
    expect(tool.type).toBe("function")
    expect(tool.function.name).toBe("toolplane__execute_code")
    expect(tool.function.description).toContain(
      "add(args: { a: number; b: number }): Promise<{ sum: number }>",
    )
    expect(tool.function.description).toContain("wipe(args?: {}): Promise<string>")
  })

  it("runs the model's execute_code calls in runToolCalls (Chat Completions and Responses)", async () => {
    const code = await openAICodeMode(runner, { executor: codeExecutor({ sandbox }) })
    const program =
      "const { sum } = await tools.math.add({ a: 2, b: 3 }); let denied; try { await tools.ops.wipe() } catch (e) { denied = e.code } return { sum, denied }"
    const [message] = await runToolCalls(
      code.service,
      {
        role: "assistant",
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "toolplane__execute_code", arguments: JSON.stringify({ code: program }) },
          },
        ],
      },
      { tools: code.toolSet },
    )
    expect(message!.tool_call_id).toBe("c1")
    expect(JSON.parse(message!.content)).toEqual({ result: { sum: 5, denied: "APPROVAL_DENIED" }, logs: [] })

    const responses = await openAICodeMode(runner, { executor: codeExecutor({ sandbox }), api: "responses" })
    const [item] = await runToolCalls(
      responses.service,
      [
        {
          type: "function_call",
          call_id: "r1",
          name: "toolplane__execute_code",
          arguments: JSON.stringify({ code: "for (;;) {}" }),
        },
      ],
      { tools: responses.toolSet, context: { timeoutMs: 300 } },
    )
    expect(item!.call_id).toBe("r1")
    expect(item!.output).toContain("SANDBOX_TIMEOUT")
  })
})
