/**
 * Runs taken over by another runner on the same store (a SQLite file, and a throwaway PostgreSQL server
 * with a fresh database per test): the first runner closes mid-step, releasing its shards, and the
 * engine re-runs the execution on the second. Completed steps are replayed, an interrupted idempotent
 * step is executed again, an interrupted non-idempotent one fails the run, and the first runner's late
 * result is fenced off.
 */
import { defineSkill, type Skill } from "@toolplane/compose"
import { describe, expect, it } from "vitest"
import { openDurableRunner, openRunStore, RunnerClosed } from "../src/index.js"
import { freshDatabase, pgSkip, usePostgres } from "./helpers/postgres.js"
import { recoverOne, runFile, skill, world } from "./helpers/world.js"

usePostgres()

/**
 * Starts `skill` on a first runner whose tool `hang` does not answer (until `until`, if given), waits for
 * `callsBefore` calls, lets `whileStalled` look, and closes it mid-step (releasing its shards); a second
 * runner on the same store, with a fresh world, then takes the run over.
 */
const takeOver = async (
  storage: string,
  skillToRun: Skill,
  options: {
    readonly hang: string
    readonly callsBefore: number
    readonly input?: Record<string, unknown>
    readonly until?: Promise<void>
    readonly runnerIds?: readonly [string, string]
    readonly whileStalled?: () => Promise<void>
  },
) => {
  const stalled = world(options.until ? { hang: options.hang, until: options.until } : { hang: options.hang })
  const first = await openDurableRunner({
    storage,
    service: stalled.runner,
    approval: () => false,
    // Its close lets the hanging step finish for up to half the lease: keep that short here.
    leaseMs: 3000,
    ...(options.runnerIds ? { runnerId: options.runnerIds[0] } : {}),
  })
  // What the caller of start gets when its runner closes under it.
  const started = first.start(skillToRun, options.input).then(
    (info) => ({ info }),
    (error: unknown) => ({ error }),
  )
  while (stalled.calls.length < options.callsBefore) await new Promise((r) => setTimeout(r, 5))
  await options.whileStalled?.()
  await first.close()
  const { calls, runner } = world()
  const second = await openDurableRunner({
    storage,
    service: runner,
    approval: () => false,
    ...(options.runnerIds ? { runnerId: options.runnerIds[1] } : {}),
  })
  return { calls, second, recovered: await recoverOne(second), started: await started }
}

describe.each([
  { store: "SQLite", storage: runFile, skip: undefined },
  { store: "PostgreSQL", storage: freshDatabase, skip: pgSkip },
])("a run taken over on $store", ({ storage, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => {})
  const it_ = skip ? it.skip : it

  it_("re-executes a step interrupted mid-call only when its tool is idempotent", async () => {
    const file = await storage()
    const idempotent = defineSkill({
      name: "upsert",
      steps: [
        { id: "a", tool: "t/read", inputs: { value: 1 } },
        { id: "u", tool: "t/upsert", inputs: { value: { $ref: "a#/value" } } },
      ],
    })
    // The first runner goes away mid-step: closing it releases its shards (the engine's leases), so a
    // second runner on the same store takes the run over and the engine delivers the step again.
    const { calls, second, recovered } = await takeOver(file, idempotent, {
      hang: "t/upsert",
      callsBefore: 2,
    })
    expect(recovered.status).toBe("completed")
    expect(recovered.owner).toBeUndefined()
    // Step a completed (the engine replays its result); the idempotent step u is journaled after its
    // call, so the interrupted first call left no count and the second runner ran it again.
    expect(calls).toEqual(["t/upsert"])
    expect(recovered.steps.map((s) => s.executions)).toEqual([1, 1])
    await second.close()
  })

  it_("commits every completed step: a successor runs only the interrupted one", async () => {
    const file = await storage()
    const idempotent = defineSkill({
      name: "reads",
      steps: [
        { id: "a", tool: "t/read", inputs: { value: 1 } },
        { id: "b", tool: "t/read", inputs: { value: { $ref: "a#/value" } } },
        { id: "u", tool: "t/upsert", inputs: { value: { $ref: "b#/value" } } },
      ],
    })
    const { calls, second, recovered } = await takeOver(file, idempotent, {
      hang: "t/upsert",
      callsBefore: 3,
      // Each step is an activity whose result the engine stored before the next one started.
      whileStalled: async () => {
        const store = await openRunStore(file)
        const [inStore] = await store.list()
        expect(inStore!.steps.map((s) => [s.stepId, s.status])).toEqual([
          ["a", "completed"],
          ["b", "completed"],
        ])
        await store.close()
      },
    })
    expect(recovered.status).toBe("completed")
    expect(calls).toEqual(["t/upsert"])
    expect(recovered.steps.map((s) => s.executions)).toEqual([1, 1, 1])
    expect(recovered.steps[2]!.result!.structuredContent).toEqual({ value: 4 })
    await second.close()
  })

  it_(
    "lets a step in progress finish while its runner closes: the successor runs only the rest",
    async () => {
      const file = await storage()
      let wake!: () => void
      const until = new Promise<void>((resolve) => {
        wake = resolve
      })
      // t/write answers 2.5 s after close begins: after the two seconds close waits for whole runs, within
      // the half lease (1.5 s) it then gives a step in progress.
      const { calls, second, recovered, started } = await takeOver(file, skill, {
        hang: "t/write",
        callsBefore: 2,
        input: { start: 1 },
        until,
        whileStalled: async () => {
          setTimeout(wake, 2500)
        },
      })
      // The first runner's caller is told the run went on elsewhere, with a typed error naming it.
      expect((started as { error: unknown }).error).toBeInstanceOf(RunnerClosed)
      expect((started as { error: RunnerClosed }).error).toMatchObject({ runId: recovered.runId })
      expect(recovered.status).toBe("completed")
      expect(recovered.steps.map((s) => s.executions)).toEqual([1, 1, 1])
      expect(calls).toEqual(["t/read"])
      await second.close()
    },
    60_000,
  )

  it_("fences a runner that lost its shard: its late result is not journaled", async () => {
    const file = await storage()
    let wake!: () => void
    const until = new Promise<void>((resolve) => {
      wake = resolve
    })
    // A gives its shards up while its call of t/write is still out; B takes the run over.
    const {
      calls,
      second: b,
      recovered: taken,
    } = await takeOver(file, skill, {
      hang: "t/write",
      callsBefore: 2,
      input: { start: 1 },
      until,
      runnerIds: ["runner-a", "runner-b"],
    })
    // Step b was started by A and is not idempotent, so B fails the run instead of calling it again.
    expect(taken.status).toBe("failed")
    expect(taken.error).toMatchObject({ stepId: "b", error: { cause: { name: "Interrupted" } } })
    expect(calls).toEqual([])
    // A's call returns now: its result is refused (fenced), the run stays as B left it.
    wake()
    await new Promise((r) => setTimeout(r, 200))
    const late = await b.show(taken.runId)
    expect(late.status).toBe("failed")
    expect(late.steps.map((s) => s.status)).toEqual(["completed", "failed"])
    expect(late.steps[1]!.result).toMatchObject({ cause: { name: "Interrupted" } })
    expect(late.steps[1]!.executions).toBe(1)
    await b.close()
  })
})
