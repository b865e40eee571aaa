import { describe, expect, it } from "vitest"
import {
  isToolError,
  SandboxCrashed,
  SandboxError,
  SandboxLimit,
  SandboxMemory,
  SandboxTimeout,
  type ToolError,
  toolErrorToJson,
} from "../src/index.js"

describe("sandbox failures", () => {
  const samples: ToolError[] = [
    new SandboxTimeout({ timeoutMs: 100, logs: ["started"] }),
    new SandboxMemory({ limitBytes: 2 ** 26 }),
    new SandboxLimit({ limit: "cpu", max: 50 }),
    new SandboxError({ cause: { name: "TypeError", message: "x", stack: "at f (program.js:1:2)" } }),
    new SandboxCrashed({ reason: "worker exited" }),
  ]

  it("are branded members of the ToolError family, not retryable", () => {
    for (const e of samples) {
      expect(isToolError(e)).toBe(true)
      expect(e.retryable).toBe(false)
    }
  })

  it("serialize with tag, code, message and fields; messages carry the logs and the stack", () => {
    expect(samples.map((e) => toolErrorToJson(e).code)).toEqual([
      "SANDBOX_TIMEOUT",
      "SANDBOX_MEMORY",
      "SANDBOX_LIMIT",
      "SANDBOX_ERROR",
      "SANDBOX_CRASHED",
    ])
    expect(toolErrorToJson(samples[0]!)).toMatchObject({
      _tag: "SandboxTimeout",
      timeoutMs: 100,
      logs: ["started"],
    })
    expect(samples[0]!.message).toBe(
      "The program did not finish within 100 ms and was stopped\nConsole output before the failure:\nstarted",
    )
    expect(samples[2]!.message).toBe("The program exceeded its limit of 50 ms of CPU time and was stopped")
    expect(samples[3]!.message).toBe("The program failed: TypeError: x\nat f (program.js:1:2)")
  })
})
