/**
 * The durable runner in one process against a real runner, on both stores (a SQLite file, and a
 * throwaway PostgreSQL server with a fresh database per test): approval decisions (approve, edit,
 * reject, expiry by the runner's clock and by the engine's durable clock), typed errors, replay without
 * re-execution, and a second store reading the same runs (takeovers: takeover.test.ts).
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ApprovalDenied, InvalidArguments } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import {
  ApprovalNotPending,
  openDurableRunner,
  openRunStore,
  RunNotFound,
  StorageUnavailable,
} from "../src/index.js"
import { freshDatabase, pgSkip, usePostgres } from "./helpers/postgres.js"
import { runFile, skill, world } from "./helpers/world.js"

if (pgSkip) console.warn(`durable PostgreSQL tests skipped: ${pgSkip}`)
usePostgres()

describe.each([
  { store: "SQLite", storage: runFile, skip: undefined },
  { store: "PostgreSQL", storage: freshDatabase, skip: pgSkip },
])("openDurableRunner on $store", ({ storage, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => {})
  const it_ = skip ? it.skip : it

  it_("suspends before a non-read-only step by default and continues once approved", async () => {
    const { calls, runner } = world()
    const durable = await openDurableRunner({ storage: await storage(), service: runner })
    const run = await durable.start(skill, { start: 1 })
    expect(run.status).toBe("suspended")
    expect(run.steps.map((s) => s.status)).toEqual(["completed", "awaiting_approval"])
    expect(run.steps[1]!.arguments).toEqual({ value: 2 })
    expect((await durable.list({ status: "suspended" })).map((r) => r.runId)).toEqual([run.runId])
    // Resuming without a decision changes nothing and executes nothing again.
    expect((await durable.resume(run.runId)).status).toBe("suspended")
    expect(calls).toEqual(["t/read"])
    const done = await durable.approve(run.runId, "b")
    expect(done.status).toBe("completed")
    expect(calls).toEqual(["t/read", "t/write", "t/read"])
    expect(done.steps.at(-1)!.result!.structuredContent).toEqual({ value: 4 })
    await durable.close()
  })

  it_("applies edited arguments, re-validated against the tool's schema", async () => {
    const { runner } = world()
    const durable = await openDurableRunner({ storage: await storage(), service: runner })
    const run = await durable.start(skill, { start: 1 })
    const invalid = await durable.approve(run.runId, "b", { arguments: { value: 1000 } }).catch((e) => e)
    expect(invalid).toBeInstanceOf(InvalidArguments)
    expect(invalid.issues[0].path).toBe("/value")
    expect((await durable.show(run.runId)).steps[1]!.status).toBe("awaiting_approval")
    const done = await durable.approve(run.runId, "b", { arguments: { value: 50 } })
    expect(done.status).toBe("completed")
    expect(done.steps[1]!.approvedArguments).toEqual({ value: 50 })
    expect(done.steps[2]!.result!.structuredContent).toEqual({ value: 52 })
    await durable.close()
  })

  it_("fails the run with ApprovalDenied when rejected, without calling the tool", async () => {
    const { calls, runner } = world()
    const durable = await openDurableRunner({ storage: await storage(), service: runner })
    const run = await durable.start(skill, { start: 1 })
    const done = await durable.reject(run.runId, "b", { reason: "not today" })
    expect(done.status).toBe("failed")
    expect(done.error).toMatchObject({ stepId: "b", error: { _tag: "ApprovalDenied" } })
    expect(done.steps[1]).toMatchObject({ status: "rejected", reason: "not today", executions: 0 })
    expect(calls).toEqual(["t/read"])
    await expect(durable.approve(run.runId, "b")).rejects.toBeInstanceOf(ApprovalNotPending)
    await durable.close()
  })

  it_("expires approvals: a late approval is refused and the resumed run fails", async () => {
    const { calls, runner } = world()
    let clock = 1_000_000
    const durable = await openDurableRunner({
      storage: await storage(),
      service: runner,
      approvalTtlMs: 60_000,
      now: () => clock,
    })
    const run = await durable.start(skill, { start: 1 })
    expect(run.steps[1]!.expiresAt).toBe(new Date(1_060_000).toISOString())
    clock += 60_001
    const late = await durable.approve(run.runId, "b").catch((e) => e)
    expect(late).toBeInstanceOf(ApprovalNotPending)
    expect(late.state).toBe("expired")
    const done = await durable.resume(run.runId)
    expect(done.status).toBe("failed")
    expect(done.steps[1]!.status).toBe("expired")
    expect(calls).toEqual(["t/read"])
    await durable.close()
  })

  it_("expires a suspended run on recovery when nobody decided in time", async () => {
    const { runner } = world()
    let clock = 0
    const file = await storage()
    const durable = await openDurableRunner({
      storage: file,
      service: runner,
      approvalTtlMs: 10,
      now: () => clock,
    })
    const run = await durable.start(skill, { start: 1 })
    clock = 11
    const [recovered] = await durable.recover()
    expect(recovered!.status).toBe("failed")
    expect(recovered!.error).toMatchObject({ error: { _tag: "ApprovalDenied" } })
    expect(new ApprovalDenied({ toolId: "t/write" }).code).toBe("APPROVAL_DENIED")
    expect(recovered!.runId).toBe(run.runId)
    await durable.close()
  })

  it_("fails a run on time through the engine's durable clock, with nobody polling", async () => {
    const { calls, runner } = world()
    const durable = await openDurableRunner({
      storage: await storage(),
      service: runner,
      approvalTtlMs: 1500,
    })
    const run = await durable.start(skill, { start: 1 })
    expect(run.status).toBe("suspended")
    // No poll, resume or watch: the expiry clock the engine scheduled wakes the run.
    const deadline = Date.now() + 20_000
    let current = await durable.show(run.runId)
    while (current.status !== "failed" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100))
      current = await durable.show(run.runId)
    }
    expect(current.status).toBe("failed")
    expect(current.steps[1]).toMatchObject({ status: "expired", executions: 0 })
    expect(current.error).toMatchObject({ stepId: "b", error: { _tag: "ApprovalDenied" } })
    expect(Date.parse(current.updatedAt)).toBeGreaterThanOrEqual(Date.parse(current.steps[1]!.expiresAt!))
    expect(calls).toEqual(["t/read"])
    await durable.close()
  })

  it_("names unknown runs and steps with typed errors", async () => {
    const { runner } = world()
    const durable = await openDurableRunner({ storage: await storage(), service: runner })
    await expect(durable.resume("nope")).rejects.toBeInstanceOf(RunNotFound)
    await expect(durable.show("nope")).rejects.toThrow(/No run "nope"/)
    const run = await durable.start(skill, { start: 1 })
    const error = await durable.approve(run.runId, "a").catch((e) => e)
    expect(error).toBeInstanceOf(ApprovalNotPending)
    expect(error.state).toBe("completed")
    await expect(durable.approve(run.runId, "zzz")).rejects.toMatchObject({ state: "unknown" })
    await durable.close()
  })

  it_("lets a separate store list runs and decide approvals in the same file", async () => {
    const file = await storage()
    const { runner } = world()
    const durable = await openDurableRunner({ storage: file, service: runner })
    const run = await durable.start(skill, { start: 1 })
    const store = await openRunStore(file)
    expect((await store.list()).map((r) => [r.runId, r.status])).toEqual([[run.runId, "suspended"]])
    const step = await store.approve(run.runId, "b", { arguments: { value: 7 } })
    expect(step.status).toBe("approved")
    await store.close()
    const done = await durable.resume(run.runId)
    expect(done.status).toBe("completed")
    expect(done.steps[2]!.result!.structuredContent).toEqual({ value: 9 })
    await durable.close()
  })

  it_("picks up decisions taken in another process with poll() and watch()", async () => {
    const file = await storage()
    const { calls, runner } = world()
    // The runner's clock runs ahead of the store's (real) one when the test moves it forward.
    let ahead = 0
    const durable = await openDurableRunner({
      storage: file,
      service: runner,
      approvalTtlMs: 60_000,
      now: () => Date.now() + ahead,
    })
    const approved = await durable.start(skill, { start: 1 })
    const untouched = await durable.start(skill, { start: 1 })
    const overdue = await durable.start(skill, { start: 1 })
    const store = await openRunStore(file)
    await store.approve(approved.runId, "b")
    expect((await durable.poll()).map((r) => [r.runId, r.status])).toEqual([[approved.runId, "completed"]])
    expect((await durable.show(untouched.runId)).status).toBe("suspended")
    await store.reject(untouched.runId, "b", { reason: "no" })
    ahead = 60_001
    const watcher = durable.watch({ intervalMs: 10 })
    const deadline = Date.now() + 10_000
    // Wait for both to fail (a run being resumed shows as running, not suspended).
    while ((await durable.list({ status: "failed" })).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10))
    watcher.stop()
    await store.close()
    expect((await durable.show(untouched.runId)).steps[1]!.status).toBe("rejected")
    expect((await durable.show(overdue.runId)).steps[1]!.status).toBe("expired")
    expect((await durable.list({ status: "failed" })).map((r) => r.runId).sort()).toEqual(
      [untouched.runId, overdue.runId].sort(),
    )
    expect(calls.filter((c) => c === "t/write")).toHaveLength(1)
    await durable.close()
  })
})

describe("storage that cannot be opened", () => {
  it("fails with StorageUnavailable naming the file or the URL (password hidden)", async () => {
    const { runner } = world()
    // A missing folder is created; one under a regular file cannot be.
    const blocker = join(mkdtempSync(join(tmpdir(), "toolplane-blocked-")), "not-a-folder")
    writeFileSync(blocker, "")
    const file = join(blocker, "deeper", "runs.db")
    const missing = await openDurableRunner({ storage: file, service: runner }).catch((e) => e)
    expect(missing).toBeInstanceOf(StorageUnavailable)
    expect(missing.storage).toBe(file)
    expect(missing.message).toMatch(/^Cannot open the run storage .*runs\.db: /)
    // A loopback port nobody listens on (the server of this file would be elsewhere).
    const refused = await openRunStore("postgres://toolplane:s3cret@127.0.0.1:9/runs").catch((e) => e)
    expect(refused).toBeInstanceOf(StorageUnavailable)
    expect(refused.storage).toBe("postgres://toolplane:***@127.0.0.1:9/runs")
    expect(refused.message).not.toContain("s3cret")
    expect(refused.reason).toMatch(/ECONNREFUSED/)
  })
})
