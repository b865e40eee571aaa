/**
 * Overhead of speculative prefetch when it is configured but predicts nothing: the same in-process tool
 * called through a runner without a prefetcher and through one with `prefetch` (declared links and
 * learning on), by one caller, with arguments that never repeat (so nothing reaches the confidence
 * threshold). Interleaved rounds in one run; the median round per case counts.
 *
 * Run: `pnpm --filter @toolplane/exec bench` (with the runner benchmark).
 */
import { type Backend, defineTool, runDefinition, ToolNotFound } from "@toolplane/foundation"
import { z } from "zod"
import { createRunner } from "../src/index.js"

const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 300)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9)

const lookup = defineTool({
  id: "geo/lookup",
  description: "Coordinates of a place",
  input: z.object({ place: z.string().min(1) }),
  annotations: { readOnlyHint: true },
  handler: async ({ place }) => ({ place, lat: place.length, lon: -place.length }),
})

const backend: Backend = {
  name: "geo",
  execute: (call, ctx) =>
    call.toolId === lookup.id
      ? runDefinition(lookup, call, ctx)
      : Promise.reject(new ToolNotFound({ toolId: call.toolId, suggestions: [] })),
  supportedTools: async () => [lookup.id],
  toolSchemas: async () => [lookup],
  metadata: () => ({ name: "geo", kind: "local" }),
  healthCheck: async () => true,
  requiresApproval: async () => false,
  onToolsChanged: () => () => {},
  close: async () => {},
}

const plain = createRunner({ backends: [backend] })
const prefetching = createRunner({
  backends: [backend],
  prefetch: process.env.PF_LEARN === "0" ? { learning: false } : true,
})
await Promise.all([plain.ready(), prefetching.ready()])

let n = 0
const context = { callerId: "agent-1" }
const cases = [
  {
    name: "runner without prefetcher",
    fn: () => plain.callTool({ name: "geo/lookup", arguments: { place: `p${n++}` }, context }),
    rounds: [] as number[],
  },
  {
    name: "runner with prefetch configured, nothing predicted",
    fn: () => prefetching.callTool({ name: "geo/lookup", arguments: { place: `p${n++}` }, context }),
    rounds: [] as number[],
  },
]

for (const c of cases) for (let i = 0; i < 5000; i++) await c.fn()
for (let r = 0; r < ROUNDS; r++) {
  for (const c of r % 2 === 0 ? cases : [...cases].reverse()) {
    let calls = 0
    const start = performance.now()
    let elapsed = 0
    while (elapsed < ROUND_MS) {
      for (let i = 0; i < 200; i++) await c.fn()
      calls += 200
      elapsed = performance.now() - start
    }
    c.rounds.push((elapsed * 1000) / calls)
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const [base, pf] = cases.map((c) => median(c.rounds)) as [number, number]
const stats = prefetching.prefetch!.stats()
if (stats.issued !== 0) throw new Error(`expected no prefetch to be issued, got ${stats.issued}`)
console.log(`Node ${process.version}, ${ROUNDS} interleaved rounds of ${ROUND_MS} ms, median round\n`)
console.log("| case | µs/call |")
console.log("| --- | ---: |")
for (const c of cases) console.log(`| ${c.name} | ${median(c.rounds).toFixed(2)} |`)
const ratio = pf / base
console.log(
  `\nprefetch configured ÷ no prefetcher (time per call): ${ratio.toFixed(3)}x (goal ≤ 1.10x) ${ratio <= 1.1 ? "PASS" : "MISS"} (${stats.calls} calls seen, ${stats.issued} issued)`,
)
