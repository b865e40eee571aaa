/**
 * The code executor keeps a tool's own error code: an `isError` result carrying a typed error (what a
 * Toolplane server sends, and what an MCP backend keeps with `typedErrors: "result"`) reaches the
 * program as that error, also when this process cannot rebuild its tag.
 */
import { codeExecutor } from "@toolplane/exec"
import { RateLimited, type ToolResult, type ToolService, toolErrorToJson } from "@toolplane/foundation"
import { afterAll, describe, expect, it } from "vitest"
import { quickJsSandbox } from "../src/index.js"

const sandbox = quickJsSandbox({ maxWorkers: 1 })
afterAll(() => sandbox.close())

const failing = (meta: unknown): ToolResult => ({
  content: [{ type: "text", text: "it failed" }],
  isError: true,
  ...(meta !== undefined ? { _meta: { "toolplane.dev/error": meta } } : {}),
})

const results: Record<string, ToolResult> = {
  "x/limited": failing(toolErrorToJson(new RateLimited({ key: "k", retryAfterMs: 500 }))),
  "x/budget": failing({
    _tag: "BudgetExceeded",
    code: "BUDGET_EXCEEDED",
    message: "over budget",
    account: "acme",
    cause: { name: "Error", message: "inner", stack: "Error: inner\n    at /srv/gateway/budget.js:1:1" },
  }),
  "x/plain": failing(undefined),
}
const service: ToolService = {
  listTools: async () => ({ tools: [] }),
  callTool: async ({ name }) => results[name] ?? failing(undefined),
}

describe("tool error codes inside programs", () => {
  it("rejects with the typed error an isError result carries, keeping its code and fields", async () => {
    const run = await codeExecutor({ sandbox }).execute(
      `const out = []
       for (const f of [() => tools.x.limited({}), () => tools.x.budget({}), () => tools.x.plain({})])
         try { await f() } catch (e) { out.push({ code: e.code, tag: e._tag, message: e.message, account: e.account, cause: e.cause }) }
       return out`,
      { tools: service },
    )
    expect(run.result).toEqual([
      expect.objectContaining({ code: "RATE_LIMITED", tag: "RateLimited" }),
      {
        code: "BUDGET_EXCEEDED",
        tag: "BudgetExceeded",
        message: "over budget",
        account: "acme",
        cause: { name: "Error", message: "inner" },
      },
      expect.objectContaining({ code: "EXECUTION_FAILED", tag: "ExecutionFailed" }),
    ])
  })
})
