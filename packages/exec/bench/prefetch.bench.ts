/**
 * Overhead of speculative prefetch when it is configured but predicts nothing: the same in-process tool
 * called through a runner without a prefetcher and through runners with `prefetch` (declared links and
 * learning on; learning off), by one caller, with arguments that never repeat (so nothing reaches the
 * confidence threshold). Interleaved rounds in one run (@toolplane/bench-kit); each ratio is the median of
 * the per-round ratios, in wall-clock and in CPU time.
 *
 * Run: `pnpm --filter @toolplane/exec bench` (with the runner benchmark).
 */
import {
  benchSettings,
  fmt,
  heading,
  interleaved,
  markdownTable,
  median,
  verdict,
} from "@toolplane/bench-kit"
import { type Backend, defineTool, runDefinition, ToolNotFound } from "@toolplane/foundation"
import { z } from "zod"
import { createRunner } from "../src/index.js"

// BENCH_ROUND_MS sizes each case's batch per round (200 calls per ms: 200,000 calls by default, so the CPU
// clock, which may tick in milliseconds, is read rarely against the time it measures).
const settings = benchSettings({ rounds: 21, roundMs: 1000 })

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
const learning = createRunner({ backends: [backend], prefetch: true })
const declaredOnly = createRunner({ backends: [backend], prefetch: { learning: false } })
// Its own runner, so the learner's work is measured apart from the bursts of the cases that never yield.
const learningYielding = createRunner({ backends: [backend], prefetch: true })
await Promise.all([plain.ready(), learning.ready(), declaredOnly.ready(), learningYielding.ready()])

let n = 0
const context = { callerId: "agent-1" }
const call = (runner: typeof plain) => () =>
  runner.callTool({ name: "geo/lookup", arguments: { place: `p${n++}` }, context })

// Each round runs every case once (bench-kit's `interleaved` rotates the order) for a fixed number of
// calls, timing wall clock and this process's CPU time. Under other processes' load the CPU time is the
// steadier figure: it counts the work done, not the time the process waited for a core.
const cases = [
  { name: "runner without prefetcher", fn: call(plain), yieldEvery: 0 },
  { name: "prefetch configured (declared + learning), nothing predicted", fn: call(learning), yieldEvery: 0 },
  { name: "prefetch configured (declared only), nothing predicted", fn: call(declaredOnly), yieldEvery: 0 },
  // The learner's bookkeeping runs after the calls returned; yielding to the event loop every 64 calls
  // lets it run inside the measured time (against a baseline that yields alike).
  { name: "runner without prefetcher, yielding every 64 calls", fn: call(plain), yieldEvery: 64 },
  {
    name: "learning on, yielding every 64 calls (learner work included)",
    fn: call(learningYielding),
    yieldEvery: 64,
  },
]
type Case = (typeof cases)[number]
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve))
const CALLS = Math.max(64, Math.round(settings.roundMs * 200))
const wall = new Map<Case, number[]>(cases.map((c) => [c, []]))
const cpu = new Map<Case, number[]>(cases.map((c) => [c, []]))
const runBatch = async (c: Case): Promise<void> => {
  const t0 = performance.now()
  const u0 = process.cpuUsage()
  for (let i = 0; i < CALLS; i++) {
    await c.fn()
    if (c.yieldEvery > 0 && i % c.yieldEvery === c.yieldEvery - 1) await yieldNow()
  }
  const u = process.cpuUsage(u0)
  wall.get(c)!.push(((performance.now() - t0) * 1000) / CALLS)
  cpu.get(c)!.push((u.user + u.system) / CALLS)
}
for (const c of cases) await runBatch(c) // warm-up
for (const c of cases) {
  wall.get(c)!.length = 0
  cpu.get(c)!.length = 0
}
await interleaved(settings.rounds, cases, runBatch)
await yieldNow()
for (const r of [learning, declaredOnly, learningYielding]) {
  const stats = r.prefetch!.stats()
  if (stats.issued !== 0) throw new Error(`expected no prefetch to be issued, got ${stats.issued}`)
}
const perRound = (m: Map<Case, number[]>, a: Case, b: Case) => m.get(a)!.map((x, i) => x / m.get(b)![i]!)
const goal = { max: 1.1 }
const [base, on, off, baseYield, onYield] = cases as [Case, Case, Case, Case, Case]
const pairs: [Case, Case][] = [
  [on, base],
  [off, base],
  [onYield, baseYield],
]
console.log(
  heading(
    "Prefetch configured, nothing predicted",
    `${settings.rounds} interleaved rounds × ${CALLS} calls per case, median of per-round ratios`,
  ),
)
console.log(
  markdownTable(
    ["case", "µs/call (wall)", "µs/call (CPU)", "÷ baseline (wall)", "÷ baseline (CPU)", "goal (CPU)"],
    cases.map((c) => {
      const pair = pairs.find(([a]) => a === c)
      const w = pair === undefined ? undefined : median(perRound(wall, c, pair[1]))
      const u = pair === undefined ? undefined : median(perRound(cpu, c, pair[1]))
      return [
        c.name,
        fmt(median(wall.get(c)!), 3),
        fmt(median(cpu.get(c)!), 3),
        w === undefined ? "baseline" : `${w.toFixed(3)}x`,
        u === undefined ? "baseline" : `${u.toFixed(3)}x`,
        u === undefined ? "" : verdict(u, goal),
      ]
    }),
  ),
)
console.log("")
const spread = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return `p25 ${s[Math.floor(s.length / 4)]!.toFixed(2)}, p75 ${s[Math.floor((3 * s.length) / 4)]!.toFixed(2)}`
}
for (const [a, b] of pairs)
  console.log(
    `${a.name} ÷ ${b.name}: CPU ${median(perRound(cpu, a, b)).toFixed(3)}x (${spread(perRound(cpu, a, b))}), wall ${median(perRound(wall, a, b)).toFixed(3)}x (${spread(perRound(wall, a, b))})`,
  )
console.log(`(${learning.prefetch!.stats().calls} calls seen by the learning prefetcher, none issued)`)
