/**
 * The runnable example of the README: tools defined once, served by the runner, exported to Claude, and
 * an agent loop with the real `@anthropic-ai/sdk` client. With ANTHROPIC_API_KEY set it talks to the
 * Anthropic API; without, to a scripted stand-in on 127.0.0.1 so it runs anywhere.
 * Run: `pnpm --filter @toolplane/plugin-anthropic example`.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import Anthropic from "@anthropic-ai/sdk"
import { approveAll, createRunner } from "@toolplane/exec"
import { defineBackend, defineTool, runDefinition, toolOf } from "@toolplane/foundation"
import { z } from "zod"
import { runAgentLoop, toAnthropicTools } from "../src/index.js"

const weather = defineTool({
  id: "weather/current",
  description: "Current weather for a city",
  input: z.object({ city: z.string(), units: z.enum(["c", "f"]).optional() }),
  handler: async ({ city }) => ({ city, tempC: city === "Oslo" ? 4 : 21 }),
})
const add = defineTool({
  id: "math/add",
  description: "Adds two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => String(a + b),
})

/** A stand-in for the Messages API: first asks for both tools at once, then answers with what it got. */
const standIn = async () => {
  let turn = 0
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      const request = JSON.parse(body)
      const results = request.messages.at(-1).content
      const content =
        turn++ === 0
          ? [
              { type: "tool_use", id: "toolu_1", name: "weather__current", input: { city: "Oslo" } },
              { type: "tool_use", id: "toolu_2", name: "math__add", input: { a: 2, b: 3 } },
            ]
          : [
              {
                type: "text",
                text: `Tools said: ${results.map((r: any) => r.content[0].text).join(" and ")}`,
              },
            ]
      res.writeHead(200, { "content-type": "application/json" })
      res.end(
        JSON.stringify({
          id: `msg_${turn}`,
          type: "message",
          role: "assistant",
          model: request.model,
          content,
          stop_reason: turn === 1 ? "tool_use" : "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
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
  const live = process.env.ANTHROPIC_API_KEY !== undefined
  const local = live ? undefined : await standIn()
  const client = new Anthropic(local ? { apiKey: "offline", baseURL: local.baseURL } : {})
  try {
    const tools = toAnthropicTools([weather, add], { strict: true })
    for (const w of tools.warnings) log(`warning ${w.toolId}${w.path}: ${w.message}`)
    log(
      "tools:",
      tools.tools.map((t) => t.name),
    )
    const result = await runAgentLoop({
      client,
      service: runner,
      tools,
      model: "claude-sonnet-5-5",
      messages: [{ role: "user", content: "What is the weather in Oslo, and what is 2 + 3?" }],
      onStep: (step) => {
        for (const o of step.outcomes) log(`${o.name} -> ${JSON.stringify(o.block.content)}`)
      },
    })
    log(result.stopReason, result.text)
  } finally {
    local?.server.close()
    await runner.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
