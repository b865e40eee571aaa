/**
 * The QuickJS sandbox and the code executor, against baselines measured in the same run (interleaved
 * rounds, medians of rounds):
 *  - cold start (new sandbox, first program, close) vs starting and stopping a bare worker thread;
 *  - warm start (a `return 1` program on a started worker) vs one message round trip to a bare worker;
 *  - a tool call from inside a program (through the executor and a real runner) vs the same runner call
 *    from the host: overhead per call;
 *  - a 20-call program vs 20 sequential runner calls from the host.
 */
import { Worker } from "node:worker_threads"
import { codeExecutor, createRunner } from "@toolplane/exec"
import { defineBackend, defineTool, runDefinition, ToolNotFound } from "@toolplane/foundation"
import { z } from "zod"
import { quickJsSandbox } from "../src/index.js"

const ROUNDS = 5
const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)
const pct = (xs: readonly number[], p: number) => {
  const s = sorted(xs)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!
}
const median = (xs: readonly number[]) => pct(xs, 0.5)
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`

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

const bareWorkerStart = async (): Promise<number> => {
  const t0 = performance.now()
  const w = echoWorker()
  await new Promise<void>((resolve) => {
    w.once("message", () => resolve())
    w.postMessage(1)
  })
  const dt = performance.now() - t0
  await w.terminate()
  return dt
}

const main = async () => {
  const cold: number[] = []
  const coldBase: number[] = []
  const warm: number[] = []
  const warmBase: number[] = []
  const inProgram: number[] = []
  const fromHost: number[] = []
  const program20: number[] = []
  const host20: number[] = []

  const sandbox = quickJsSandbox({ maxWorkers: 1, warmWorkers: 1 })
  const executor = codeExecutor({ sandbox, limits: { maxHostCalls: 10_000, wallTimeMs: 60_000 } })
  const echo = echoWorker()
  const roundTrip = () =>
    new Promise<void>((resolve) => {
      echo.once("message", () => resolve())
      echo.postMessage(1)
    })
  // warm up
  for (let i = 0; i < 50; i++) await sandbox.run({ code: "return 1" })
  for (let i = 0; i < 200; i++) await runner.callTool({ name: "t/noop", arguments: { i } })
  const CALLS = 200
  const loop = (n: number) =>
    `let s = 0; for (let i = 0; i < ${n}; i++) s += (await tools.t.noop({ i })).i; return s`
  const check = await executor.execute(loop(CALLS), { tools: runner })
  if (check.result !== (CALLS * (CALLS - 1)) / 2) throw new Error(`wrong result ${String(check.result)}`)

  for (let r = 0; r < ROUNDS; r++) {
    // cold start: a new sandbox (new worker, engine instantiated from the process-wide compiled module)
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now()
      const fresh = quickJsSandbox({ maxWorkers: 1, warmWorkers: 0 })
      await fresh.run({ code: "return 1" })
      cold.push(performance.now() - t0)
      await fresh.close()
      coldBase.push(await bareWorkerStart())
    }
    for (let i = 0; i < 100; i++) {
      const t0 = performance.now()
      await sandbox.run({ code: "return 1" })
      warm.push(performance.now() - t0)
      const t1 = performance.now()
      await roundTrip()
      warmBase.push(performance.now() - t1)
    }
    {
      const t0 = performance.now()
      await executor.execute(loop(0), { tools: runner })
      const empty = performance.now() - t0
      const t1 = performance.now()
      await executor.execute(loop(CALLS), { tools: runner })
      inProgram.push((performance.now() - t1 - empty) / CALLS)
      const t2 = performance.now()
      for (let i = 0; i < CALLS; i++) await runner.callTool({ name: "t/noop", arguments: { i } })
      fromHost.push((performance.now() - t2) / CALLS)
    }
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now()
      await executor.execute(loop(20), { tools: runner })
      program20.push(performance.now() - t0)
      const t1 = performance.now()
      for (let k = 0; k < 20; k++) await runner.callTool({ name: "t/noop", arguments: { i: k } })
      host20.push(performance.now() - t1)
    }
  }
  await echo.terminate()
  await sandbox.close()

  const row = (name: string, value: string, base: string, ratio: number) =>
    console.log(`${name.padEnd(46)}${value.padStart(22)}${base.padStart(26)}${ratio.toFixed(2).padStart(9)}x`)
  console.log(
    `${"measure".padEnd(46)}${"sandbox".padStart(22)}${"baseline".padStart(26)}${"ratio".padStart(10)}`,
  )
  row(
    "cold start p50 (vs bare worker start)",
    `${median(cold).toFixed(1)} ms`,
    `${median(coldBase).toFixed(1)} ms`,
    median(cold) / median(coldBase),
  )
  row(
    "cold start p99",
    `${pct(cold, 0.99).toFixed(1)} ms`,
    `${pct(coldBase, 0.99).toFixed(1)} ms`,
    pct(cold, 0.99) / pct(coldBase, 0.99),
  )
  row(
    "warm start p50 (vs worker message round trip)",
    us(median(warm)),
    us(median(warmBase)),
    median(warm) / median(warmBase),
  )
  row("warm start p99", us(pct(warm, 0.99)), us(pct(warmBase, 0.99)), pct(warm, 0.99) / pct(warmBase, 0.99))
  const overhead = median(inProgram) - median(fromHost)
  row(
    "tool call in a program (vs same call from host)",
    us(median(inProgram)),
    us(median(fromHost)),
    median(inProgram) / median(fromHost),
  )
  console.log(`  bridge overhead per call: ${us(overhead)} (goal <= 50 µs)`)
  row(
    "20-call program (vs 20 host calls)",
    us(median(program20)),
    us(median(host20)),
    median(program20) / median(host20),
  )
}

await main()
