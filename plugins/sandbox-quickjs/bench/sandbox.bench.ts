/**
 * The QuickJS sandbox and the code executor against baselines measured in the same run (bench-kit's
 * interleaved rotation; ratios are medians of per-round ratios, never ratios of medians):
 *
 *  1. Warm start: a `return 1` program on a started, idle sandbox (a prepared engine waiting) vs one
 *     message round trip to an idle bare worker; each sample after a short idle gap; p50/p99 over all
 *     samples.
 *  2. Bridge. "Bridged call overhead" = the guest's `await call(i)` round trip minus the host function's
 *     own time: (a program making 100 calls − the same program making none) ÷ 100, minus the same host
 *     function awaited 100 times directly from the host ÷ 100. Measured for this plugin (engine in a
 *     worker, host calls and answers through shared rings), the same with `bridgeBytes: 0` (messages
 *     only: the previous transport), the engine in the host thread without a hard stop, and the engine
 *     in the host thread with `node:vm`'s timeout around each engine entry (the only hard stop there).
 *  3. Code mode: a tool call inside a program (executor + a real runner) vs the same runner call from the
 *     host; a 20-call program vs 20 sequential runner calls.
 *  4. Cold start: a new sandbox, its first program and close vs starting, messaging and terminating a bare
 *     worker.
 *
 * Settings: BENCH_ROUNDS (default 7). Each round of parts 2–3 is 8 passes over every case (rotated), and
 * derived measures are taken within a pass, so both sides of a difference or ratio saw the same load.
 */
import { Worker } from "node:worker_threads"
import {
  benchSettings,
  fmt,
  heading,
  interleaved,
  markdownTable,
  median,
  percentile,
} from "@toolplane/bench-kit"
import { codeExecutor, createRunner } from "@toolplane/exec"
import { defineBackend, defineTool, runDefinition, ToolNotFound } from "@toolplane/foundation"
import { z } from "zod"
import { quickJsSandbox } from "../src/index.js"
import { hostThreadEngine } from "./hostThread.js"

