/**
 * Approval metrics of durable runs on a real SQLite run store, read through the Prometheus text-format
 * parser: what waits (count, oldest age) is read from the store at scrape time; each decision (approved
 * from the CLI, rejected from the console, expired) is counted once by channel even with two runners
 * polling the store, with its wait in the histogram; and the same through `toolplane serve` (a
 * subprocess with `[[skills]]` and `[metrics]`) when `toolplane runs approve` decides.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { defineSkill } from "@toolplane/compose"
import { type ApprovalDecision, openDurableRunner, openRunStore } from "@toolplane/durable"
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import parsePrometheusTextFormat, { type MetricFamily } from "parse-prometheus-text-format"
import { afterAll, describe, expect, it } from "vitest"
import { run as cli } from "../src/cli.js"
import { createGatewayMetrics } from "../src/ops/metrics.js"
import { opsGatewaySuite } from "./helpers/opsGateway.js"
import { FIXTURES } from "./helpers/processes.js"

/** Histograms read as their untyped series (the parser folds labelled histogram samples). */
const parse = (text: string): MetricFamily[] => [
  ...parsePrometheusTextFormat(text).filter((f) => f.type !== "HISTOGRAM"),
  ...parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped")).filter((f) =>
    /_(bucket|sum|count)$/.test(f.name),
  ),
]
const value = (families: MetricFamily[], name: string, labels: Record<string, string> = {}) => {
  const found = families
    .filter((f) => f.name === name)
    .flatMap((f) => f.metrics)
    .find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  return found?.value === undefined ? undefined : Number(found.value)
}

const dir = mkdtempSync(join(tmpdir(), "toolplane-durable-metrics-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const service = createRunner({
  backends: [
    definitionBackend(
      [
        defineTool({
          id: "t/write",
          input: { type: "object", properties: { value: { type: "number" } }, required: ["value"] },
          annotations: { destructiveHint: true },
          handler: async (args: Record<string, unknown>) => ({ value: (args.value as number) + 1 }),
        }),
      ],
      { name: "t" },
    ),
  ],
})
const skill = defineSkill({
  name: "deploy",
  steps: [{ id: "go", tool: "t/write", inputs: { value: { $ref: "$input#/start" } } }],
})

describe("approval metrics of durable runs", () => {
  it("reads what waits from the store and counts each decision once by channel", async () => {
    const storage = join(dir, "runs.db")
    const metrics = createGatewayMetrics({ otel: false })
    const decisions: { runner: string; decision: ApprovalDecision }[] = []
    const listen = (runner: string) => (decision: ApprovalDecision) => {
      decisions.push({ runner, decision })
      metrics.durableApprovalDecided(
        decision.decision,
        decision.channel,
        decision.waitedMs === undefined ? undefined : decision.waitedMs / 1000,
      )
    }
    const ttl = 1500
    const one = await openDurableRunner({
      storage,
      service,
      approvalTtlMs: ttl,
      onApprovalDecided: listen("one"),
    })
    const two = await openDurableRunner({
      storage,
      service,
      approvalTtlMs: ttl,
      onApprovalDecided: listen("two"),
    })
    const store = await openRunStore(storage)
    metrics.durableApprovalsSource(() => store.pendingApprovals())
    const scrape = async () => parse(await metrics.registry.metrics())
    try {
      const a = await one.start(skill, { start: 1 })
      const b = await one.start(skill, { start: 2 })
      expect([a.status, b.status]).toEqual(["suspended", "suspended"])
      await new Promise((r) => setTimeout(r, 250))
      let m = await scrape()
      expect(value(m, "toolplane_durable_approvals_pending")).toBe(2)
      const oldest = value(m, "toolplane_durable_approval_oldest_pending_seconds")!
      expect(oldest).toBeGreaterThanOrEqual(0.2)
      expect(oldest).toBeLessThan(30)
      expect(value(m, "toolplane_durable_approval_decisions_total")).toBeUndefined()

      await new Promise((r) => setTimeout(r, 100))
      await store.approve(a.runId, "go", { channel: "cli" })
      await store.reject(b.runId, "go", { reason: "not today", channel: "console" })
      // Both runners poll the store at once: each decision is handed over (and reported) by one of them.
      await Promise.all([one.poll(), two.poll()])
      const c = await one.start(skill, { start: 3 })
      expect(c.status).toBe("suspended")
      m = await scrape()
      expect(value(m, "toolplane_durable_approvals_pending")).toBe(1)
      await new Promise((r) => setTimeout(r, ttl + 100))
      await Promise.all([two.poll(), one.poll()])

      expect(decisions.map((d) => [d.decision.decision, d.decision.channel]).sort()).toEqual([
        ["approved", "cli"],
        ["expired", "expiry"],
        ["rejected", "console"],
      ])
      m = await scrape()
      expect(value(m, "toolplane_durable_approvals_pending")).toBe(0)
      expect(value(m, "toolplane_durable_approval_oldest_pending_seconds")).toBe(0)
      expect(
        value(m, "toolplane_durable_approval_decisions_total", { decision: "approved", channel: "cli" }),
      ).toBe(1)
      expect(
        value(m, "toolplane_durable_approval_decisions_total", { decision: "rejected", channel: "console" }),
      ).toBe(1)
      expect(
        value(m, "toolplane_durable_approval_decisions_total", { decision: "expired", channel: "expiry" }),
      ).toBe(1)
      // Waits: about 350 ms for the two decided ones, about the TTL for the expired one.
      expect(value(m, "toolplane_durable_approval_wait_seconds_count", { decision: "approved" })).toBe(1)
      const approvedWait = value(m, "toolplane_durable_approval_wait_seconds_sum", { decision: "approved" })!
      expect(approvedWait).toBeGreaterThanOrEqual(0.3)
      expect(approvedWait).toBeLessThan(ttl / 1000)
      const expiredWait = value(m, "toolplane_durable_approval_wait_seconds_sum", { decision: "expired" })!
      expect(expiredWait).toBeGreaterThanOrEqual(ttl / 1000)
      expect(
        value(m, "toolplane_durable_approval_wait_seconds_bucket", { decision: "expired", le: "1" }),
      ).toBe(0)
      expect(
        value(m, "toolplane_durable_approval_wait_seconds_bucket", { decision: "expired", le: "5" }),
      ).toBe(1)
      // The store records the channel with the decision.
      expect((await store.show(b.runId)).steps[0]).toMatchObject({ status: "rejected", decidedBy: "console" })
    } finally {
      await store.close()
      await one.close()
      await two.close()
    }
  }, 30_000)
})

