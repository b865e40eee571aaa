/**
 * Runner call of an in-process tool through the whole pipeline versus (a) calling the handler directly
 * after the same schema validation and (b) the official MCP SDK client calling the same tool on an MCP SDK
 * server over its in-memory transport. All measured in one run, in interleaved rounds (@toolplane/bench-kit);
 * prints µs/call, calls/s and ratios (medians of rounds).
 *
 * Run: `pnpm --filter @toolplane/exec bench`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import {
  benchSettings,
  type CaseResult,
  compare,
  comparisonTable,
  heading,
  ratio,
  roundsLine,
  verdict,
} from "@toolplane/bench-kit"
import { defineTool, makeContext, textResult } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { z } from "zod"
import { createRunner } from "../src/index.js"

const settings = benchSettings({ rounds: 8, roundMs: 300 })

const weather = defineTool({
  id: "weather/current",
  description: "Current weather for a city",
  input: z.object({ city: z.string().min(2) }),
  annotations: { readOnlyHint: true },
  handler: async ({ city }) => `Sunny in ${city}, 21°C`,
})

/** The same in-process backend as @toolplane/plugin-local's localBackend (exec may not import plugins). */
const local = definitionBackend([weather], { name: "weather" })

const args = { city: "Oslo" }

// (a) validate + handler directly
const ctx = makeContext()
const direct = async () => {
  const checked = weather.inputValidator.validate(args)
  const value = checked instanceof Promise ? await checked : checked
  if (!value.ok) throw new Error("invalid")
  return weather.handler(value.value, ctx)
}

// the runner
const runner = createRunner({ backends: [local] })
await runner.ready()
const viaRunner = () => runner.callTool({ name: "weather/current", arguments: args })
const withDeadline = () =>
  runner.callTool({ name: "weather/current", arguments: args, context: { timeoutMs: 5000 } })

// (b) MCP SDK client -> server over InMemoryTransport
const server = new McpServer({ name: "bench", version: "1.0.0" })
server.registerTool(
  "weather_current",
  { description: "Current weather for a city", inputSchema: { city: z.string().min(2) } },
  async ({ city }) => textResult(`Sunny in ${city}, 21°C`) as { content: { type: "text"; text: string }[] },
)
const client = new Client({ name: "bench-client", version: "1.0.0" })
const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
await Promise.all([client.connect(clientTransport), server.connect(serverTransport)])
const viaMcp = () => client.callTool({ name: "weather_current", arguments: args })

// sanity: all three answer the same text
const texts = [
  await direct(),
  ((await viaRunner()).content[0] as { text: string }).text,
  ((await viaMcp()).content as { text: string }[])[0]!.text,
]
if (new Set(texts).size !== 1) throw new Error(`implementations disagree: ${JSON.stringify(texts)}`)

const results = await compare(
  [
    { name: "(a) validate + handler directly", fn: direct },
    { name: "runner.callTool (full pipeline)", fn: viaRunner },
    { name: "runner.callTool with a deadline (timer + AbortController)", fn: withDeadline },
    { name: "(b) MCP SDK client -> server, InMemoryTransport", fn: viaMcp },
  ],
  settings,
)
await client.close()

const [a, r, rd, b] = results as [CaseResult, CaseResult, CaseResult, CaseResult]
console.log(heading("Runner call versus the handler and the MCP SDK", roundsLine(settings)))
console.log(comparisonTable(results, { baseline: a.name, goals: { [r.name]: { max: 3 } } }))
const mcpRatio = ratio(b, r)
console.log("")
console.log(
  `runner ÷ direct (time per call): ${ratio(r, a).toFixed(2)}x (goal ${verdict(ratio(r, a), { max: 3 })})`,
)
console.log(`runner with deadline ÷ direct: ${ratio(rd, a).toFixed(2)}x`)
console.log(
  `MCP SDK ÷ runner (time per call): ${mcpRatio.toFixed(1)}x (goal ${verdict(mcpRatio, { min: 20 })})`,
)
