/**
 * The QuickJS sandbox and the code executor against baselines measured in the same run (bench-kit:
 * interleaved rounds, each case once per round in rotated order; ratios are medians of per-round ratios):
 *
 *  1. Warm start: a `return 1` program on a started, idle sandbox (a prepared engine waiting) vs one
 *     message round trip to an idle bare worker; each sample after a short idle gap; p50/p99 over all
 *     samples. Also back to back (every run also pays for preparing the next engine).
 *  2. Bridge: a program making 100 calls of an async host function vs the same program making none, per
 *     call: this plugin (engine in a worker; the worker blocks in Atomics.wait for the answer), the
 *     engine in the host thread without a hard stop, and the engine in the host thread with `node:vm`'s
 *     timeout around each engine entry (the only hard stop there).
 *  3. Code mode: a tool call inside a program (executor + a real runner) vs the same runner call from the
 *     host; a 20-call program vs 20 sequential runner calls.
 *  4. Cold start: a new sandbox, its first program and close vs starting, messaging and terminating a bare
 *     worker.
 *
 * Settings: BENCH_ROUNDS (default 7), BENCH_ROUND_MS (default 300).
 */
import { Worker } from "node:worker_threads"
import {
  benchSettings,
  comparisonTable,
  compare,
  fmt,
  heading,
  interleaved,
  markdownTable,
  median,
  percentile,
  roundsLine,
} from "@toolplane/bench-kit"
import { codeExecutor, createRunner } from "@toolplane/exec"
import { defineBackend, defineTool, runDefinition, ToolNotFound } from "@toolplane/foundation"
import { z } from "zod"
import { quickJsSandbox } from "../src/index.js"
import { hostThreadEngine } from "./hostThread.js"

const settings = benchSettings({ rounds: 7, roundMs: 300 })
const CALLS = 100

const noop = defineTool({ id: "t/noop", input: z.object({ i: z.number() }), handler: ({ i }) => ({ i }) })
const backend = defineBackend({
  name: "bench",
  kind: "local",
  toolSchemas: () => [noop],
  execute: (call, ctx) => {
    if (call.toolId !== noop.id) throw new ToolNotFound({ toolId: call.toolId, suggestions: [] })
    return runDefinition(noop, call, ctx)
  },
  requiresApproval: () => false,
})
const runner = createRunner({ backends: [backend] })

const echoWorker = () =>
  new Worker(
    "const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => parentPort.postMessage(m))",
    { eval: true },
  )
const roundTrip = (w: Worker) =>
  new Promise<void>((resolve) => {
    w.once("message", () => resolve())
    w.postMessage(1)
  })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const spread = (xs: readonly number[], digits = 2) =>
  `${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}`
