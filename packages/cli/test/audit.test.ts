/**
 * The audit log of `toolplane serve` (a real subprocess with bearer-token auth): a mixed run of calls
 * (allowed, failed, denied by configuration, approved and declined by the calling user through
 * elicitation, cancelled) leaves exactly one call record per call and one record per approval decision
 * and refused token; argument values appear only for the tool the operator opted in (`clear`), others as
 * an HMAC under the configured key; the token never appears. Calls answered before a SIGKILL of the
 * gateway all have their records. `toolplane audit` filters the file by caller, tool, outcome and time.
 */
import { createHmac } from "node:crypto"
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { describe, expect, it } from "vitest"
import {
  type ApprovalRecord,
  type AuditRecord,
  type CallRecord,
  openAuditLog,
  readAuditLog,
} from "../src/ops/audit.js"
import { opsGatewaySuite } from "./helpers/opsGateway.js"
import { FIXTURES, textOf } from "./helpers/processes.js"
import { runCli as cli } from "./helpers/runCli.js"

const TOKEN = "audit-test-token-0123456789abcdef"
const KEY = "audit-test-hmac-key-0123456789abcdef"

const records = (file: string): AuditRecord[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as AuditRecord)

const until = async (check: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe("audit log of toolplane serve (subprocess)", () => {
  const suite = opsGatewaySuite("toolplane-audit-")

  it("records every call, approval and refused token once, hashes what is not opted in, and survives SIGKILL", async () => {
    const dir = suite.dir()
    const file = suite.file()
    const auditFile = join(dir, "audit.jsonl")
    const gateway = await suite.start(
      [
        "[server.auth]",
        'tokens = [{ env = "AUDIT_TOKEN", client = "alice" }]',
        "[limits]",
        "retries = 0",
        "[audit]",
        'file = "audit.jsonl"',
        'key_env = "AUDIT_KEY"',
        'clear = ["ops/echo"]',
        "[[backends]]",
        'name = "ops"',
        `module = ${JSON.stringify(join(FIXTURES, "opsTools.ts"))}`,
        "[[backends]]",
        'name = "guarded"',
        `module = ${JSON.stringify(join(FIXTURES, "guardedTools.ts"))}`,
        "require_approval = true",
        'approval = "deny"',
        "[[backends]]",
        'name = "asked"',
        `module = ${JSON.stringify(join(FIXTURES, "askedTools.ts"))}`,
        "require_approval = true",
        'approval = "elicit"',
        "",
      ],
      { env: { AUDIT_TOKEN: TOKEN, AUDIT_KEY: KEY } },
    )
    const client = new Client({ name: "audited", version: "1.0.0" }, { capabilities: { elicitation: {} } })
    const answers = [{ action: "accept", content: { approve: true } }, { action: "decline" }]
    client.setRequestHandler(ElicitRequestSchema, async () => answers.shift() as never)
    await client.connect(
      new StreamableHTTPClientTransport(gateway.url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    )
    try {
      const call = (name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) =>
        client.callTool({ name, arguments: args }, undefined, signal ? { signal } : {}).then(
          (r) => (r.isError ? `isError: ${textOf(r)}` : textOf(r)),
          (e: Error) => `rejected: ${e.message}`,
        )
      expect(await call("ops.echo", { message: "clear-text-visible" })).toBe("echo: clear-text-visible")
      expect(await call("ops.login", { user: "bob", password: "hunter2-SECRET-pw" })).toBe("welcome bob")
      expect(await call("ops.soft_fail")).toMatch(/^isError: nothing to see/)
      expect(await call("ops.crash")).toMatch(/^isError: .*crashed/)
      expect(await call("guarded.deploy", { target: "prod-SECRET-target" })).toMatch(/^isError: .*deny/)
      expect(await call("asked.publish", { title: "approved-post" })).toBe("published approved-post")
      expect(await call("asked.publish", { title: "declined-post" })).toMatch(/^isError: .*declined/)
      const abort = new AbortController()
      const cancelled = call("ops.slow", { ms: 5000 }, abort.signal)
      await new Promise((r) => setTimeout(r, 300))
      abort.abort()
      expect(await cancelled).toMatch(/^rejected: /)
      const refused = await fetch(gateway.url, {
        method: "POST",
        headers: {
          authorization: "Bearer not-the-token-SECRET",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      })
      expect(refused.status).toBe(401)
      await until(
        () => records(auditFile).some((r) => r.type === "call" && r.tool === "ops/slow"),
        "the cancelled call's record",
      )

      // Calls answered before a SIGKILL: each has its record.
      for (let i = 0; i < 20; i++)
        expect(await call("ops.echo", { message: `before-kill-${i}` })).toBe(`echo: before-kill-${i}`)
    } finally {
      // The gateway dies without any chance to flush.
      process.kill(-gateway.child.pid!, "SIGKILL")
      await new Promise((r) => gateway!.child.once("exit", r))
      await client.close().catch(() => {})
    }

    const all = records(auditFile)
    const text = readFileSync(auditFile, "utf8")
    const callRecords = all.filter((r): r is CallRecord => r.type === "call")
    expect(callRecords).toHaveLength(28)
    // One record per call.
    expect(new Set(callRecords.map((r) => r.call_id)).size).toBe(28)
    expect(callRecords.every((r) => r.caller === "alice")).toBe(true)
    const summary = callRecords
      .slice(0, 8)
      .map((r) => [r.tool, r.backend, r.decision, r.decision_channel ?? "", r.outcome])
    expect(summary).toEqual([
      ["ops/echo", "ops", "none", "", "ok"],
      ["ops/login", "ops", "none", "", "ok"],
      ["ops/soft_fail", "ops", "none", "", "tool_error"],
      ["ops/crash", "ops", "none", "", "ExecutionFailed"],
      ["guarded/deploy", "guarded", "denied", "config", "ApprovalDenied"],
      ["asked/publish", "asked", "approved", "elicit", "ok"],
      ["asked/publish", "asked", "denied", "elicit", "ApprovalDenied"],
      ["ops/slow", "ops", "none", "", "Cancelled"],
    ])
    expect(callRecords.slice(8).map((r) => (r.args as { message: string }).message)).toEqual(
      Array.from({ length: 20 }, (_, i) => `before-kill-${i}`),
    )

    // In clear only where opted in; elsewhere an HMAC under the configured key.
    expect(callRecords[0]).toMatchObject({ args: { message: "clear-text-visible" } })
    expect(callRecords[0]!.result).toMatchObject({
      content: [{ type: "text", text: "echo: clear-text-visible" }],
    })
    const login = callRecords[1]!
    expect(login.args).toBeUndefined()
    expect(login.args_hmac).toBe(
      `hmac-sha256:${createHmac("sha256", KEY)
        .update(JSON.stringify({ user: "bob", password: "hunter2-SECRET-pw" }))
        .digest("base64url")}`,
    )
    expect(login.result_hmac).toMatch(/^hmac-sha256:[\w-]{43}$/)
    for (const secret of [
      "hunter2-SECRET-pw",
      "prod-SECRET-target",
      "approved-post",
      "declined-post",
      TOKEN,
      "not-the-token-SECRET",
      KEY,
    ])
      expect(text).not.toContain(secret)

    const approvals = all.filter((r): r is ApprovalRecord => r.type === "approval")
    expect(approvals.map((a) => [a.tool, a.decision, a.channel, a.by])).toEqual([
      ["guarded/deploy", "denied", "config", "config"],
      ["asked/publish", "approved", "elicit", "alice"],
      ["asked/publish", "denied", "elicit", "alice"],
    ])
    expect(approvals.map((a) => a.call_id)).toEqual(callRecords.slice(4, 7).map((r) => r.call_id))
    expect(all.filter((r) => r.type === "auth_failure")).toEqual([
      expect.objectContaining({ reason: "invalid_token" }),
    ])

    // toolplane audit reads and filters it.
    const asked = await cli(["audit", "--config", file, "--tool", "asked/*", "--type", "call", "--json"])
    expect(asked.code).toBe(0)
    const askedRecords = asked.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CallRecord)
    expect(askedRecords.map((r) => r.decision)).toEqual(["approved", "denied"])
    const cancelledOnly = await cli(["audit", "--file", auditFile, "--outcome", "Cancelled", "--json"])
    expect(
      cancelledOnly.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as CallRecord).tool),
    ).toEqual(["ops/slow"])
    const denied = await cli(["audit", "--file", auditFile, "--outcome", "denied", "--caller", "alice"])
    expect(denied.stdout).toMatch(/^TIME\s+TYPE\s+CALLER\s+TOOL\s+BACKEND\s+OUTCOME\s+DETAIL/)
    // Two denied calls and their two approval records.
    expect(denied.stdout.trim().split("\n")).toHaveLength(2 + 4)
    const nobody = await cli(["audit", "--file", auditFile, "--caller", "mallory", "--json"])
    expect(nobody.stdout).toBe("")
    const future = await cli(["audit", "--file", auditFile, "--since", "2999-01-01T00:00:00Z", "--json"])
    expect(future.stdout).toBe("")
    const recent = await cli([
      "audit",
      "--file",
      auditFile,
      "--since",
      "10m",
      "--type",
      "auth_failure",
      "--json",
    ])
    expect(recent.stdout.trim().split("\n")).toHaveLength(1)
    const bad = await cli(["audit", "--file", auditFile, "--since", "yesterday"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--since must be an ISO time/)
  }, 60_000)
})

describe("audit file rotation", () => {
  it("rotates by size, keeps `keep` old files, and reads them back oldest first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolplane-audit-rotate-"))
    try {
      const file = join(dir, "audit.jsonl")
      const log = openAuditLog({ file, maxBytes: 4096, keep: 2, key: KEY })
      for (let i = 0; i < 100; i++)
        log.write({ type: "reload", ok: true, trigger: `n${i}`, added: ["x".repeat(100)] })
      await log.close()
      expect(existsSync(`${file}.1`)).toBe(true)
      expect(existsSync(`${file}.2`)).toBe(true)
      expect(existsSync(`${file}.3`)).toBe(false)
      for (const f of [file, `${file}.1`, `${file}.2`]) expect(statSync(f).size).toBeLessThanOrEqual(4096)
      // A torn last line (a power loss without fsync) is skipped, not fatal.
      appendFileSync(file, '{"ts":"2026-01-01T00:00:00.000Z","type":"rel')
      const { records: kept, skipped } = readAuditLog(file)
      expect(skipped).toBe(1)
      const triggers = kept.map((r) => (r as { trigger: string }).trigger)
      // The newest records, in order, ending with the last one written.
      expect(triggers.at(-1)).toBe("n99")
      expect(triggers).toEqual(
        Array.from({ length: triggers.length }, (_, i) => `n${100 - triggers.length + i}`),
      )
      expect(triggers.length).toBeGreaterThan(40)
      expect(triggers.length).toBeLessThan(100)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("audit hashes", () => {
  it("are HMAC-SHA256 of the value's JSON text, for short and long keys and any text", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolplane-audit-hmac-"))
    try {
      for (const key of [KEY, "k".repeat(100)]) {
        const log = openAuditLog({ file: join(dir, "a.jsonl"), key })
        for (const value of [{ a: 1 }, "é✓ unicode", { big: "x".repeat(10_000) }, null])
          expect(log.hash(value)).toBe(
            `hmac-sha256:${createHmac("sha256", key).update(JSON.stringify(value)).digest("base64url")}`,
          )
        await log.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
