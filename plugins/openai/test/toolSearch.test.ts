/**
 * Tool search, both ways, with the real `openai` client against a local server on 127.0.0.1:
 * OpenAI's hosted tool search (namespaces, deferred loading, namespaced function calls routed back),
 * and the portable fallback (our search mode's meta-tools as plain function tools, any provider).
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { searchMode } from "@toolplane/discovery"
import { applyMiddleware, listAllTools } from "@toolplane/foundation"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runAgentLoop, runToolCalls, toOpenAIToolSearch, toOpenAITools } from "../src/index.js"
import { strictViolations } from "./strictChecker.js"
import { allDefinitions, serviceOf } from "./support.js"

type Script = (body: any, index: number) => unknown
const received: any[] = []
let script: Script = () => ({})
let server: Server
let baseURL: string

beforeAll(async () => {
  server = createServer((req, res) => {
    let data = ""
    req.on("data", (chunk) => (data += chunk))
    req.on("end", () => {
      const body = JSON.parse(data)
      received.push({ url: req.url, body })
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(script(body, received.length - 1)))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const client = () => new OpenAI({ apiKey: "sk-test", baseURL, maxRetries: 0, timeout: 10_000 })
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

describe("OpenAI hosted tool search", () => {
  it("sends namespaces of deferred functions plus tool_search, and routes namespaced calls back", async () => {
    const service = serviceOf(allDefinitions, { needsApproval: ["ops/deploy"] })
    const set = toOpenAIToolSearch(await listAllTools(service), {
      loadUpFront: (t) => t.id === "math/add",
      namespaceDescriptions: { ops: "Operations: deploys and failure drills" },
    })
    expect(set.tools[0]).toEqual({ type: "tool_search" })
    const namespaces = set.tools.slice(1) as any[]
    expect(namespaces.map((n) => n.name)).toEqual(["math", "ops", "weather"])
    expect(namespaces.find((n) => n.name === "ops").description).toBe(
      "Operations: deploys and failure drills",
    )
    const fns = namespaces.flatMap((n) => n.tools)
    expect(fns.find((f: any) => f.name === "add").defer_loading).toBeUndefined()
    expect(fns.filter((f: any) => f.defer_loading === true)).toHaveLength(3)
    for (const f of fns) if (f.strict) expect(strictViolations(f.parameters)).toEqual([])
    expect([...set.byName.keys()].sort()).toEqual([
      "math.add",
      "ops.deploy",
      "ops.explode",
      "weather.current",
    ])

    const start = received.length
    script = () =>
      response([
        { type: "tool_search_call", id: "ts_1", status: "completed", arguments: { query: "weather" } },
        {
          type: "function_call",
          id: "fc_1",
          call_id: "c1",
          namespace: "weather",
          name: "current",
          arguments: '{"city":"Oslo","units":null}',
          status: "completed",
        },
        {
          type: "function_call",
          id: "fc_2",
          call_id: "c2",
          namespace: "weather",
          name: "forecast",
          arguments: "{}",
          status: "completed",
        },
        {
          type: "function_call",
          id: "fc_3",
          call_id: "c3",
          namespace: "ops",
          name: "deploy",
          arguments: '{"env":"prod"}',
          status: "completed",
        },
      ])
    const res = await client().responses.create({
      model: "gpt-test",
      input: "weather in Oslo?",
      tools: set.tools,
    })
    expect(received[start].url).toBe("/v1/responses")
    expect(received[start].body.tools).toEqual(JSON.parse(JSON.stringify(set.tools)))
    const outputs = await runToolCalls(service, res, { tools: set })
    expect(outputs.map((o) => o.call_id)).toEqual(["c1", "c2", "c3"])
    expect(outputs[0]!.output).toContain('"temp":4')
    expect(service.calls[0]).toEqual({ name: "weather/current", arguments: { city: "Oslo" } })
    expect(outputs[1]!.output).toContain("Error [TOOL_NOT_FOUND]")
    expect(outputs[1]!.output).toContain("weather.forecast")
    expect(outputs[2]!.output).toContain("Error [APPROVAL_REQUIRED]")
  })
})

describe("portable fallback: search mode's meta-tools for any provider", () => {
  it("the model finds a tool with search_tools and runs it with call_tool", async () => {
    const inner = serviceOf(allDefinitions)
    const service = applyMiddleware(inner, searchMode())
    const set = toOpenAITools(await listAllTools(service))
    expect(set.tools.map((t) => t.function.name).sort()).toEqual([
      "toolplane__call_tool",
      "toolplane__describe_tool",
      "toolplane__search_tools",
    ])
    const start = received.length
    script = (body, i) => {
      const tool = (id: string, name: string, args: unknown) => ({
        id,
        type: "function",
        function: { name, arguments: JSON.stringify(args) },
      })
      const step = i - start
      const message =
        step === 0
          ? {
              content: null,
              tool_calls: [tool("s1", "toolplane__search_tools", { query: "current weather for a city" })],
            }
          : step === 1
            ? {
                content: null,
                tool_calls: [
                  tool("s2", "toolplane__call_tool", { id: "weather/current", arguments: { city: "Oslo" } }),
                ],
              }
            : { content: `done: ${body.messages.at(-1).content}` }
      return {
        id: "c",
        object: "chat.completion",
        created: 1,
        model: "gpt-test",
        choices: [
          {
            index: 0,
            message: { role: "assistant", refusal: null, ...message },
            finish_reason: "stop",
            logprobs: null,
          },
        ],
      }
    }
    const result = await runAgentLoop({
      client: client(),
      service,
      model: "gpt-test",
      tools: set,
      messages: [{ role: "user", content: "weather in Oslo?" }],
    })
    expect(result.stopReason).toBe("completed")
    const searchOutput = result.steps[0]!.outcomes[0]!.output
    expect(JSON.parse(searchOutput).hits[0].id).toBe("weather/current")
    expect(result.text).toContain('"temp":4')
    expect(inner.calls).toEqual([{ name: "weather/current", arguments: { city: "Oslo" } }])
  })
})
