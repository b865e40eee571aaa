/**
 * Runs taken over by another runner on the same store (a SQLite file, and a throwaway PostgreSQL server
 * with a fresh database per test): the first runner closes mid-step, releasing its shards, and the
 * engine re-runs the execution on the second. Completed steps are replayed, an interrupted idempotent
 * step is executed again, an interrupted non-idempotent one fails the run, and the first runner's late
 * result is fenced off.
 */
import { defineSkill } from "@toolplane/compose"
import { describe, expect, it } from "vitest"
import { openDurableRunner, openRunStore } from "../src/index.js"
import { freshDatabase, pgSkip, usePostgres } from "./helpers/postgres.js"
import { recoverOne, runFile, skill, world } from "./helpers/world.js"

usePostgres()

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
    const crashed = world({ hang: "t/upsert" })
    const first = await openDurableRunner({
      storage: file,
      service: crashed.runner,
      approval: () => false,
      // Its close lets the hanging step finish for up to half the lease: keep that short here.
      leaseMs: 3000,
    })
    void first.start(idempotent).catch(() => {})
    while (crashed.calls.length < 2) await new Promise((r) => setTimeout(r, 5))
    // The first runner goes away mid-step: closing it releases its shards (the engine's leases), so a
    // second runner on the same store takes the run over and the engine delivers the step again.
    await first.close()
    const { calls, runner } = world()
    const second = await openDurableRunner({ storage: file, service: runner, approval: () => false })
    const recovered = await recoverOne(second)
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
    const crashed = world({ hang: "t/upsert" })
    const first = await openDurableRunner({
      storage: file,
      service: crashed.runner,
      approval: () => false,
      // Its close lets the hanging step finish for up to half the lease: keep that short here.
      leaseMs: 3000,
    })
    void first.start(idempotent).catch(() => {})
    while (crashed.calls.length < 3) await new Promise((r) => setTimeout(r, 5))
    // Each step is an activity whose result the engine stored before the next one started.
    const store = await openRunStore(file)
    const [inStore] = await store.list()
    expect(inStore!.steps.map((s) => [s.stepId, s.status])).toEqual([
      ["a", "completed"],
      ["b", "completed"],
    ])
    await store.close()
    await first.close()
    const { calls, runner } = world()
    const second = await openDurableRunner({ storage: file, service: runner, approval: () => false })
    const recovered = await recoverOne(second)
    expect(recovered.status).toBe("completed")
    expect(calls).toEqual(["t/upsert"])
    expect(recovered.steps.map((s) => s.executions)).toEqual([1, 1, 1])
    expect(recovered.steps[2]!.result!.structuredContent).toEqual({ value: 4 })
    await second.close()
  })

  it_("fences a runner that lost its shard: its late result is not journaled", async () => {
    const file = await storage()
    let wake!: () => void
    const until = new Promise<void>((resolve) => {
      wake = resolve
    })
    const stalled = world({ hang: "t/write", until })
    const a = await openDurableRunner({
      storage: file,
      service: stalled.runner,
      approval: () => false,
      runnerId: "runner-a",
      leaseMs: 3000,
    })
    void a.start(skill, { start: 1 }).catch(() => {})
    while (stalled.calls.length < 2) await new Promise((r) => setTimeout(r, 5))
    // A gives its shards up while its call of t/write is still out; B takes the run over.
    await a.close()
    const { calls, runner } = world()
    const b = await openDurableRunner({
      storage: file,
      service: runner,
      approval: () => false,
      runnerId: "runner-b",
    })
    // Step b was started by A and is not idempotent, so B fails the run instead of calling it again.
    const taken = await recoverOne(b)
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