const expectEqual = (got: unknown, want: unknown, what: string) => {
  if (JSON.stringify(got) !== JSON.stringify(want))
    throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`)
}

const sandbox = quickJsSandbox({ maxWorkers: 1, warmWorkers: 1 })
const executor = codeExecutor({ sandbox, limits: { maxHostCalls: 10_000, wallTimeMs: 60_000 } })
const echo = echoWorker()
const hostThread = await hostThreadEngine()
const hostThreadWatchdog = await hostThreadEngine({ watchdogMs: 5000 })
const hostFn = async ([x]: readonly unknown[]) => x
const loopCode = (n: number) => `let s = 0; for (let i = 0; i < ${n}; i++) s += await call(i); return s`
const toolLoop = (n: number) =>
  `let s = 0; for (let i = 0; i < ${n}; i++) s += (await tools.t.noop({ i })).i; return s`
const limits = { maxHostCalls: 10_000, wallTimeMs: 60_000 }
const sum = (n: number) => (n * (n - 1)) / 2

// Correctness first: every case computes the same thing.
expectEqual(
  (await sandbox.run({ code: loopCode(CALLS), functions: { call: hostFn }, limits })).result,
  sum(CALLS),
  "worker bridge",
)
expectEqual(await hostThread.run(loopCode(CALLS), hostFn), sum(CALLS), "host-thread bridge")
expectEqual(
  await hostThreadWatchdog.run(loopCode(CALLS), hostFn),
  sum(CALLS),
  "host-thread + vm timeout bridge",
)
expectEqual((await executor.execute(toolLoop(CALLS), { tools: runner })).result, sum(CALLS), "executor")

// 1. Warm start after an idle gap, p50/p99 over samples.
const SAMPLES = 40
const warm: number[][] = []
const warmBase: number[][] = []
await interleaved(settings.rounds, ["sandbox", "worker"] as const, async (which, round) => {
  const out: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    await sleep(3)
    const t0 = performance.now()
    if (which === "sandbox") await sandbox.run({ code: "return 1" })
    else await roundTrip(echo)
    out.push((performance.now() - t0) * 1000)
  }
  ;(which === "sandbox" ? warm : warmBase)[round] = out
})
const warmP50 = warm.map((r) => percentile(r, 50))
const baseP50 = warmBase.map((r) => percentile(r, 50))
const warmRatios = warmP50.map((x, i) => x / baseP50[i]!)

// 2 + 3 + back-to-back warm starts: per-call comparison.
const results = await compare(
  [
    { name: "worker message round trip", fn: () => roundTrip(echo) },
    { name: "sandbox: return 1, back to back", fn: () => sandbox.run({ code: "return 1" }) },
    {
      name: `sandbox: ${CALLS} host calls`,
      fn: () => sandbox.run({ code: loopCode(CALLS), functions: { call: hostFn }, limits }),
    },
    {
      name: "sandbox: 0 host calls",
      fn: () => sandbox.run({ code: loopCode(0), functions: { call: hostFn }, limits }),
    },
    { name: `host thread: ${CALLS} host calls`, fn: () => hostThread.run(loopCode(CALLS), hostFn) },
    { name: "host thread: 0 host calls", fn: () => hostThread.run(loopCode(0), hostFn) },
    {
      name: `host thread + vm timeout: ${CALLS} host calls`,
      fn: () => hostThreadWatchdog.run(loopCode(CALLS), hostFn),
    },
    { name: "host thread + vm timeout: 0 host calls", fn: () => hostThreadWatchdog.run(loopCode(0), hostFn) },
    { name: `program: ${CALLS} tool calls`, fn: () => executor.execute(toolLoop(CALLS), { tools: runner }) },
    { name: "program: 0 tool calls", fn: () => executor.execute(toolLoop(0), { tools: runner }) },
    {
      name: `host: ${CALLS} runner calls`,
      fn: async () => {
        for (let i = 0; i < CALLS; i++) await runner.callTool({ name: "t/noop", arguments: { i } })
      },
    },
    { name: "program: 20 tool calls", fn: () => executor.execute(toolLoop(20), { tools: runner }) },
    {
      name: "host: 20 runner calls",
      fn: async () => {
        for (let i = 0; i < 20; i++) await runner.callTool({ name: "t/noop", arguments: { i } })
      },
    },
  ],
  settings,
)
const byName = (name: string) => {
  const r = results.find((x) => x.name === name)
  if (!r) throw new Error(`no case ${name}`)
  return r.rounds
}
/** Per round: (a - b) / n µs. */
const perCall = (a: string, b: string, n = CALLS) => byName(a).map((x, i) => (x - byName(b)[i]!) / n)
const bridgeWorker = perCall(`sandbox: ${CALLS} host calls`, "sandbox: 0 host calls")
const bridgeHost = perCall(`host thread: ${CALLS} host calls`, "host thread: 0 host calls")
const bridgeVm = perCall(
  `host thread + vm timeout: ${CALLS} host calls`,
  "host thread + vm timeout: 0 host calls",
)
const inProgram = perCall(`program: ${CALLS} tool calls`, "program: 0 tool calls")
const fromHost = byName(`host: ${CALLS} runner calls`).map((x) => x / CALLS)
const overhead = inProgram.map((x, i) => x - fromHost[i]!)
const roundTrips = byName("worker message round trip")

// 4. Cold start.
const COLD_ROUNDS = Math.max(3, Math.ceil(settings.rounds / 2))
const cold: number[] = []
const coldBase: number[] = []
await interleaved(COLD_ROUNDS, ["sandbox", "worker"] as const, async (which) => {
  const t0 = performance.now()
  if (which === "sandbox") {
    const fresh = quickJsSandbox({ maxWorkers: 1, warmWorkers: 0 })
    await fresh.run({ code: "return 1" })
    cold.push(performance.now() - t0)
    await fresh.close()
  } else {
    const w = echoWorker()
    await roundTrip(w)
    coldBase.push(performance.now() - t0)
    await w.terminate()
  }
})

await echo.terminate()
await sandbox.close()

console.log(heading("QuickJS sandbox and code mode", roundsLine(settings)))
console.log(comparisonTable(results, { baseline: "worker message round trip" }))
const row = (
  measure: string,
  value: readonly number[],
  base: readonly number[] | undefined,
  unit: string,
  digits = 1,
) => {
  const ratios = base ? value.map((x, i) => x / base[i]!) : undefined
  return [
    measure,
    `${fmt(median(value), digits)} ${unit}`,
    base ? `${fmt(median(base), digits)} ${unit}` : "",
    ratios ? `${fmt(median(ratios), 2)}x` : "",
    ratios ? `${spread(ratios)}x` : `${spread(value, digits)} ${unit}`,
  ]
}
console.log()
console.log(
  markdownTable(
    ["measure (median of rounds)", "value", "baseline", "÷ baseline", "spread over rounds"],
    [
      [
        "warm start p50, idle sandbox (vs worker round trip)",
        `${fmt(median(warmP50), 1)} µs`,
        `${fmt(median(baseP50), 1)} µs`,
        `${fmt(median(warmRatios), 2)}x`,
        `${spread(warmRatios)}x`,
      ],
      [
        "warm start p99, all samples",
        `${fmt(percentile(warm.flat(), 99), 1)} µs`,
        `${fmt(percentile(warmBase.flat(), 99), 1)} µs`,
        `${fmt(percentile(warm.flat(), 99) / percentile(warmBase.flat(), 99), 2)}x`,
        "",
      ],
      row(
        "warm start back to back (vs worker round trip)",
        byName("sandbox: return 1, back to back"),
        roundTrips,
        "µs",
      ),
      row("bridged call, this plugin (worker + Atomics), per call", bridgeWorker, undefined, "µs"),
      row(
        "bridged call, engine in the host thread, per call (vs this plugin)",
        bridgeHost,
        bridgeWorker,
        "µs",
      ),
      row("bridged call, host thread + vm timeout, per call (vs this plugin)", bridgeVm, bridgeWorker, "µs"),
      row(
        "tool call inside a program, per call (vs same runner call from the host)",
        inProgram,
        fromHost,
        "µs",
      ),
      row("code-mode overhead per tool call (program − host)", overhead, undefined, "µs"),
      row(
        "20-call program (vs 20 sequential runner calls from the host)",
        byName("program: 20 tool calls"),
        byName("host: 20 runner calls"),
        "µs",
        0,
      ),
      [
        "cold start p50: new sandbox + first program + close (vs bare worker)",
        `${fmt(median(cold), 1)} ms`,
        `${fmt(median(coldBase), 1)} ms`,
        `${fmt(median(cold.map((x, i) => x / coldBase[i]!)), 2)}x`,
        `${spread(cold.map((x, i) => x / coldBase[i]!))}x`,
      ],
      [
        "cold start p99",
        `${fmt(percentile(cold, 99), 1)} ms`,
        `${fmt(percentile(coldBase, 99), 1)} ms`,
        "",
        "",
      ],
    ],
  ),
)
console.log(
  `\nGoals (issue 17): warm start p50 ≤ 1000 µs: ${median(warmP50) <= 1000 ? "PASS" : "MISS"} (${fmt(median(warmP50), 1)} µs); ` +
    `bridged call overhead ≤ 50 µs: ${median(overhead) <= 50 ? "PASS" : "MISS"} (code mode ${fmt(median(overhead), 1)} µs, bare bridge ${fmt(median(bridgeWorker), 1)} µs)`,
)
