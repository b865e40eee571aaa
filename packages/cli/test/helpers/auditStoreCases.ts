/**
 * Shared cases of the audit log in the durable store (`[audit] sink = "store"`), on a real SQLite file and a real
 * PostgreSQL server: the records are those of the file sink (same JSON), the table refuses updates and
 * deletes, `toolplane audit` filters it like the file, and every call answered before a SIGKILL of the
 * gateway (`toolplane serve` as a subprocess) has its row.
 */
import { createHmac } from "node:crypto"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { expect } from "vitest"
import type { CallRecord } from "../../src/ops/audit.js"
import { AUDIT_TABLE, openAuditStore, readAuditStore } from "../../src/ops/auditStore.js"
import type { opsGatewaySuite } from "./opsGateway.js"
import { FIXTURES, textOf } from "./processes.js"
import { runCli as cli } from "./runCli.js"

export const KEY = "audit-store-hmac-key-0123456789abcdef"

const jsonLines = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)

/** Writes a few records and reads them back through every filter; then tries to rewrite history. */
export const roundTrip = async (storage: string, tamper: (sql: string) => Promise<unknown>) => {
  let t = Date.parse("2026-03-01T10:00:00.000Z")
  const audit = await openAuditStore({
    storage,
    key: KEY,
    clear: (tool) => tool === "ops/echo",
    now: () => new Date((t += 1000)),
  })
  const call = (tool: string, caller: string, outcome: string, args: unknown) =>
    audit.commit({
      type: "call",
      call_id: `${tool}-${caller}-${outcome}`,
      caller,
      tool,
      backend: tool.split("/")[0]!,
      decision: outcome === "ApprovalDenied" ? "denied" : "none",
      outcome,
      duration_ms: 1.5,
      ...(audit.clear(tool) ? { args } : { args_hmac: audit.hash(args) }),
    } as Omit<CallRecord, "ts">)
  // Records of one turn share one transaction; all resolve once committed.
  await Promise.all([
    call("ops/echo", "alice", "ok", { message: "visible" }),
    call("ops/login", "alice", "ok", { password: "SECRET-pw" }),
    call("guarded/deploy", "bob", "ApprovalDenied", { target: "prod" }),
  ])
  audit.write({ type: "reload", ok: true, trigger: "SIGHUP" })
  await call("ops/slow", "bob", "Cancelled", { ms: 5 })
  await audit.close()

  const all = (await readAuditStore(storage)).records
  expect(all.map((r) => [r.type, (r as CallRecord).tool ?? "", r.ts])).toEqual([
    ["call", "ops/echo", "2026-03-01T10:00:01.000Z"],
    ["call", "ops/login", "2026-03-01T10:00:02.000Z"],
    ["call", "guarded/deploy", "2026-03-01T10:00:03.000Z"],
    ["reload", "", "2026-03-01T10:00:04.000Z"],
    ["call", "ops/slow", "2026-03-01T10:00:05.000Z"],
  ])
  const [echo, login] = all as CallRecord[]
  expect(echo!.args).toEqual({ message: "visible" })
  expect(login!.args).toBeUndefined()
  expect(login!.args_hmac).toBe(
    `hmac-sha256:${createHmac("sha256", KEY)
      .update(JSON.stringify({ password: "SECRET-pw" }))
      .digest("base64url")}`,
  )
  const tools = async (query: Parameters<typeof readAuditStore>[1]) =>
    (await readAuditStore(storage, query)).records.map((r) => (r as CallRecord).tool ?? r.type)
  expect(await tools({ caller: "bob" })).toEqual(["guarded/deploy", "ops/slow"])
  expect(await tools({ tool: "ops/*" })).toEqual(["ops/echo", "ops/login", "ops/slow"])
  expect(await tools({ tool: "ops/login" })).toEqual(["ops/login"])
  expect(await tools({ outcome: "denied" })).toEqual(["guarded/deploy"])
  expect(await tools({ outcome: "Cancelled" })).toEqual(["ops/slow"])
  expect(await tools({ type: "reload" })).toEqual(["reload"])
  expect(
    await tools({ since: Date.parse("2026-03-01T10:00:02Z"), until: Date.parse("2026-03-01T10:00:03Z") }),
  ).toEqual(["ops/login", "guarded/deploy"])

  // Append-only: history cannot be rewritten through the table.
  await expect(tamper(`UPDATE ${AUDIT_TABLE} SET caller = 'mallory'`)).rejects.toThrow(/append-only/)
  await expect(tamper(`DELETE FROM ${AUDIT_TABLE}`)).rejects.toThrow(/append-only/)
  expect((await readAuditStore(storage)).records).toHaveLength(5)

  // toolplane audit --store reads it like a file.
  const out = await cli(["audit", "--store", storage, "--caller", "alice", "--json"])
  expect(out.stderr).toBe("")
  expect(jsonLines(out.stdout).map((r) => r.tool)).toEqual(["ops/echo", "ops/login"])
}

/** 20 calls one by one and 20 at once, answered, then SIGKILL: every answered call has its row. */
export const killTest = (suite: ReturnType<typeof opsGatewaySuite>, store: () => string) => async () => {
  const gateway = await suite.start(
    [
      "[durable]",
      `store = ${JSON.stringify(store())}`,
      "[audit]",
      'sink = "store"',
      'key_env = "AUDIT_KEY"',
      'clear = ["ops/echo"]',
      "[[backends]]",
      'name = "ops"',
      `module = ${JSON.stringify(join(FIXTURES, "opsTools.ts"))}`,
      "",
    ],
    { env: { AUDIT_KEY: KEY } },
  )
  const client = new Client({ name: "audited", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(gateway.url))
  const answered: string[] = []
  const call = async (message: string) => {
    const result = await client.callTool({ name: "ops.echo", arguments: { message } })
    expect(textOf(result)).toBe(`echo: ${message}`)
    answered.push(message)
  }
  try {
    for (let i = 0; i < 20; i++) await call(`one-${i}`)
    await Promise.all(Array.from({ length: 20 }, (_, i) => call(`many-${i}`)))
  } finally {
    process.kill(-gateway.child.pid!, "SIGKILL")
    await new Promise((r) => gateway.child.once("exit", r))
    await client.close().catch(() => {})
  }
  const calls = (await readAuditStore(store(), { type: "call" })).records as CallRecord[]
  expect(answered).toHaveLength(40)
  expect(calls.map((r) => (r.args as { message: string }).message).sort()).toEqual([...answered].sort())
  expect(new Set(calls.map((r) => r.call_id)).size).toBe(40)
  expect(calls.every((r) => r.outcome === "ok" && r.caller === "anonymous")).toBe(true)

  // toolplane audit follows [audit] sink = "store" of the configuration.
  const out = await cli(["audit", "--config", suite.file(), "--tool", "ops/*", "--json"])
  expect(out.code).toBe(0)
  expect(jsonLines(out.stdout)).toHaveLength(40)
}
