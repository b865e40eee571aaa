/**
 * Durable step overhead (`pnpm --filter @toolplane/durable bench`): a 10-step skill run through the same
 * real runner (exec `createRunner` over in-process tools), with the in-memory executor (`executePlan`,
 * the baseline) and with the durable runner, a workflow execution on Effect's `ClusterWorkflowEngine`
 * whose every step is an activity (the engine persists its request and its result), on a SQLite file
 * (our node:sqlite driver, WAL, `synchronous = NORMAL`) and on PostgreSQL (@effect/sql-pg, a throwaway
 * server on loopback, `synchronous_commit = off`, skipped when the binaries are missing). Two kinds of
 * steps: read-only tools (the outcome is recorded in the runs table after the call) and non-idempotent
 * ones (also a `started` mark before the call). Plus `resume` of a completed run (reads only, nothing
 * re-executed). Interleaved rounds, medians, ratios within each round (bench-kit). Times are per step
 * (per run / 10).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  type BenchCase,
  benchSettings,
  type CaseResult,
  compare,
  comparisonTable,
  heading,
  roundsLine,
} from "@toolplane/bench-kit"
import { defineSkill, executePlan, makePlanner, type Skill } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { defineTool, type ToolAnnotations } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { type PostgresServer, postgresUnavailable, startPostgres } from "@toolplane/testkit"
import { type DurableRunner, openDurableRunner } from "../src/index.js"

const STEPS = 10
const settings = benchSettings({ rounds: 15, roundMs: 1000 })

const add = (id: string, annotations: ToolAnnotations) =>
  defineTool({
    id,
    input: { type: "object", properties: { value: { type: "number" } }, required: ["value"] },
    annotations,
    handler: async (args: Record<string, unknown>) => ({ value: (args.value as number) + 1 }),
  })
const runner = createRunner({
  backends: [
    definitionBackend(
      [add("bench/read", { readOnlyHint: true }), add("bench/write", { destructiveHint: true })],
      {
        name: "bench",
      },
    ),
  ],
})
const chain = (tool: string): Skill =>
  defineSkill({
    name: `chain-${tool}`,
    steps: Array.from({ length: STEPS }, (_, i) => ({
      id: `s${i}`,
      tool,
      inputs: { value: i === 0 ? { $ref: "$input#/start" } : { $ref: `s${i - 1}#/value` } },
    })),
  })
const idempotent = chain("bench/read")
const plain = chain("bench/write")
const plan = makePlanner({ tools: ["bench/read", "bench/write"] }).plan(idempotent)

const dir = mkdtempSync(join(tmpdir(), "toolplane-durable-bench-"))
const open = (storage: string) => openDurableRunner({ storage, service: runner, approval: () => false })
const sqlite = await open(join(dir, "runs.db"))
const skip = postgresUnavailable()
let server: PostgresServer | undefined
let postgres: DurableRunner | undefined
if (skip === undefined) {
  server = await startPostgres({
    settings: { fsync: "on", full_page_writes: "on", synchronous_commit: "off" },
  })
  postgres = await open(server.url)
} else console.log(`PostgreSQL cases skipped: ${skip}`)

const completed = await sqlite.start(idempotent, { start: 0 })
if (completed.status !== "completed") throw new Error(`durable run ${completed.status}`)

const durableCase = (name: string, durable: DurableRunner, skill: Skill): BenchCase => ({
  name,
  fn: async () => {
    if ((await durable.start(skill, { start: 0 })).status !== "completed") throw new Error("run failed")
  },
})
const cases: BenchCase[] = [
  {
    name: "in-memory executePlan",
    fn: async () => {
      if (!(await executePlan(plan, runner, { input: { start: 0 } })).ok) throw new Error("run failed")
    },
  },
  durableCase("durable SQLite, read-only steps", sqlite, idempotent),
  durableCase("durable SQLite, non-idempotent steps (started mark)", sqlite, plain),
  ...(postgres
    ? [
        durableCase("durable PostgreSQL, read-only steps", postgres, idempotent),
        durableCase("durable PostgreSQL, non-idempotent steps (started mark)", postgres, plain),
      ]
    : []),
  {
    name: "durable SQLite resume of a completed run",
    fn: async () => {
      if ((await sqlite.resume(completed.runId)).status !== "completed") throw new Error("resume failed")
    },
  },
]
const results = await compare(cases, settings)
const perStep = (r: CaseResult): CaseResult => ({
  ...r,
  rounds: r.rounds.map((us) => us / STEPS),
  usPerCall: r.usPerCall / STEPS,
  opsPerSec: r.opsPerSec * STEPS,
})
console.log(heading(`Durable step overhead (${STEPS}-step skill, µs per step)`, roundsLine(settings)))
console.log(comparisonTable(results.map(perStep), { baseline: "in-memory executePlan" }))
await sqlite.close()
await postgres?.close()
await server?.stop()
rmSync(dir, { recursive: true, force: true })
