/**
 * `toolplane audit`: queries the audit log of `toolplane serve` (`[audit] file`, or `--file`; with
 * `[audit] sink = "store"` the table in `[durable] store`, or `--store`): records of
 * calls, approval decisions, reloads and refused tokens, filtered by caller, tool, time and outcome,
 * oldest first, as a table or JSON lines (`--json`). Rotated files (`file.1`, `file.2`, …) are read too.
 *
 * @since 0.1.0
 */
import { dirname, isAbsolute, resolve } from "node:path"
import { defineCommand, EXIT, UsageError } from "../command.js"
import { type AuditQuery, type AuditRecord, readAuditLog } from "../ops/audit.js"
import { auditStoreLocation, isPostgresUrl, readAuditStore } from "../ops/auditStore.js"
import { table } from "../output.js"

/** Reads the audit table of a store; a store that cannot be opened is a usage error naming it. */
const readStore = async (store: string, query: AuditQuery) => {
  try {
    return await readAuditStore(store, query)
  } catch (error) {
    throw new UsageError(
      `cannot read the audit log in ${auditStoreLocation(store)}: ${(error as Error).message}`,
    )
  }
}

const TYPES = ["call", "approval", "reload", "auth_failure"] as const

/** An ISO time, or an age like `30s`, `15m`, `2h`, `7d` (that long ago). */
const parseTime = (flag: string, text: string | undefined, now: number): number | undefined => {
  if (text === undefined) return undefined
  const age = /^(\d+)(s|m|h|d)$/.exec(text)
  if (age) return now - Number(age[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[age[2] as "s"]
  const t = Date.parse(text)
  if (Number.isNaN(t))
    throw new UsageError(
      `--${flag} must be an ISO time (2026-01-31T12:00:00Z) or an age (30s, 15m, 2h, 7d), got "${text}"`,
    )
  return t
}

const summary = (r: AuditRecord): [string, string, string, string, string] => {
  switch (r.type) {
    case "call":
      return [
        r.caller,
        r.tool,
        r.backend,
        `${r.outcome}${r.decision === "none" ? "" : ` (${r.decision})`}`,
        `${r.duration_ms} ms`,
      ]
    case "approval":
      return [
        r.caller,
        r.tool,
        r.backend,
        `${r.decision} by ${r.by} (${r.channel})`,
        `waited ${r.waited_ms} ms`,
      ]
    case "reload":
      return [
        "",
        "",
        "",
        r.ok ? "applied" : "rejected",
        r.error ??
          [
            ...(r.added ?? []).map((n) => `+${n}`),
            ...(r.removed ?? []).map((n) => `-${n}`),
            ...(r.changed ?? []).map((n) => `~${n}`),
          ].join(" "),
      ]
    case "auth_failure":
      return ["", "", "", r.reason, r.description ?? ""]
  }
}

/** @since 0.1.0 */
export const auditCommand = defineCommand({
  name: "audit",
  summary:
    "query the audit log of serve [--file FILE | --store SQLITE_FILE|POSTGRES_URL] [--json]\n[--caller ID] [--tool ID|PATTERN] [--outcome ok|tool_error|TAG|approved|denied] [--type call|approval|reload|auth_failure] [--since TIME|AGE] [--until TIME|AGE]",
  maxPositionals: 0,
  configOptional: true,
  flags: {
    file: "string",
    store: "string",
    json: "boolean",
    caller: "string",
    tool: "string",
    outcome: "string",
    type: "string",
    since: "string",
    until: "string",
  },
  run: async (ctx) => {
    const v = ctx.invocation.values
    if (v.type !== undefined && !(TYPES as readonly string[]).includes(v.type))
      throw new UsageError(`--type must be one of ${TYPES.join(", ")}, got "${v.type}"`)
    const now = Date.now()
    const since = parseTime("since", v.since, now)
    const until = parseTime("until", v.until, now)
    if (v.file !== undefined && v.store !== undefined)
      throw new UsageError("pass --file or --store, not both")
    let file: string | undefined
    let store: string | undefined
    if (v.file !== undefined) file = resolve(ctx.io.cwd, v.file)
    else if (v.store !== undefined) store = isPostgresUrl(v.store) ? v.store : resolve(ctx.io.cwd, v.store)
    else if (ctx.config.audit.sink === "store") {
      const configured = ctx.config.durable.store
      store =
        isPostgresUrl(configured) || isAbsolute(configured)
          ? configured
          : resolve(dirname(ctx.file), configured)
    } else {
      const configured = ctx.config.audit.file
      if (configured === undefined)
        throw new UsageError(`${ctx.file} has no [audit] file; pass --file FILE or --store STORE`)
      file = isAbsolute(configured) ? configured : resolve(dirname(ctx.file), configured)
    }
    const query: AuditQuery = {
      ...(v.type !== undefined ? { type: v.type as AuditRecord["type"] } : {}),
      ...(v.caller !== undefined ? { caller: v.caller } : {}),
      ...(v.tool !== undefined ? { tool: v.tool } : {}),
      ...(v.outcome !== undefined ? { outcome: v.outcome } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(until !== undefined ? { until } : {}),
    }
    const { records, skipped } =
      store !== undefined ? await readStore(store, query) : readAuditLog(file!, query)
    if (skipped > 0) ctx.io.stderr(`toolplane: ${skipped} unreadable line(s) in ${file} skipped\n`)
    if (v.json === true) ctx.io.stdout(records.map((r) => `${JSON.stringify(r)}\n`).join(""))
    else
      ctx.io.stdout(
        `${table(
          ["TIME", "TYPE", "CALLER", "TOOL", "BACKEND", "OUTCOME", "DETAIL"],
          records.map((r) => [r.ts, r.type, ...summary(r)]),
        )}\n`,
      )
    return EXIT.ok
  },
})
