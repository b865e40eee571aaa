/**
 * The real `openai` client, pointed at a local HTTP server that speaks POST /v1/chat/completions and
 * POST /v1/responses with scripted tool calls. No network beyond 127.0.0.1.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import {
  echoViolations,
  PROTOTYPE_KEYS,
  prototypeKeyArguments,
  prototypeKeyService,
} from "@toolplane/testkit"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runAgentLoop, runToolCalls, toOpenAITools } from "../src/index.js"
import { allDefinitions, serviceOf } from "./support.js"

type Script = (body: any, index: number) => unknown
const received: Record<string, any[]> = { chat: [], responses: [] }
const scripts: Record<string, Script> = {}
let server: Server
let baseURL: string

beforeAll(async () => {
  server = createServer((req, res) => {
    let data = ""
    req.on("data", (chunk) => (data += chunk))
    req.on("end", () => {
      const kind =
        req.url === "/v1/chat/completions" ? "chat" : req.url === "/v1/responses" ? "responses" : undefined
      if (req.method !== "POST" || kind === undefined || scripts[kind] === undefined) {
        res.writeHead(404, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request_error" },
          }),
        )
        return
      }
      const body = JSON.parse(data)
      received[kind]!.push(body)
      const reply = scripts[kind]!(body, received[kind]!.length - 1)
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(reply))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const client = () => new OpenAI({ apiKey: "sk-test", baseURL, maxRetries: 0, timeout: 10_000 })

/** A service that also records how many calls ran at once. */
const trackedService = () => {
  const inner = serviceOf(allDefinitions, { needsApproval: ["ops/deploy"] })
  let inflight = 0
  const stats = { maxInflight: 0 }
  return {
    stats,
    calls: inner.calls,
    service: {
      listTools: inner.listTools,
      callTool: async (request: Parameters<typeof inner.callTool>[0]) => {
        inflight++
        stats.maxInflight = Math.max(stats.maxInflight, inflight)
        await new Promise((r) => setTimeout(r, 20))
        try {
          return await inner.callTool(request)
        } finally {
          inflight--
        }
      },
    },
  }
}

// name, arguments (raw JSON text), what the output must contain
const CALLS: [string, string, string][] = [
  ["weather__current", '{"city":"Oslo","units":null}', '"temp":4'],
  ["math__add", '{"a":2,"b":3}', "5"],
  ["nope__tool", "{}", "Error [TOOL_NOT_FOUND]"],
  ["math__add", '{"a": 2,', "Error [INVALID_JSON]"],
  ["weather__current", '{"city":"X","units":null}', "Error [INVALID_ARGUMENTS]"],
  ["ops__explode", "{}", "the reactor is offline"],
  ["ops__deploy", '{"env":"prod"}', "Error [APPROVAL_REQUIRED]"],
]

const chatCompletion = (message: Record<string, unknown>, finish: string) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-test",
  choices: [
    {
      index: 0,
      message: { role: "assistant", refusal: null, ...message },
      finish_reason: finish,
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
})

const chatToolCalls = () =>
  chatCompletion(
    {
      content: null,
      tool_calls: CALLS.map(([name, args], i) => ({
        id: `call_${i}`,
        type: "function",
        function: { name, arguments: args },
      })),
    },
    "tool_calls",
  )

const response = (output: unknown[]) => ({
  id: "resp_1",
  object: "response",
  created_at: 1,
  model: "gpt-test",
  status: "completed",
  output,
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  error: null,
  incomplete_details: null,
  instructions: null,
  metadata: {},
  temperature: 1,
  top_p: 1,
})

const responseToolCalls = () =>
  response(
    CALLS.map(([name, args], i) => ({
      type: "function_call",
      id: `fc_${i}`,
      call_id: `call_${i}`,
      name,
      arguments: args,
      status: "completed",
    })),
  )

const checkOutputs = (outputs: { id: string; text: string }[]) => {
  expect(outputs.map((o) => o.id)).toEqual(CALLS.map((_, i) => `call_${i}`))
  for (const [i, [, , expected]] of CALLS.entries()) expect(outputs[i]!.text).toContain(expected)
  expect(outputs[2]!.text).toContain(
    "Available tools: math__add, ops__deploy, ops__explode, weather__current",
  )
  expect(outputs[4]!.text).toContain("at /city")
}

