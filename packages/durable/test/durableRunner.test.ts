/**
 * The durable runner in one process against a real runner, on both stores (a SQLite file, and a
 * throwaway PostgreSQL server with a fresh database per test): approval decisions (approve, edit,
 * reject, expiry), typed errors, replay without re-execution, idempotent re-execution of an interrupted
 * step after its runner's lease expired, and a second store reading the same runs.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defineSkill } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { ApprovalDenied, defineTool, InvalidArguments, type ToolAnnotations } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { afterEach, describe, expect, it } from "vitest"
import {
  ApprovalNotPending,
  type DurableRunner,
  openDurableRunner,
  openRunStore,
  RunNotFound,
  StorageUnavailable,
} from "../src/index.js"
import { freshDatabase, pgSkip, usePostgres } from "./helpers/postgres.js"

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const runFile = async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolplane-durable-"))
  dirs.push(dir)
  return join(dir, "runs.db")
}

if (pgSkip) console.warn(`durable PostgreSQL tests skipped: ${pgSkip}`)
usePostgres()

/** Polls `recover()` until the runner took a run over (the engine hands it the dead runner's shards). */
const recoverOne = async (durable: DurableRunner) => {
  const deadline = Date.now() + 20_000
  let recovered = await durable.recover()
  while (recovered.length === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50))
    recovered = await durable.recover()
  }
  expect(recovered).toHaveLength(1)
  return recovered[0]!
}

const world = (options: { hang?: string; until?: Promise<void> } = {}) => {
  const calls: string[] = []
  const tool = (id: string, annotations: ToolAnnotations) =>
    defineTool({
      id,
      input: {
        type: "object",
        properties: { value: { type: "number", maximum: 100 } },
        required: ["value"],
        additionalProperties: false,
      },
      annotations,
      handler: async (args: Record<string, unknown>) => {
        calls.push(id)
        if (options.hang === id) await (options.until ?? new Promise(() => {}))
        return { value: (args.value as number) + 1 }
      },
    })
  const runner = createRunner({
    backends: [
      definitionBackend(
        [
          tool("t/read", { readOnlyHint: true }),
          tool("t/write", { destructiveHint: true }),
          tool("t/upsert", { idempotentHint: true }),
        ],
        { name: "t" },
      ),
    ],
  })
  return { calls, runner }
}

const skill = defineSkill({
  name: "chain",
  steps: [
    { id: "a", tool: "t/read", inputs: { value: { $ref: "$input#/start" } } },
    { id: "b", tool: "t/write", inputs: { value: { $ref: "a#/value" } } },
    { id: "c", tool: "t/read", inputs: { value: { $ref: "b#/value" } } },
  ],
})

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
    const first = await openDurableRunner({ storage: file, service: crashed.runner, approval: () => false })
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
    const first = await openDurableRunner({ storage: file, service: crashed.runner, approval: () => false })
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
    const file = join(tmpdir(), "toolplane-no-such-dir", "deeper", "runs.db")
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
