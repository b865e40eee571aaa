/**
 * The real `@anthropic-ai/sdk` client, pointed at a local HTTP server that speaks POST /v1/messages with
 * scripted `tool_use` responses. No network beyond 127.0.0.1.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import Anthropic from "@anthropic-ai/sdk"
import { defineTool } from "@toolplane/foundation"
import {
  echoViolations,
  PROTOTYPE_KEYS,
  prototypeKeyArguments,
  prototypeKeyService,
} from "@toolplane/testkit"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { runAgentLoop, runToolCalls, toAnthropicToolSearch, toAnthropicTools } from "../src/index.js"
import { allDefinitions, PNG, serviceOf } from "./support.js"

type Script = (body: any, index: number) => unknown
let received: any[] = []
let headers: Record<string, unknown>[] = []
let script: Script = () => ({})
let server: Server
let baseURL: string

beforeAll(async () => {
  server = createServer((req, res) => {
    let data = ""
    req.on("data", (chunk) => (data += chunk))
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/messages") {
        res.writeHead(404, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            type: "error",
            error: { type: "not_found_error", message: `no route ${req.url}` },
          }),
        )
        return
      }
      const body = JSON.parse(data)
      received.push(body)
      headers.push(req.headers)
      void Promise.resolve(script(body, received.length - 1)).then((reply) => {
        if (res.destroyed) return
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(reply))
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
beforeEach(() => {
  received = []
  headers = []
})

const client = () => new Anthropic({ apiKey: "sk-ant-test", baseURL, maxRetries: 0, timeout: 10_000 })

const message = (content: unknown[], stop_reason: string) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-test",
  content,
  stop_reason,
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
})

const toolUse = (id: string, name: string, input: unknown) => ({
  type: "tool_use",
  id,
  name,
  input,
  caller: { type: "direct" },
})

// name, input, what the result text must contain, is_error
const CALLS: [string, unknown, string, boolean][] = [
  ["weather__current", { city: "Oslo" }, '"temp":4', false],
  ["math__add", { a: 2, b: 3 }, "5", false],
  ["weather__currnt", {}, "Error [TOOL_NOT_FOUND]", true],
  ["math__add", "a=2,b=3", "Error [INVALID_INPUT]", true],
  ["weather__current", { city: "X" }, "Error [INVALID_ARGUMENTS]", true],
  ["ops__explode", {}, "the reactor is offline", true],
  ["ops__deploy", { env: "prod" }, "Error [APPROVAL_REQUIRED]", true],
  ["viz__chart", { title: "sales" }, "chart: sales", false],
]

const toolCalls = () =>
  message(
    [
      { type: "text", text: "Let me check.", citations: null },
      ...CALLS.map(([n, input], i) => toolUse(`toolu_${i}`, n, input)),
    ],
    "tool_use",
  )

const checkResults = (results: any[]) => {
  expect(results.map((r) => r.type)).toEqual(CALLS.map(() => "tool_result"))
  expect(results.map((r) => r.tool_use_id)).toEqual(CALLS.map((_, i) => `toolu_${i}`))
  for (const [i, [, , expected, isError]] of CALLS.entries()) {
    expect(results[i].content[0].text).toContain(expected)
    expect(results[i].is_error === true).toBe(isError)
  }
  expect(results[2].content[0].text).toContain("Available tools: math__add, ops__deploy, ops__explode")
  expect(results[2].content[0].text).toContain('Did you mean "weather__current"')
  expect(results[4].content[0].text).toContain("at /city")
  // the chart's image went back as an image block, not a placeholder
  expect(results[7].content[1]).toEqual({
    type: "image",
    source: { type: "base64", media_type: "image/png", data: PNG },
  })
}

describe("agent loop against a local Messages API server", () => {
  it("runs parallel calls, turns every failure into an is_error tool_result and stops when the model answers", async () => {
    script = (_body, index) =>
      index === 0
        ? toolCalls()
        : message([{ type: "text", text: "Oslo is 4°C; 2+3=5.", citations: null }], "end_turn")
    const { service, calls, stats } = serviceOf(allDefinitions, {
      needsApproval: ["ops/deploy"],
      delayMs: 20,
    })
    const result = await runAgentLoop({
      client: client(),
      service,
      model: "claude-test",
      system: "You are terse.",
      messages: [{ role: "user", content: "weather and sums please" }],
    })
    expect(result.stopReason).toBe("completed")
    expect(result.text).toBe("Oslo is 4°C; 2+3=5.")
    expect(received).toHaveLength(2)
    expect(headers[0]!.authorization ?? headers[0]!["x-api-key"]).toMatch(/sk-ant-test/)
    expect(headers[0]!["anthropic-version"]).toBeDefined()
    const first = received[0]
    expect(first.model).toBe("claude-test")
    expect(first.max_tokens).toBe(4096)
    expect(first.system).toBe("You are terse.")
    expect(first.tools.map((t: any) => t.name)).toEqual([
      "math__add",
      "ops__deploy",
      "ops__explode",
      "viz__chart",
      "weather__current",
    ])
    for (const t of first.tools) {
      expect(t.input_schema.type).toBe("object")
      expect("strict" in t).toBe(false)
    }
    // second request: the user turn, the assistant turn as it came, then one user turn of tool results
    const messages = received[1].messages
    expect(messages[0]).toEqual({ role: "user", content: "weather and sums please" })
    expect(messages[1].role).toBe("assistant")
    expect(messages[1].content.filter((b: any) => b.type === "tool_use")).toHaveLength(CALLS.length)
    expect(messages[2].role).toBe("user")
    checkResults(messages[2].content)
    expect(messages).toHaveLength(3)
    // the service was never asked for the unknown tool or the non-object input
    expect(calls.map((c) => c.name).sort()).toEqual([
      "math/add",
      "ops/deploy",
      "ops/explode",
      "viz/chart",
      "weather/current",
      "weather/current",
    ])
    expect(stats.maxInflight).toBeGreaterThan(1)
  })

  it("by hand: runToolCalls returns the exact tool_result blocks for the next user message", async () => {
    script = () => toolCalls()
    const { service } = serviceOf(allDefinitions, { needsApproval: ["ops/deploy"] })
    const set = toAnthropicTools(allDefinitions, { strict: true })
    const response = await client().messages.create({
      model: "claude-test",
      max_tokens: 512,
      messages: [{ role: "user", content: "go" }],
      tools: set.tools,
    })
    const results = await runToolCalls(service, response, { tools: set })
    checkResults(results)
    // strict went out on every tool, closed objects
    for (const t of received[0].tools) {
      expect(t.strict).toBe(true)
      expect(t.input_schema.additionalProperties).toBe(false)
    }
    // the results are valid request content: send them back through the real client
    script = () => message([{ type: "text", text: "ok", citations: null }], "end_turn")
    await client().messages.create({
      model: "claude-test",
      max_tokens: 512,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: response.content },
        { role: "user", content: results },
      ],
    })
    expect(received[1].messages[2].content).toEqual(results)
  })

  it("prototype keys: a strict schema with __proto__ and constructor properties goes out and comes back as data", async () => {
    const { tool, service, calls } = prototypeKeyService()
    script = () => message([toolUse("tu_0", "keys__echo", prototypeKeyArguments())], "tool_use")
    const set = toAnthropicTools([tool], { strict: true })
    const response = await client().messages.create({
      model: "claude-test",
      max_tokens: 512,
      messages: [{ role: "user", content: "go" }],
      tools: set.tools,
    })
    const sent = received[0].tools[0]
    expect(sent.strict).toBe(true)
    expect(Object.keys(sent.input_schema.properties).slice(0, 4)).toEqual([...PROTOTYPE_KEYS])
    expect(Object.keys(sent.input_schema.$defs)).toEqual(["__proto__"])
    const results = await runToolCalls(service, response, { tools: set })
    expect(echoViolations(calls, JSON.stringify(prototypeKeyArguments()))).toEqual([])
    expect(results[0]).toEqual({
      type: "tool_result",
      tool_use_id: "tu_0",
      content: [{ type: "text", text: JSON.stringify(prototypeKeyArguments()) }],
    })
  })

  it("stops at the step limit when the model keeps calling tools", async () => {
    script = () => message([toolUse("toolu_x", "math__add", { a: 1, b: 1 })], "tool_use")
    const { service } = serviceOf(allDefinitions)
    const result = await runAgentLoop({
      client: client(),
      service,
      model: "claude-test",
      messages: [{ role: "user", content: "loop" }],
      maxSteps: 3,
    })
    expect(result.stopReason).toBe("max_steps")
    expect(received).toHaveLength(3)
    expect(result.steps.map((s) => s.outcomes[0]!.block.content)).toEqual([
      [{ type: "text", text: "2" }],
      [{ type: "text", text: "2" }],
      [{ type: "text", text: "2" }],
    ])
  })
})

describe("cancellation", () => {
  it("the context's signal aborts the model request in flight", async () => {
    script = () => new Promise((resolve) => setTimeout(() => resolve(message([], "end_turn")), 5_000))
    const { service } = serviceOf(allDefinitions)
    const controller = new AbortController()
    const loop = runAgentLoop({
      client: client(),
      service,
      model: "claude-test",
      messages: [{ role: "user", content: "slow" }],
      context: { signal: controller.signal },
    })
    while (received.length === 0) await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    await expect(loop).rejects.toThrow(/abort/i)
  })
})

describe("provider tool search against the local server", () => {
  // 300 tools: the case tool search is for
  const many = Array.from({ length: 300 }, (_, i) =>
    defineTool({
      id: `svc${Math.floor(i / 50)}/op_${i}`,
      description: `Operation number ${i}`,
      input: z.object({ n: z.number() }),
      handler: ({ n }) => `op ${i}: ${n * 2}`,
    }),
  )

  it("defers every tool but the kept ones, adds the search tool, and runs the tool Claude found", async () => {
    const set = toAnthropicToolSearch(many, { variant: "regex", alwaysLoaded: ["svc0/op_0"] })
    script = (_body, index) =>
      index === 0
        ? message(
            [
              {
                type: "server_tool_use",
                id: "srvtoolu_1",
                name: "tool_search_tool_regex",
                input: { pattern: "op_217" },
                caller: { type: "direct" },
              },
              {
                type: "tool_search_tool_result",
                tool_use_id: "srvtoolu_1",
                content: {
                  type: "tool_search_tool_search_result",
                  tool_references: [{ type: "tool_reference", tool_name: "svc4__op_217" }],
                },
              },
              toolUse("toolu_1", "svc4__op_217", { n: 21 }),
            ],
            "tool_use",
          )
        : message([{ type: "text", text: "42", citations: null }], "end_turn")
    const { service, calls } = serviceOf(many)
    const result = await runAgentLoop({
      client: client(),
      service,
      model: "claude-test",
      messages: [{ role: "user", content: "run op 217 on 21" }],
      tools: set,
    })
    const tools = received[0].tools
    expect(tools).toHaveLength(301)
    expect(tools.at(-1)).toEqual({ type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" })
    expect(tools.filter((t: any) => t.defer_loading === true)).toHaveLength(299)
    expect(tools.find((t: any) => t.name === "svc0__op_0").defer_loading).toBeUndefined()
    // only the client tool ran; the server tool blocks went back untouched
    expect(calls).toEqual([{ name: "svc4/op_217", arguments: { n: 21 } }])
    const back = received[1].messages
    expect(back[1].content.map((b: any) => b.type)).toEqual([
      "server_tool_use",
      "tool_search_tool_result",
      "tool_use",
    ])
    expect(back[2].content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "op 217: 42" }] },
    ])
    expect(result.text).toBe("42")
  })

  it("continues a pause_turn without adding a user turn", async () => {
    script = (_body, index) =>
      index === 0
        ? message(
            [
              {
                type: "server_tool_use",
                id: "srvtoolu_1",
                name: "tool_search_tool_bm25",
                input: { query: "double" },
                caller: { type: "direct" },
              },
            ],
            "pause_turn",
          )
        : message([{ type: "text", text: "done", citations: null }], "end_turn")
    const { service } = serviceOf(many)
    const result = await runAgentLoop({
      client: client(),
      service,
      model: "claude-test",
      messages: [{ role: "user", content: "find" }],
      tools: toAnthropicToolSearch(many),
    })
    expect(result.text).toBe("done")
    expect(received).toHaveLength(2)
    expect(received[1].messages.map((m: any) => m.role)).toEqual(["user", "assistant"])
    expect(received[0].tools.at(-1)).toEqual({
      type: "tool_search_tool_bm25_20251119",
      name: "tool_search_tool_bm25",
    })
  })
})