describe("durable approval metrics of toolplane serve (subprocess)", () => {
  const suite = opsGatewaySuite("toolplane-durable-metrics-")

  it("shows a skill's waiting step, then counts the CLI's decision", async () => {
    const gateway = await suite.start([
      "[durable]",
      'store = "runs.db"',
      "[metrics]",
      'path = "/metrics"',
      "[[backends]]",
      'name = "guarded"',
      `module = ${JSON.stringify(join(FIXTURES, "guardedTools.ts"))}`,
      "require_approval = false",
      "[[skills]]",
      'name = "ship"',
      "[[skills.steps]]",
      'id = "go"',
      'tool = "guarded/deploy"',
      'inputs = { target = "prod" }',
      "",
    ])
    const scrape = async () => parse(await (await fetch(new URL("/metrics", gateway.url))).text())
    const client = new Client({ name: "metrics", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(gateway.url))
    try {
      const started = await client.callTool({ name: "skill.ship", arguments: {} })
      const runId = String((started.structuredContent as { runId?: unknown } | undefined)?.runId ?? "")
      const m = await scrape()
      expect(value(m, "toolplane_durable_approvals_pending")).toBe(1)
      expect(value(m, "toolplane_durable_approval_oldest_pending_seconds")).toBeGreaterThan(0)
      const runs = join(suite.dir(), "runs.db")
      let out = ""
      const listed = await cli(["runs", "list", "--runs", runs, "--json"], {
        stdout: (t) => {
          out += t
        },
        stderr: () => {},
        env: {},
        cwd: process.cwd(),
      })
      expect(listed).toBe(0)
      const id = runId || String((JSON.parse(out) as { runId: string }[])[0]!.runId)
      const approved = await cli(["runs", "approve", id, "go", "--runs", runs], {
        stdout: () => {},
        stderr: () => {},
        env: {},
        cwd: process.cwd(),
      })
      expect(approved).toBe(0)
      const line = await gateway.waitFor(
        (l) => l.event === "durable.approval_decided",
        "the decision's log line",
      )
      expect(line).toMatchObject({ decision: "approved", channel: "cli", tool: "guarded/deploy" })
      const after = await scrape()
      expect(
        value(after, "toolplane_durable_approval_decisions_total", { decision: "approved", channel: "cli" }),
      ).toBe(1)
      expect(value(after, "toolplane_durable_approval_wait_seconds_count", { decision: "approved" })).toBe(1)
      expect(value(after, "toolplane_durable_approvals_pending")).toBe(0)
    } finally {
      await client.close().catch(() => {})
    }
  }, 60_000)
})
