import { describe, expect, it } from "vitest"
import {
  ConfigError,
  isToolError,
  registerToolErrorDecoder,
  SandboxCrashed,
  SandboxError,
  SandboxLimit,
  SandboxMemory,
  SandboxTimeout,
  TaggedToolError,
  type ToolError,
  toolErrorFromJson,
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

  it("carry the fairness and argument limits and the time a program waited, across JSON", () => {
    const more: ToolError[] = [
      new SandboxLimit({ limit: "arguments", max: 1000 }),
      new SandboxLimit({ limit: "queue", max: 8 }),
      new SandboxTimeout({ timeoutMs: 800, queuedMs: 650 }),
    ]
    expect(more.map((e) => e.message)).toEqual([
      "The program exceeded its limit of 1000 bytes of arguments in one tool call and was stopped",
      "The program was refused: its caller already has 8 programs waiting for the sandbox",
      "The program did not finish within 800 ms (650 ms of it waiting for a free sandbox) and was stopped",
    ])
    for (const e of more) {
      const back = toolErrorFromJson(JSON.parse(JSON.stringify(toolErrorToJson(e))))
      expect(back, e.message).toBeInstanceOf(e.constructor)
      expect(toolErrorToJson(back!)).toEqual(toolErrorToJson(e))
    }
  })

  it("round-trip through JSON text and toolErrorFromJson as the same class, fields and message", () => {
    for (const e of samples) {
      const back = toolErrorFromJson(JSON.parse(JSON.stringify(toolErrorToJson(e))))
      expect(back, e._tag).toBeInstanceOf(e.constructor)
      expect(back!._tag).toBe(e._tag)
      expect(back!.code).toBe(e.code)
      expect(back!.message).toBe(e.message)
      expect(toolErrorToJson(back!)).toEqual(toolErrorToJson(e))
    }
  })

  it("rebuild nothing from JSON with missing or mistyped fields", () => {
    const bad: unknown[] = [
      { _tag: "SandboxTimeout" },
      { _tag: "SandboxTimeout", timeoutMs: "100" },
      { _tag: "SandboxTimeout", timeoutMs: -1 },
      { _tag: "SandboxMemory", limitBytes: null },
      { _tag: "SandboxLimit", limit: "disk", max: 1 },
      { _tag: "SandboxLimit", limit: "calls" },
      { _tag: "SandboxError", cause: "boom" },
      { _tag: "SandboxError", cause: { name: "Error" } },
      { _tag: "SandboxCrashed", reason: 3 },
    ]
    for (const json of bad) expect(toolErrorFromJson(json), JSON.stringify(json)).toBeUndefined()
    // Malformed logs are dropped, the error itself survives.
    const e = toolErrorFromJson({ _tag: "SandboxCrashed", reason: "x", logs: [1, 2] })
    expect(e).toBeInstanceOf(SandboxCrashed)
    expect((e as SandboxCrashed).logs).toBeUndefined()
  })
})

describe("registerToolErrorDecoder", () => {
  class QuotaExceeded extends TaggedToolError("QuotaExceededTest")<{ readonly account: string }> {
    readonly code = "QUOTA_EXCEEDED"
    override get message(): string {
      return `Quota exceeded for ${this.account}`
    }
  }
  // A test-only member, not declared in ToolErrorExtensions: cast where the family type is expected.
  const decode = ({ account }: Readonly<Record<string, unknown>>) =>
    typeof account === "string" ? (new QuotaExceeded({ account }) as unknown as ToolError) : undefined

  it("lets another package's errors round-trip once registered", () => {
    const json = JSON.parse(JSON.stringify(toolErrorToJson(new QuotaExceeded({ account: "a1" }) as never)))
    expect(toolErrorFromJson(json)).toBeUndefined()
    registerToolErrorDecoder("QuotaExceededTest" as never, decode)
    registerToolErrorDecoder("QuotaExceededTest" as never, decode) // same decoder again: no-op
    const back = toolErrorFromJson(json)
    expect(back).toBeInstanceOf(QuotaExceeded)
    expect(back!.message).toBe("Quota exceeded for a1")
    expect(toolErrorFromJson({ _tag: "QuotaExceededTest", account: 7 })).toBeUndefined()
  })

  it("refuses core tags and a second decoder for a tag, with ConfigError", () => {
    expect(() => registerToolErrorDecoder("Timeout" as never, decode)).toThrow(ConfigError)
    expect(() => registerToolErrorDecoder("SandboxTimeout", () => undefined)).toThrow(
      /a different decoder for "SandboxTimeout"/,
    )
    expect(() => registerToolErrorDecoder("" as never, decode)).toThrow(ConfigError)
  })

  it("gives undefined when a decoder throws or returns another tag", () => {
    registerToolErrorDecoder("ThrowingTest" as never, () => {
      throw new Error("bad decoder")
    })
    registerToolErrorDecoder("WrongTagTest" as never, () => new SandboxCrashed({ reason: "x" }))
    expect(toolErrorFromJson({ _tag: "ThrowingTest" })).toBeUndefined()
    expect(toolErrorFromJson({ _tag: "WrongTagTest" })).toBeUndefined()
  })
})
