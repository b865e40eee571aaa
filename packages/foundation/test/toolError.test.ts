import { describe, expect, it } from "vitest"
import {
  ApprovalDenied,
  ApprovalRequired,
  BackendUnavailable,
  Cancelled,
  ConfigError,
  ConversionFailed,
  ExecutionFailed,
  ExpiredCursor,
  InvalidArguments,
  InvalidCursor,
  InvalidOutput,
  InvalidTool,
  isToolError,
  PromptNotFound,
  RateLimited,
  ResourceNotFound,
  Timeout,
  ToolConflict,
  type ToolError,
  ToolNotFound,
  toolErrorFromJson,
  toolErrorTags,
  toolErrorToJson,
} from "../src/index.js"

const samples: ToolError[] = [
  new ToolNotFound({ toolId: "a/b", suggestions: ["a/c"] }),
  new InvalidArguments({ toolId: "a/b", issues: [{ path: "/x", rule: "type", message: "must be number" }] }),
  new InvalidOutput({ toolId: "a/b", issues: [{ path: "", rule: "required", message: "missing" }] }),
  new InvalidTool({ toolId: "a", path: "id", reason: "no slash" }),
  new ToolConflict({ toolId: "a/b", backends: ["one", "two"] }),
  new ExecutionFailed({ toolId: "a/b", cause: { name: "Error", message: "boom" } }),
  new Timeout({ toolId: "a/b", timeoutMs: 100 }),
  new Cancelled({ toolId: "a/b", reason: "user" }),
  new ApprovalRequired({ toolId: "a/b", backend: "x" }),
  new ApprovalDenied({ toolId: "a/b", reason: "policy" }),
  new BackendUnavailable({ backend: "x", toolId: "a/b", reason: "process exited" }),
  new RateLimited({ key: "host:api.example.com", retryAfterMs: 250 }),
  new InvalidCursor({ reason: "tampered" }),
  new ExpiredCursor({ expiredAt: 1_700_000_000_000 }),
  new ConfigError({ path: "backends[0].mcp.command", reason: "missing", file: "toolplane.toml", line: 3 }),
  new ConversionFailed({ toolId: "a/b", adapter: "openai", reason: "no" }),
  new ResourceNotFound({ uri: "test://missing" }),
  new PromptNotFound({ name: "docs.summarise", suggestions: ["docs.summarize"] }),
]

describe("errors", () => {
  it("covers every tag with a sample", () => {
    expect(samples.map((e) => e._tag).sort()).toEqual([...toolErrorTags].sort())
  })

  it.each(samples.map((e) => [e._tag, e] as const))("%s round-trips through JSON", (_tag, error) => {
    const json = JSON.parse(JSON.stringify(toolErrorToJson(error)))
    expect(json._tag).toBe(error._tag)
    expect(json.code).toMatch(/^[A-Z_]+$/)
    expect(json.message).toBe(error.message)
    const back = toolErrorFromJson(json)!
    expect(back).toBeInstanceOf(error.constructor)
    expect(back.message).toBe(error.message)
    expect(toolErrorToJson(back)).toEqual(toolErrorToJson(error))
    expect(isToolError(back)).toBe(true)
  })

  it("has readable messages", () => {
    expect(samples[0]!.message).toBe('Unknown tool "a/b"; did you mean "a/c"?')
    expect(samples[1]!.message).toBe('Invalid arguments for "a/b": at /x: must be number (type)')
    expect(samples[14]!.message).toBe("toolplane.toml:line 3: backends[0].mcp.command: missing")
  })

  it("rejects unknown JSON", () => {
    expect(toolErrorFromJson({ _tag: "Nope" })).toBeUndefined()
    expect(toolErrorFromJson("x")).toBeUndefined()
    expect(isToolError(new Error("plain"))).toBe(false)
  })
})

describe("errors from untrusted JSON", () => {
  it.each([
    [{ _tag: "toString" }],
    [{ _tag: "constructor" }],
    [{ _tag: "ToolNotFound" }],
    [{ _tag: "ToolNotFound", toolId: "a/b", suggestions: "a/c" }],
    [{ _tag: "Timeout", toolId: "a/b", timeoutMs: "100" }],
    [{ _tag: "ExecutionFailed", toolId: "a/b", cause: "boom" }],
  ])("%j gives undefined, never a throw or a broken error", (json) => {
    expect(toolErrorFromJson(json)).toBeUndefined()
  })
})
