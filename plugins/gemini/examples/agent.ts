/**
 * The runnable example of the README: tools defined once, served by the runner, exported as Gemini
 * function declarations, and an agent loop with the real `@google/genai` client. With GEMINI_API_KEY set
 * it talks to the Gemini API; without, to a scripted stand-in on 127.0.0.1 so it runs anywhere.
 * Run: `pnpm --filter @toolplane/plugin-gemini example`.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { GoogleGenAI } from "@google/genai"
import { approveAll, createRunner } from "@toolplane/exec"
import { defineBackend, defineTool, runDefinition, toolOf } from "@toolplane/foundation"
import { z } from "zod"
import { runAgentLoop, toGeminiTools } from "../src/index.js"

const weather = defineTool({
  id: "weather/current",
  description: "Current weather for a city",
  input: z.object({ city: z.string(), "unit-system": z.enum(["metric", "imperial"]).optional() }),
  handler: async ({ city }) => ({ city, tempC: city === "Oslo" ? 4 : 21 }),
})
const add = defineTool({
  id: "math/add",
  description: "Adds two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => String(a + b),
})

/** A stand-in for generateContent: first asks for both functions at once, then answers with what it got. */
const standIn = async () => {
  let turn = 0
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      const request = JSON.parse(body)
      const last = request.contents.at(-1).parts
      const parts =
        turn++ === 0
          ? [
              {
                functionCall: {
                  id: "f1",
                  name: "weather__current",
                  args: { city: "Oslo", unit_system: "metric" },
                },
              },
              { functionCall: { id: "f2", name: "math__add", args: { a: 2, b: 3 } } },
            ]
          : [
              {
                text: `Functions said: ${last.map((p: any) => JSON.stringify(p.functionResponse.response.output)).join(" and ")}`,
              },
            ]
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ candidates: [{ content: { role: "model", parts }, finishReason: "STOP" }] }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

export const main = async (log: (...values: unknown[]) => void = console.log): Promise<void> => {
  // any ToolService works; here the runner of @toolplane/exec over two in-process tools
  const definitions = new Map([weather, add].map((d) => [d.id, d]))
  const runner = createRunner({
    backends: [
      defineBackend({
        name: "demo",
        toolSchemas: () => [...definitions.values()].map(toolOf),
        execute: (call, ctx) => runDefinition(definitions.get(call.toolId)!, call, ctx),
      }),
    ],
    approver: approveAll(),
  })
  const apiKey = process.env.GEMINI_API_KEY
  const local = apiKey === undefined ? await standIn() : undefined
  const client = new GoogleGenAI(
    local ? { apiKey: "offline", httpOptions: { baseUrl: local.baseUrl } } : { apiKey },
  )
  try {
    const tools = toGeminiTools([weather, add])
    for (const w of tools.warnings) log(`warning ${w.toolId}${w.path}: ${w.message}`)
    const result = await runAgentLoop({
      client,
      service: runner,
      tools,
      model: "gemini-3.8-flash",
      contents: "What is the weather in Oslo, and what is 2 + 3?",
      onStep: (step) => {
        for (const o of step.outcomes)
          log(
            `${o.name}(${JSON.stringify(o.arguments)}) -> ${JSON.stringify(o.part.functionResponse.response)}`,
          )
      },
    })
    log(result.stopReason, result.text)
  } finally {
    local?.server.close()
    await runner.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