const settings = benchSettings({ rounds: 7, roundMs: 300 }) // roundMs is not used here
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
const messagesOnly = quickJsSandbox({ maxWorkers: 1, warmWorkers: 1, bridgeBytes: 0 })
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
expectEqual(
  (await messagesOnly.run({ code: loopCode(CALLS), functions: { call: hostFn }, limits })).result,
  sum(CALLS),
  "messages-only bridge",
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

// 2 + 3: paired samples. Each round is PASSES passes; a pass runs every case once (order rotated per
// pass), and a derived measure (e.g. the 100-call program minus the 0-call program, per call) is taken
// within one pass, so both sides saw the same moment's load; per round, the median over its passes.
const PASSES = 8
const cases: readonly { readonly name: string; readonly fn: () => Promise<unknown> }[] = [
  { name: "worker message round trip", fn: () => roundTrip(echo) },
  {
    name: `host: ${CALLS} direct calls of the host function`,
    fn: async () => {
      let s = 0
      for (let i = 0; i < CALLS; i++) s += (await hostFn([i])) as number
      return s
    },
  },
  {
    name: `sandbox: ${CALLS} host calls`,
    fn: () => sandbox.run({ code: loopCode(CALLS), functions: { call: hostFn }, limits }),
  },
  {
    name: "sandbox: 0 host calls",
    fn: () => sandbox.run({ code: loopCode(0), functions: { call: hostFn }, limits }),
  },
  {
    name: `messages only: ${CALLS} host calls`,
    fn: () => messagesOnly.run({ code: loopCode(CALLS), functions: { call: hostFn }, limits }),
  },
  {
    name: "messages only: 0 host calls",
    fn: () => messagesOnly.run({ code: loopCode(0), functions: { call: hostFn }, limits }),
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
]
for (const c of cases) await c.fn() // warm up
/** rounds[round][pass][case name] = µs of that one execution. */
const rounds: Record<string, number>[][] = []
for (let round = 0; round < settings.rounds; round++) {
  const passes: Record<string, number>[] = []
  await interleaved(PASSES, cases, async (c, pass) => {
    const t0 = performance.now()
    await c.fn()
    ;(passes[pass] ??= {})[c.name] = (performance.now() - t0) * 1000
  })
  rounds.push(passes)
}
/** A measure taken within each pass; per round, the median over its passes. */
const perRound = (f: (pass: Readonly<Record<string, number>>) => number): number[] =>
  rounds.map((passes) => median(passes.map(f)))
const at = (name: string) => (pass: Readonly<Record<string, number>>) => pass[name]!
const perCall = (a: string, b: string, n = CALLS) => perRound((p) => (p[a]! - p[b]!) / n)
const direct = perRound((p) => p[`host: ${CALLS} direct calls of the host function`]! / CALLS)
const bridgeWorker = perCall(`sandbox: ${CALLS} host calls`, "sandbox: 0 host calls")
/** Bridged call overhead of a variant in one pass, per call: its per-call time minus the direct call's. */
const overheadIn = (x: string) => (p: Readonly<Record<string, number>>) =>
  (p[`${x}: ${CALLS} host calls`]! -
    p[`${x}: 0 host calls`]! -
    p[`host: ${CALLS} direct calls of the host function`]!) /
  CALLS
const bridgeOverhead = perRound(overheadIn("sandbox"))
const messagesOverhead = perRound(overheadIn("messages only"))
const bridgeHost = perCall(`host thread: ${CALLS} host calls`, "host thread: 0 host calls")
const bridgeVm = perCall(
  `host thread + vm timeout: ${CALLS} host calls`,
  "host thread + vm timeout: 0 host calls",
)
const inProgram = perCall(`program: ${CALLS} tool calls`, "program: 0 tool calls")
const fromHost = perRound((p) => p[`host: ${CALLS} runner calls`]! / CALLS)
const overhead = perRound(
  (p) =>
    (p[`program: ${CALLS} tool calls`]! - p["program: 0 tool calls"]! - p[`host: ${CALLS} runner calls`]!) /
    CALLS,
)
/** Within-pass ratio a ÷ b, per round the median over passes. */
const ratioOf = (
  a: (p: Readonly<Record<string, number>>) => number,
  b: (p: Readonly<Record<string, number>>) => number,
) => perRound((p) => a(p) / b(p))
const bridgeRatio = (x: string) =>
  ratioOf(
    (p) => p[`${x}: ${CALLS} host calls`]! - p[`${x}: 0 host calls`]!,
    (p) => p[`sandbox: ${CALLS} host calls`]! - p["sandbox: 0 host calls"]!,
  )

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
await messagesOnly.close()

console.log(
  heading(
    "QuickJS sandbox and code mode",
    `${settings.rounds} rounds × ${PASSES} passes (each case once per pass, rotated); per round the median over passes; value = median of rounds`,
  ),
)
console.log(
  markdownTable(
    ["case", "µs per execution (median of all passes)"],
    cases.map((c) => [c.name, fmt(median(rounds.flatMap((passes) => passes.map(at(c.name)))), 1)]),
  ),
)
const row = (
  measure: string,
  value: readonly number[],
  unit: string,
  ratios?: readonly number[],
  base?: readonly number[],
  digits = 1,
) => [
  measure,
  `${fmt(median(value), digits)} ${unit}`,
  base ? `${fmt(median(base), digits)} ${unit}` : "",
  ratios ? `${fmt(median(ratios), 2)}x` : "",
  ratios ? `${spread(ratios)}x` : `${spread(value, digits)} ${unit}`,
]
const coldRatios = cold.map((x, i) => x / coldBase[i]!)
console.log()
console.log(
  markdownTable(
    ["measure", "value", "baseline", "÷ baseline", "spread over rounds"],
    [
      row(
        "warm start p50, idle sandbox (baseline: worker message round trip)",
        warmP50,
        "µs",
        warmRatios,
        baseP50,
      ),
      [
        "warm start p99, all samples",
        `${fmt(percentile(warm.flat(), 99), 1)} µs`,
        `${fmt(percentile(warmBase.flat(), 99), 1)} µs`,
        `${fmt(percentile(warm.flat(), 99) / percentile(warmBase.flat(), 99), 2)}x`,
        "",
      ],
      row(
        "bridged call overhead, this plugin (shared rings): guest round trip − host function's own time",
        bridgeOverhead,
        "µs",
      ),
      row(
        "bridged host call, this plugin, per call (baseline: the host function awaited directly)",
        bridgeWorker,
        "µs",
        ratioOf(
          (p) => p[`sandbox: ${CALLS} host calls`]! - p["sandbox: 0 host calls"]!,
          at(`host: ${CALLS} direct calls of the host function`),
        ),
        direct,
        2,
      ),
      row(
        "bridged call overhead, messages only (`bridgeBytes: 0`, the previous transport) (÷ shared rings)",
        messagesOverhead,
        "µs",
        ratioOf(overheadIn("messages only"), overheadIn("sandbox")),
        bridgeOverhead,
      ),
      row(
        "bridged host call, engine in the host thread (÷ this plugin)",
        bridgeHost,
        "µs",
        bridgeRatio("host thread"),
        bridgeWorker,
      ),
      row(
        "bridged host call, host thread + vm timeout per entry (÷ this plugin)",
        bridgeVm,
        "µs",
        bridgeRatio("host thread + vm timeout"),
        bridgeWorker,
      ),
      row(
        "tool call inside a program, per call (baseline: same runner call from the host)",
        inProgram,
        "µs",
        ratioOf(
          (p) => p[`program: ${CALLS} tool calls`]! - p["program: 0 tool calls"]!,
          at(`host: ${CALLS} runner calls`),
        ),
        fromHost,
      ),
      row("code-mode overhead per tool call (program − host)", overhead, "µs"),
      row(
        "20-call program (baseline: 20 sequential runner calls from the host)",
        perRound(at("program: 20 tool calls")),
        "µs",
        ratioOf(at("program: 20 tool calls"), at("host: 20 runner calls")),
        perRound(at("host: 20 runner calls")),
        0,
      ),
      row(
        "cold start p50: new sandbox + first program + close (baseline: bare worker)",
        cold,
        "ms",
        coldRatios,
        coldBase,
      ),
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
  `\nGoals: warm start p50 ≤ 1000 µs: ${median(warmP50) <= 1000 ? "PASS" : "MISS"} (${fmt(median(warmP50), 1)} µs); ` +
    `bridged call overhead ≤ 50 µs: ${median(bridgeOverhead) <= 50 ? "PASS" : "MISS"} (bare bridge ${fmt(median(bridgeOverhead), 1)} µs; code mode ${fmt(median(overhead), 1)} µs per tool call)`,
)