describe("agent loop against a local OpenAI-compatible server", () => {
  it("chat completions: runs parallel calls, turns every failure into a tool message and stops when the model answers", async () => {
    received.chat = []
    scripts.chat = (_body, index) =>
      index === 0 ? chatToolCalls() : chatCompletion({ content: "Oslo is 4°C; 2+3=5." }, "stop")
    const { service, calls, stats } = trackedService()
    const result = await runAgentLoop({
      client: client(),
      service,
      model: "gpt-test",
      messages: [{ role: "user", content: "weather and sums please" }],
    })
    expect(result.stopReason).toBe("completed")
    expect(result.text).toBe("Oslo is 4°C; 2+3=5.")
    expect(received.chat).toHaveLength(2)
    // first request offered the service's tools, strict, under OpenAI names
    const offered = received.chat[0].tools.map((t: any) => [t.type, t.function.name, t.function.strict])
    expect(offered).toEqual([
      ["function", "math__add", true],
      ["function", "ops__deploy", true],
      ["function", "ops__explode", true],
      ["function", "weather__current", true],
    ])
    // second request carries the assistant message and one tool message per call, in order
    const messages = received.chat[1].messages
    expect(messages[0]).toEqual({ role: "user", content: "weather and sums please" })
    expect(messages[1].role).toBe("assistant")
    expect(messages[1].tool_calls).toHaveLength(CALLS.length)
    const toolMessages = messages.slice(2)
    expect(toolMessages.every((m: any) => m.role === "tool")).toBe(true)
    checkOutputs(toolMessages.map((m: any) => ({ id: m.tool_call_id, text: m.content })))
    // the strict null for the optional "units" was removed before the tool ran
    expect(calls.find((c) => c.name === "weather/current")!.arguments).toEqual({ city: "Oslo" })
    // the service was never asked for the unknown tool or the invalid JSON
    expect(calls.map((c) => c.name).sort()).toEqual([
      "math/add",
      "ops/deploy",
      "ops/explode",
      "weather/current",
      "weather/current",
    ])
    expect(stats.maxInflight).toBeGreaterThan(1)
  })

  it("chat completions by hand: runToolCalls returns the exact tool messages", async () => {
    received.chat = []
    scripts.chat = () => chatToolCalls()
    const { service } = trackedService()
    const set = toOpenAITools(allDefinitions, { strict: true })
    const completion = await client().chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "go" }],
      tools: set.tools,
    })
    const outputs = await runToolCalls(service, completion.choices[0]!.message, { tools: set })
    expect(outputs.every((o) => o.role === "tool" && Object.keys(o).length === 3)).toBe(true)
    checkOutputs(outputs.map((o) => ({ id: o.tool_call_id, text: o.content })))
  })

  it("prototype keys: a strict schema with __proto__ and constructor properties goes out and comes back as data", async () => {
    received.chat = []
    const { tool, service, calls } = prototypeKeyService()
    const args = { ...prototypeKeyArguments(), map: null, withDefault: null }
    scripts.chat = () =>
      chatCompletion(
        {
          content: null,
          tool_calls: [
            {
              id: "call_0",
              type: "function",
              function: { name: "keys__echo", arguments: JSON.stringify(args) },
            },
          ],
        },
        "tool_calls",
      )
    const set = toOpenAITools([tool], { strict: true })
    const completion = await client().chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "go" }],
      tools: set.tools,
    })
    const sent = received.chat[0].tools[0].function
    expect(sent.strict).toBe(true)
    expect(Object.keys(sent.parameters.properties).slice(0, 4)).toEqual([...PROTOTYPE_KEYS])
    expect(Object.keys(sent.parameters.$defs)).toEqual(["__proto__"])
    const outputs = await runToolCalls(service, completion.choices[0]!.message, { tools: set })
    expect(echoViolations(calls, JSON.stringify(prototypeKeyArguments()))).toEqual([])
    expect(outputs[0]!.content).toBe(JSON.stringify(prototypeKeyArguments()))
  })

  it("responses: sends function_call_output items for every call and stops on a message", async () => {
    received.responses = []
    scripts.responses = (_body, index) =>
      index === 0
        ? responseToolCalls()
        : response([
            {
              type: "message",
              id: "msg_1",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: "All done.", annotations: [] }],
            },
          ])
    const { service, stats } = trackedService()
    const tools = toOpenAITools(allDefinitions, { api: "responses" })
    const result = await runAgentLoop({
      api: "responses",
      client: client(),
      service,
      tools,
      model: "gpt-test",
      input: "weather and sums please",
    })
    expect(result.stopReason).toBe("completed")
    expect(result.text).toBe("All done.")
    expect(received.responses).toHaveLength(2)
    // tools given explicitly go out in the order given
    expect(received.responses[0].tools.map((t: any) => [t.type, t.name, t.strict])).toEqual([
      ["function", "weather__current", true],
      ["function", "math__add", true],
      ["function", "ops__explode", true],
      ["function", "ops__deploy", true],
    ])
    const input = received.responses[1].input
    expect(input[0]).toEqual({ role: "user", content: "weather and sums please" })
    expect(input.slice(1, 1 + CALLS.length).every((i: any) => i.type === "function_call")).toBe(true)
    const outputs = input.slice(1 + CALLS.length)
    expect(outputs.every((o: any) => o.type === "function_call_output")).toBe(true)
    checkOutputs(outputs.map((o: any) => ({ id: o.call_id, text: o.output })))
    expect(stats.maxInflight).toBeGreaterThan(1)
  })

  it("stops at the step limit when the model keeps calling tools", async () => {
    received.responses = []
    scripts.responses = () =>
      response([
        {
          type: "function_call",
          id: "fc",
          call_id: "call_x",
          name: "math__add",
          arguments: '{"a":1,"b":1}',
          status: "completed",
        },
      ])
    const { service } = trackedService()
    const result = await runAgentLoop({
      api: "responses",
      client: client(),
      service,
      model: "gpt-test",
      input: "loop",
      maxSteps: 3,
    })
    expect(result.stopReason).toBe("max_steps")
    expect(received.responses).toHaveLength(3)
    expect(result.steps.map((s) => s.outcomes[0]!.output)).toEqual(["2", "2", "2"])
  })
})
