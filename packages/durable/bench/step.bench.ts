/**
 * Durable step overhead (`pnpm --filter @toolplane/durable bench`): a 10-step skill run through the same
 * real runner (exec `createRunner` over in-process tools), once with the in-memory executor
 * (`executePlan`) and once with the durable runner journaling into a SQLite file (WAL, synchronous =
 * NORMAL), interleaved rounds, medians, per step. Also a replay of the finished run (`resume`: no step
 * re-executed), which is the cost of recovering a run.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defineSkill, executePlan, makePlanner } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { openDurableRunner } from "../src/index.js"

const STEPS = 10
const ROUNDS = 30
const RUNS_PER_ROUND = 20

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const add = defineTool({
  id: "bench/add",
  input: { type: "object", properties: { value: { type: "number" } }, required: ["value"] },
  annotations: { readOnlyHint: true },
  handler: async (args: Record<string, unknown>) => ({ value: (args.value as number) + 1 }),
})
const runner = createRunner({ backends: [definitionBackend([add], { name: "bench" })] })
const skill = defineSkill({
  name: "chain",
  steps: Array.from({ length: STEPS }, (_, i) => ({
    id: `s${i}`,
    tool: "bench/add",
    inputs: { value: i === 0 ? { $ref: "$input#/start" } : { $ref: `s${i - 1}#/value` } },
  })),
})
const plan = makePlanner({ tools: ["bench/add"] }).plan(skill)

const dir = mkdtempSync(join(tmpdir(), "toolplane-durable-bench-"))
const durable = openDurableRunner({ file: join(dir, "runs.db"), service: runner, approval: () => false })

const memory = async () => {
  const run = await executePlan(plan, runner, { input: { start: 0 } })
  if (!run.ok) throw new Error("in-memory run failed")
}
let lastRun = ""
const journaled = async () => {
  const run = await durable.start(skill, { start: 0 })
  if (run.status !== "completed") throw new Error(`durable run ${run.status}`)
  lastRun = run.runId
}
const replay = async () => {
  const run = await durable.resume(lastRun)
  if (run.status !== "completed") throw new Error("replay failed")
}

const time = async (body: () => Promise<void>): Promise<number> => {
  const started = performance.now()
  for (let i = 0; i < RUNS_PER_ROUND; i++) await body()
  return ((performance.now() - started) * 1000) / (RUNS_PER_ROUND * STEPS)
}

for (let i = 0; i < 3; i++) {
  await memory()
  await journaled()
}
const mem: number[] = []
const dur: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  if (round % 2 === 0) {
    mem.push(await time(memory))
    dur.push(await time(journaled))
  } else {
    dur.push(await time(journaled))
    mem.push(await time(memory))
  }
}
const resumeDone = await time(replay)

const m = median(mem)
const d = median(dur)
console.log(
  `durable step overhead, ${STEPS}-step skill, ${ROUNDS} interleaved rounds x ${RUNS_PER_ROUND} runs`,
)
console.log(`  in-memory executePlan:      ${m.toFixed(1)} µs/step (median)`)
console.log(`  durable (SQLite journal):   ${d.toFixed(1)} µs/step (median)`)
console.log(`  overhead:                   ${(d - m).toFixed(1)} µs/step, ratio ${(d / m).toFixed(2)}x`)
console.log(`  resume of a completed run:  ${resumeDone.toFixed(1)} µs/step-equivalent`)
durable.close()
rmSync(dir, { recursive: true, force: true })
