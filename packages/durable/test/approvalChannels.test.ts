/**
 * Approval decisions record their channel and request time, on both stores: a store made by 0.1.0 (the
 * steps table without those columns) gains them on open and keeps its rows; a decision taken before the
 * upgrade reports channel "unknown" and no wait.
 */
import pg from "pg"
import { describe, expect, it } from "vitest"
import { type ApprovalDecision, openDurableRunner, openRunStore } from "../src/index.js"
import { freshDatabase, pgSkip, usePostgres } from "./helpers/postgres.js"
import { runFile, skill, world } from "./helpers/world.js"

if (pgSkip) console.warn(`durable PostgreSQL tests skipped: ${pgSkip}`)
usePostgres()

/** Drops the columns 0.2.0 added, as in a store made by 0.1.0. */
const downgrade = async (storage: string) => {
  const drop = ["requested_at", "decided_by"].map((c) => `ALTER TABLE toolplane_wf_steps DROP COLUMN ${c}`)
  if (storage.startsWith("postgres")) {
    const client = new pg.Client({ connectionString: storage })
    await client.connect()
    for (const statement of drop) await client.query(statement)
    await client.end()
  } else {
    const { DatabaseSync } = await import("node:sqlite")
    const db = new DatabaseSync(storage)
    for (const statement of drop) db.exec(statement)
    db.close()
  }
}

describe.each([
  { store: "SQLite", storage: runFile, skip: undefined },
  { store: "PostgreSQL", storage: freshDatabase, skip: pgSkip },
])("approval channels on $store", ({ storage, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => {})
  const it_ = skip ? it.skip : it

  it_(
    "upgrades a 0.1.0 store and reports each decision with its channel and wait",
    async () => {
      const file = await storage()
      const { runner } = world()
      const first = await openDurableRunner({ storage: file, service: runner })
      const old = await first.start(skill, { start: 1 })
      await first.close()
      await downgrade(file)
      // A decision taken by 0.1.0: no channel, no request time.
      const oldStore = await openRunStore(file)
      await oldStore.approve(old.runId, "b")
      await oldStore.close()
      await downgrade(file)

      const decisions: ApprovalDecision[] = []
      const durable = await openDurableRunner({
        storage: file,
        service: runner,
        onApprovalDecided: (d) => decisions.push(d),
      })
      try {
        expect((await durable.poll()).map((r) => r.status)).toEqual(["completed"])
        const fresh = await durable.start(skill, { start: 5 })
        const waiting = fresh.steps[1]!
        expect(waiting.status).toBe("awaiting_approval")
        expect(Date.parse(waiting.requestedAt!)).toBeLessThanOrEqual(Date.now())
        expect((await durable.approve(fresh.runId, "b", { channel: "console" })).status).toBe("completed")
        expect(decisions.map((d) => [d.runId, d.decision, d.channel, d.waitedMs === undefined])).toEqual([
          [old.runId, "approved", "unknown", true],
          [fresh.runId, "approved", "console", false],
        ])
        expect((await durable.show(fresh.runId)).steps[1]).toMatchObject({ decidedBy: "console" })
        expect((await durable.show(old.runId)).steps[1]!.decidedBy).toBeUndefined()
      } finally {
        await durable.close()
      }
    },
    30_000,
  )
})
