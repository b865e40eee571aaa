/**
 * Overhead of speculative prefetch when it is configured but predicts nothing: the same in-process tool
 * called through a runner without a prefetcher and through one with `prefetch` (declared links and
 * learning on), by one caller, with arguments that never repeat (so nothing reaches the confidence
 * threshold). Adjacent batches in one run; the median of the per-pair ratios counts.
 *
 * Run: `pnpm --filter @toolplane/exec bench` (with the runner benchmark).
 */
import { type Backend, defineTool, runDefinition, ToolNotFound } from "@toolplane/foundation"
import { z } from "zod"
import { createRunner } from "../src/index.js"

const PAIRS = Number(process.env.BENCH_PAIRS ?? 201)
const BATCH = Number(process.env.BENCH_BATCH ?? 2000)

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
/** One batch of calls; returns µs per call. */
const batch = async (fn: () => Promise<unknown>): Promise<number> => {
  const start = performance.now()
  for (let i = 0; i < BATCH; i++) await fn()
  return ((performance.now() - start) * 1000) / BATCH
}
// Pairs of adjacent batches (order alternating) give one ratio each: load that drifts over seconds
// hits both halves of a pair alike. The median ratio counts.
const ratios: number[] = []
for (let r = 0; r < PAIRS; r++) {
  const order = r % 2 === 0 ? [0, 1] : [1, 0]
  const t: number[] = [0, 0]
  for (const i of order) t[i] = await batch(cases[i]!.fn)
  cases[0]!.rounds.push(t[0]!)
  cases[1]!.rounds.push(t[1]!)
  ratios.push(t[1]! / t[0]!)
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const stats = prefetching.prefetch!.stats()
if (stats.issued !== 0) throw new Error(`expected no prefetch to be issued, got ${stats.issued}`)
console.log(`Node ${process.version}, ${PAIRS} pairs of adjacent batches of ${BATCH} calls, medians\n`)
console.log("| case | µs/call |")
console.log("| --- | ---: |")
for (const c of cases) console.log(`| ${c.name} | ${median(c.rounds).toFixed(2)} |`)
const ratio = median(ratios)
console.log(
  `\nprefetch configured ÷ no prefetcher (time per call): ${ratio.toFixed(3)}x (goal ≤ 1.10x) ${ratio <= 1.1 ? "PASS" : "MISS"} (${stats.calls} calls seen, ${stats.issued} issued)`,
)
