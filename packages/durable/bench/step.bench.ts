/**
 * Durable step overhead (`pnpm --filter @toolplane/durable bench`): a 10-step skill run through the same
 * real runner (exec `createRunner` over in-process tools), with the in-memory executor (`executePlan`,
 * the baseline) and with the durable runner journaling every step in a SQLite file (WAL,
 * `synchronous = NORMAL`); plus `resume` of a completed run (a journal read, nothing re-executed).
 * Interleaved rounds, medians, ratios within each round (bench-kit). Times are per step (per run / 10).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  benchSettings,
  type CaseResult,
  compare,
  comparisonTable,
  heading,
  roundsLine,
} from "@toolplane/bench-kit"
import { defineSkill, executePlan, makePlanner } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { openDurableRunner } from "../src/index.js"

const STEPS = 10
const settings = benchSettings({ rounds: 15, roundMs: 300 })

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
const completed = await durable.start(skill, { start: 0 })
if (completed.status !== "completed") throw new Error(`durable run ${completed.status}`)

const results = await compare(
  [
    {
      name: "in-memory executePlan",
      fn: async () => {
        if (!(await executePlan(plan, runner, { input: { start: 0 } })).ok) throw new Error("run failed")
      },
    },
    {
      name: "durable start (SQLite journal)",
      fn: async () => {
        if ((await durable.start(skill, { start: 0 })).status !== "completed") throw new Error("run failed")
      },
    },
    {
      name: "durable resume of a completed run",
      fn: async () => {
        if ((await durable.resume(completed.runId)).status !== "completed") throw new Error("resume failed")
      },
    },
  ],
  settings,
)
const perStep = (r: CaseResult): CaseResult => ({
  ...r,
  rounds: r.rounds.map((us) => us / STEPS),
  usPerCall: r.usPerCall / STEPS,
  opsPerSec: r.opsPerSec * STEPS,
})
console.log(heading(`Durable step overhead (${STEPS}-step skill, µs per step)`, roundsLine(settings)))
console.log(comparisonTable(results.map(perStep), { baseline: "in-memory executePlan" }))
durable.close()
rmSync(dir, { recursive: true, force: true })
