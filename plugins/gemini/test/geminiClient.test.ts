/**
 * The real `@google/genai` client, pointed (httpOptions.baseUrl) at a local HTTP server that speaks the
 * Gemini API's `/v1(beta)/models/{model}:generateContent` REST method with scripted function calls. No network
 * beyond 127.0.0.1.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { GoogleGenAI } from "@google/genai"
import {
  echoViolations,
  PROTOTYPE_KEYS,
  prototypeKeyArguments,
  prototypeKeyService,
} from "@toolplane/testkit"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { runAgentLoop, runToolCalls, toGeminiTools } from "../src/index.js"
import { allDefinitions, PNG, search, serviceOf } from "./support.js"

type Script = (body: any, index: number) => unknown
let received: { url: string; body: any; headers: Record<string, unknown> }[] = []
let script: Script = () => ({})
let server: Server
let baseUrl: string

beforeAll(async () => {
  server = createServer((req, res) => {
    let data = ""
    req.on("data", (chunk) => (data += chunk))
    req.on("end", () => {
      const m = /^\/v1(?:beta)?\/models\/([^/:]+):generateContent$/.exec(req.url ?? "")
      if (req.method !== "POST" || m === null) {
        res.writeHead(404, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { code: 404, message: `no route ${req.url}`, status: "NOT_FOUND" } }))
        return
      }
      const body = JSON.parse(data)
      received.push({ url: req.url!, body, headers: req.headers })
      void Promise.resolve(script(body, received.length - 1)).then((reply) => {
        if (res.destroyed) return
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(reply))
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
beforeEach(() => {
  received = []
})

const client = () => new GoogleGenAI({ apiKey: "gm-test", httpOptions: { baseUrl, timeout: 10_000 } })

const reply = (parts: unknown[], finishReason = "STOP") => ({
  candidates: [{ content: { role: "model", parts }, finishReason, index: 0 }],
  usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
  modelVersion: "gemini-test",
})

// name, args, id, what the response must contain, is it an error
const CALLS: [string, unknown, string | undefined, string, boolean][] = [
  ["weather__current", { city: "Oslo" }, "c0", '"temp":4', false],
  ["math__add", { a: 2, b: 3 }, "c1", "5", false],
  ["weather__currnt", {}, "c2", "Error [TOOL_NOT_FOUND]", true],
  ["weather__current", { city: "X" }, "c3", "Error [INVALID_ARGUMENTS]", true],
  ["ops__explode", {}, "c4", "the reactor is offline", true],
  ["ops__deploy", { env: "prod" }, "c5", "Error [APPROVAL_REQUIRED]", true],
  ["viz__chart", { title: "sales" }, undefined, "chart: sales", false],
]

const functionCalls = () =>
  reply(CALLS.map(([name, args, id]) => ({ functionCall: { ...(id ? { id } : {}), name, args } })))

const checkResponses = (parts: any[]) => {
  expect(parts).toHaveLength(CALLS.length)
  for (const [i, [name, , id, expected, isError]] of CALLS.entries()) {
    const fr = parts[i].functionResponse
    expect(fr.name).toBe(name)
    expect(fr.id).toBe(id)
    const response = fr.response
    expect(isError ? "error" in response : "output" in response).toBe(true)
    const value = isError ? response.error : response.output
    expect(typeof value === "string" ? value : JSON.stringify(value)).toContain(expected)
  }
  expect(parts[2].functionResponse.response.error).toContain('Did you mean "weather__current"')
  expect(parts[3].functionResponse.response.error).toContain("at /city")
  // the chart's image went back as an inline-data part of the response, not a placeholder
  expect(parts[6].functionResponse.parts).toEqual([{ inlineData: { mimeType: "image/png", data: PNG } }])
}

describe("agent loop against a local generateContent server", () => {
  it("runs parallel calls, answers every failure with { error } and stops when the model answers", async () => {
    script = (_body, index) => (index === 0 ? functionCalls() : reply([{ text: "Oslo is 4°C; 2+3=5." }]))
    const { service, calls, stats } = serviceOf(allDefinitions, {
      needsApproval: ["ops/deploy"],
      delayMs: 20,
    })
    const result = await runAgentLoop({
      client: client(),
      service,
      model: "gemini-test",
      systemInstruction: "Be terse.",
      contents: "weather and sums please",
    })
    expect(result.stopReason).toBe("completed")
    expect(result.text).toBe("Oslo is 4°C; 2+3=5.")
    expect(received).toHaveLength(2)
    expect(received[0]!.url).toMatch(/^\/v1(beta)?\/models\/gemini-test:generateContent$/)
    expect(received[0]!.headers["x-goog-api-key"]).toBe("gm-test")
    const first = received[0]!.body
    expect(first.systemInstruction).toEqual({ parts: [{ text: "Be terse." }], role: "user" })
    const declarations = first.tools[0].functionDeclarations
    expect(declarations.map((d: any) => d.name)).toEqual([
      "math__add",
      "ops__deploy",
      "ops__explode",
      "viz__chart",
      "weather__current",
    ])
    expect(declarations.find((d: any) => d.name === "ops__explode").parameters).toBeUndefined()
    expect(declarations.find((d: any) => d.name === "weather__current").parameters).toEqual({
      type: "OBJECT",
      properties: {
        city: { type: "STRING", minLength: "2" },
        units: { type: "STRING", enum: ["c", "f"], format: "enum" },
      },
      required: ["city"],
    })
    const contents = received[1]!.body.contents
    expect(contents[0]).toEqual({ role: "user", parts: [{ text: "weather and sums please" }] })
    expect(contents[1].role).toBe("model")
    expect(contents[1].parts).toHaveLength(CALLS.length)
    expect(contents[2].role).toBe("user")
    checkResponses(contents[2].parts)
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

  it("by hand: runToolCalls returns the exact functionResponse parts, and restores renamed and JSON arguments", async () => {
    const set = toGeminiTools([...allDefinitions, search])
    script = () =>
      reply([
        ...functionCalls().candidates[0]!.content.parts,
        {
          functionCall: {
            id: "c7",
            name: "docs__search",
            args: { max_results: 3, filters: '{"lang":"en"}', mode: "deep", range: { last: 7 } },
          },
        },
      ])
    const { service, calls } = serviceOf([...allDefinitions, search], { needsApproval: ["ops/deploy"] })
    const response = await client().models.generateContent({
      model: "gemini-test",
      contents: "go",
      config: { tools: [set.tool] },
    })
    expect(response.functionCalls).toHaveLength(CALLS.length + 1)
    const parts = await runToolCalls(service, response, { tools: set })
    checkResponses(parts.slice(0, CALLS.length))
    expect(calls.find((c) => c.name === "docs/search")!.arguments).toEqual({
      "max-results": 3,
      filters: { lang: "en" },
      mode: "deep",
      range: { last: 7 },
    })
    expect(parts.at(-1)!.functionResponse.response).toEqual({
      output: { received: { "max-results": 3, filters: { lang: "en" }, mode: "deep", range: { last: 7 } } },
    })
    // the parts are valid request content: send them back through the real client
    script = () => reply([{ text: "ok" }])
    await client().models.generateContent({
      model: "gemini-test",
      contents: [
        { role: "user", parts: [{ text: "go" }] },
        response.candidates![0]!.content!,
        { role: "user", parts },
      ],
    })
    expect(received.at(-1)!.body.contents[2].parts).toEqual(JSON.parse(JSON.stringify(parts)))
  })

  it("prototype keys: a schema with __proto__ and constructor properties goes out and comes back as data", async () => {
    const { tool, service, calls } = prototypeKeyService()
    const set = toGeminiTools([tool])
    script = () => reply([{ functionCall: { id: "c0", name: "keys__echo", args: prototypeKeyArguments() } }])
    // before the call: the client rewrites the declarations it is given in place
    expect(Object.keys(set.tool.functionDeclarations![0]!.parameters!.properties!).slice(0, 4)).toEqual([
      ...PROTOTYPE_KEYS,
    ])
    const response = await client().models.generateContent({
      model: "gemini-test",
      contents: "go",
      config: { tools: [set.tool] },
    })
    // on the wire (and in `set` afterwards): @google/genai 3.1.0 (processJsonSchema) rebuilds
    // `properties` by assignment and so drops a property named __proto__ itself; the others arrive
    const sent = received[0]!.body.tools[0].functionDeclarations[0]
    const others = PROTOTYPE_KEYS.filter((k) => k !== "__proto__")
    expect(Object.keys(sent.parameters.properties)).toEqual(expect.arrayContaining(others))
    expect(Object.keys(sent.parameters.properties.nested.properties)).toEqual(expect.arrayContaining(others))
    const parts = await runToolCalls(service, response, { tools: set })
    expect(echoViolations(calls, JSON.stringify(prototypeKeyArguments()))).toEqual([])
    expect(parts[0]!.functionResponse.response).toEqual({ output: JSON.stringify(prototypeKeyArguments()) })
    // parametersJsonSchema goes out as it is: there the __proto__ property arrives too
    const jsonSet = toGeminiTools([tool], { schema: "jsonSchema" })
    await client().models.generateContent({
      model: "gemini-test",
      contents: "go",
      config: { tools: [jsonSet.tool] },
    })
    const sentJson = received[1]!.body.tools[0].functionDeclarations[0].parametersJsonSchema
    expect(Object.keys(sentJson.properties).slice(0, 4)).toEqual([...PROTOTYPE_KEYS])
    expect(Object.keys(sentJson.$defs)).toEqual(["__proto__"])
  })

  it("stops at the step limit when the model keeps calling functions", async () => {
    script = () => reply([{ functionCall: { name: "math__add", args: { a: 1, b: 1 } } }])
    const { service } = serviceOf(allDefinitions)
    const result = await runAgentLoop({
      client: client(),
      service,
      model: "gemini-test",
      contents: "loop",
      maxSteps: 3,
    })
    expect(result.stopReason).toBe("max_steps")
    expect(received).toHaveLength(3)
    expect(result.steps.map((s) => s.outcomes[0]!.part.functionResponse.response)).toEqual([
      { output: "2" },
      { output: "2" },
      { output: "2" },
    ])
  })
})

describe("cancellation", () => {
  it("the context's signal aborts the model request in flight", async () => {
    script = () => new Promise((resolve) => setTimeout(() => resolve(reply([{ text: "late" }])), 5_000))
    const { service } = serviceOf(allDefinitions)
    const controller = new AbortController()
    const loop = runAgentLoop({
      client: client(),
      service,
      model: "gemini-test",
      contents: "slow",
      context: { signal: controller.signal },
    })
    while (received.length === 0) await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    await expect(loop).rejects.toThrow(/abort/i)
  })
})
