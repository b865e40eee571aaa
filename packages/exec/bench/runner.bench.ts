/**
 * Runner call of an in-process tool through the whole pipeline versus (a) calling the handler directly
 * after the same schema validation and (b) the official MCP SDK client calling the same tool on an MCP SDK
 * server over its in-memory transport. All measured in one run; prints ops/s, µs/call and ratios.
 *
 * Run: `pnpm --filter @toolplane/exec bench`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { defineTool, makeContext, textResult } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { z } from "zod"
import { createRunner } from "../src/index.js"

const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 300)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8)

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

interface Case {
  readonly name: string
  readonly fn: () => Promise<unknown>
  opsPerSec: number
}

/** Rounds interleave the cases (so load on a shared machine hits all alike); the best round counts. */
const measureAll = async (cases: Case[]): Promise<void> => {
  for (const c of cases) for (let i = 0; i < 5000; i++) await c.fn()
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of cases) {
      let n = 0
      const start = performance.now()
      let elapsed = 0
      while (elapsed < ROUND_MS) {
        for (let i = 0; i < 200; i++) await c.fn()
        n += 200
        elapsed = performance.now() - start
      }
      c.opsPerSec = Math.max(c.opsPerSec, (n / elapsed) * 1000)
    }
  }
}

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

const results: Case[] = [
  { name: "(a) validate + handler directly", fn: direct, opsPerSec: 0 },
  { name: "runner.callTool (full pipeline)", fn: viaRunner, opsPerSec: 0 },
  { name: "runner.callTool with a deadline (timer + AbortController)", fn: withDeadline, opsPerSec: 0 },
  { name: "(b) MCP SDK client -> server, InMemoryTransport", fn: viaMcp, opsPerSec: 0 },
]
await measureAll(results)
await client.close()

const [a, r, rd, b] = results as [Case, Case, Case, Case]
const fmt = (n: number) => Math.round(n).toLocaleString("en-US")
const us = (ops: number) => (1e6 / ops).toFixed(2)
console.log(`Node ${process.version}, ${ROUNDS} rounds of ${ROUND_MS} ms, best round\n`)
console.log("| case | ops/s | µs/call |")
console.log("| --- | ---: | ---: |")
for (const x of results) console.log(`| ${x.name} | ${fmt(x.opsPerSec)} | ${us(x.opsPerSec)} |`)
const pipelineRatio = a.opsPerSec / r.opsPerSec
const deadlineRatio = a.opsPerSec / rd.opsPerSec
const mcpRatio = r.opsPerSec / b.opsPerSec
console.log("")
console.log(
  `runner ÷ direct (time per call): ${pipelineRatio.toFixed(2)}x (goal ≤ 3x) ${pipelineRatio <= 3 ? "PASS" : "MISS"}`,
)
console.log(`runner with deadline ÷ direct: ${deadlineRatio.toFixed(2)}x`)
console.log(
  `MCP SDK ÷ runner (time per call): ${mcpRatio.toFixed(1)}x (goal ≥ 20x) ${mcpRatio >= 20 ? "PASS" : "MISS"}`,
)
