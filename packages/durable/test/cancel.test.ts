/**
 * `RunStore.cancel` is final: a cancelled run (waiting for approval, or approved but not yet handed to a
 * runner) is never resumed by another runner on the same store, and its remaining steps never execute.
 */
import { describe, expect, it } from "vitest"
import {
  ApprovalNotPending,
  openDurableRunner,
  openRunStore,
  RunNotCancellable,
  RunNotFound,
} from "../src/index.js"
import { freshDatabase, pgSkip, usePostgres } from "./helpers/postgres.js"
import { toolplane } from "./helpers/scenario.js"
import { runFile, skill, world } from "./helpers/world.js"

usePostgres()

describe.each([
  { store: "SQLite", storage: runFile, skip: undefined },
  { store: "PostgreSQL", storage: freshDatabase, skip: pgSkip },
])("cancelling runs on $store", ({ store: kind, storage, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => {})
  const it_ = skip ? it.skip : it

  it_(
    "a cancelled run is never resumed and its remaining steps never run",
    async () => {
      const file = await storage()
      const first = world()
      const a = await openDurableRunner({ storage: file, service: first.runner })
      const waiting = await a.start(skill, { start: 1 })
      const approved = await a.start(skill, { start: 2 })
      const done = await a.start(skill, { start: 3 })
      await a.approve(done.runId, "b")
      await a.close()
      expect(waiting.status).toBe("suspended")
      expect(first.calls).toEqual(["t/read", "t/read", "t/read", "t/write", "t/read"])

      const store = await openRunStore(file)
      try {
        // Approved in the store but not handed to a runner yet: cancelling still wins.
        await store.approve(approved.runId, "b")
        const cancelled = await store.cancel(waiting.runId, { reason: "not needed", channel: "cli" })
        expect(cancelled.status).toBe("cancelled")
        expect((await store.cancel(approved.runId)).status).toBe("cancelled")
        await expect(store.cancel(waiting.runId)).rejects.toMatchObject({
          _tag: "RunNotCancellable",
          state: "cancelled",
        })
        await expect(store.cancel(done.runId)).rejects.toBeInstanceOf(RunNotCancellable)
        await expect(store.cancel(done.runId)).rejects.toMatchObject({ state: "completed" })
        await expect(store.cancel("no-such-run")).rejects.toBeInstanceOf(RunNotFound)
        await expect(store.approve(waiting.runId, "b")).rejects.toBeInstanceOf(ApprovalNotPending)

        const second = world()
        const b = await openDurableRunner({ storage: file, service: second.runner })
        try {
          await b.poll()
          expect((await b.resume(waiting.runId)).status).toBe("cancelled")
          expect((await b.resume(approved.runId)).status).toBe("cancelled")
          await b.poll()
          expect(second.calls).toEqual([])
          expect((await store.list({ status: "cancelled" })).map((r) => r.runId).sort()).toEqual(
            [waiting.runId, approved.runId].sort(),
          )
        } finally {
          await b.close()
        }
        expect(second.calls).toEqual([])
      } finally {
        await store.close()
      }
    },
    60_000,
  )

  // The command is the same on both stores (the store is tested above): one subprocess pair is enough.
  ;(kind === "SQLite" ? it_ : it.skip)(
    "`toolplane runs cancel` cancels a waiting run and names the state of a final one",
    async () => {
      const file = await storage()
      const { runner } = world()
      const a = await openDurableRunner({ storage: file, service: runner })
      const waiting = await a.start(skill, { start: 1 })
      await a.close()
      const cancelled = await toolplane([
        "runs",
        "cancel",
        waiting.runId,
        "--runs",
        file,
        "--reason",
        "superseded",
      ])
      expect(cancelled.stderr).toBe("")
      expect([cancelled.code, cancelled.stdout]).toEqual([0, `cancelled ${waiting.runId}\n`])
      const again = await toolplane(["runs", "cancel", waiting.runId, "--runs", file])
      expect(again.code).not.toBe(0)
      expect(again.stderr).toMatch(/RunNotCancellable.*already cancelled/)
      const store = await openRunStore(file)
      expect((await store.show(waiting.runId)).status).toBe("cancelled")
      await store.close()
    },
    60_000,
  )
})
