/**
 * The journal: two SQLite tables (runs, steps) in a file, through Node's built-in `node:sqlite`
 * (synchronous, no native build). WAL mode; every state change is one statement, so a crash leaves
 * either the state before or after it.
 *
 * @internal
 */
import { DatabaseSync, type StatementSync } from "node:sqlite"
import type { RunInfo, RunStatus, StepInfo, StepStatus } from "../run.js"

const SCHEMA = `
CREATE TABLE IF NOT EXISTS toolplane_runs (
  id TEXT PRIMARY KEY,
  skill TEXT NOT NULL,
  input TEXT NOT NULL,
  status TEXT NOT NULL,
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS toolplane_steps (
  run_id TEXT NOT NULL,
  step_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  tool TEXT NOT NULL,
  status TEXT NOT NULL,
  arguments TEXT NOT NULL,
  approved_arguments TEXT,
  input_schema TEXT,
  result TEXT,
  reason TEXT,
  expires_at INTEGER,
  executions INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, step_id)
);
CREATE INDEX IF NOT EXISTS toolplane_runs_status ON toolplane_runs (status);
`

interface RunRow {
  id: string
  skill: string
  input: string
  status: string
  error: string | null
  created_at: number
  updated_at: number
}

interface StepRow {
  run_id: string
  step_id: string
  idx: number
  tool: string
  status: string
  arguments: string
  approved_arguments: string | null
  input_schema: string | null
  result: string | null
  reason: string | null
  expires_at: number | null
  executions: number
  updated_at: number
}

const parse = (text: string | null): unknown => (text === null ? undefined : JSON.parse(text))

const toStep = (row: StepRow): StepInfo => ({
  stepId: row.step_id,
  index: row.idx,
  tool: row.tool,
  status: row.status as StepStatus,
  arguments: parse(row.arguments) as Record<string, unknown>,
  ...(row.approved_arguments !== null
    ? { approvedArguments: parse(row.approved_arguments) as Record<string, unknown> }
    : {}),
  ...(row.result !== null ? { result: parse(row.result) as StepInfo["result"] & object } : {}),
  ...(row.reason !== null ? { reason: row.reason } : {}),
  ...(row.expires_at !== null ? { expiresAt: new Date(row.expires_at).toISOString() } : {}),
  executions: row.executions,
})

/** @internal */
export class Journal {
  readonly db: DatabaseSync
  readonly file: string

  constructor(file: string) {
    this.file = file
    this.db = new DatabaseSync(file)
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;")
    this.db.exec(SCHEMA)
  }

  readonly #statements = new Map<string, StatementSync>()

  /** A prepared statement, prepared once per journal. */
  #sql(text: string): StatementSync {
    let statement = this.#statements.get(text)
    if (statement === undefined) {
      statement = this.db.prepare(text)
      this.#statements.set(text, statement)
    }
    return statement
  }

  close(): void {
    if (this.db.isOpen) this.db.close()
  }

  createRun(id: string, skill: unknown, input: unknown, now: number): void {
    this.#sql(
      "INSERT INTO toolplane_runs (id, skill, input, status, created_at, updated_at) VALUES (?, ?, ?, 'running', ?, ?)",
    ).run(id, JSON.stringify(skill), JSON.stringify(input), now, now)
  }

  runRow(id: string): { skill: unknown; input: Record<string, unknown>; info: RunInfo } | undefined {
    const row = this.#sql("SELECT * FROM toolplane_runs WHERE id = ?").get(id) as RunRow | undefined
    if (row === undefined) return undefined
    return {
      skill: JSON.parse(row.skill),
      input: JSON.parse(row.input),
      info: this.#info(row),
    }
  }

  #info(row: RunRow): RunInfo {
    const skill = JSON.parse(row.skill) as { name?: string }
    const steps = (
      this.#sql("SELECT * FROM toolplane_steps WHERE run_id = ? ORDER BY idx").all(
        row.id,
      ) as unknown as StepRow[]
    ).map(toStep)
    return {
      runId: row.id,
      skill: skill.name ?? "(unnamed)",
      status: row.status as RunStatus,
      ...(row.error !== null ? { error: JSON.parse(row.error) } : {}),
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
      steps,
    }
  }

  list(status?: RunStatus): RunInfo[] {
    const rows = (status === undefined
      ? this.#sql("SELECT * FROM toolplane_runs ORDER BY created_at, id").all()
      : this.#sql("SELECT * FROM toolplane_runs WHERE status = ? ORDER BY created_at, id").all(
          status,
        )) as unknown as RunRow[]
    return rows.map((r) => this.#info(r))
  }

  setRunStatus(id: string, status: RunStatus, error: unknown, now: number): void {
    this.#sql("UPDATE toolplane_runs SET status = ?, error = ?, updated_at = ? WHERE id = ?").run(
      status,
      error === undefined ? null : JSON.stringify(error),
      now,
      id,
    )
  }

  step(runId: string, stepId: string): (StepInfo & { inputSchema?: unknown }) | undefined {
    const row = this.#sql("SELECT * FROM toolplane_steps WHERE run_id = ? AND step_id = ?").get(
      runId,
      stepId,
    ) as StepRow | undefined
    if (row === undefined) return undefined
    return { ...toStep(row), ...(row.input_schema !== null ? { inputSchema: parse(row.input_schema) } : {}) }
  }

  /** Every journaled step of a run by id (one query), with its tool's input schema. */
  steps(runId: string): Map<string, StepInfo & { inputSchema?: unknown }> {
    const rows = this.#sql("SELECT * FROM toolplane_steps WHERE run_id = ?").all(
      runId,
    ) as unknown as StepRow[]
    return new Map(
      rows.map((row) => [
        row.step_id,
        { ...toStep(row), ...(row.input_schema !== null ? { inputSchema: parse(row.input_schema) } : {}) },
      ]),
    )
  }

  /** Suspended runs with a decision to apply: a step approved, rejected or expired, or an approval overdue. */
  decidedRuns(now: number): string[] {
    const rows = this.#sql(
      `SELECT DISTINCT r.id AS id, r.created_at FROM toolplane_runs r JOIN toolplane_steps s ON s.run_id = r.id
       WHERE r.status = 'suspended' AND (s.status IN ('approved', 'rejected', 'expired')
         OR (s.status = 'awaiting_approval' AND s.expires_at IS NOT NULL AND s.expires_at <= ?))
       ORDER BY r.created_at, r.id`,
    ).all(now) as unknown as { id: string }[]
    return rows.map((r) => r.id)
  }

  /** Records a step waiting for approval (the run is suspended by the caller). */
  awaitApproval(
    runId: string,
    step: { id: string; index: number; tool: string },
    args: unknown,
    inputSchema: unknown,
    expiresAt: number | null,
    now: number,
  ): void {
    this.#sql(
      `INSERT INTO toolplane_steps (run_id, step_id, idx, tool, status, arguments, input_schema, expires_at, updated_at)
         VALUES (?, ?, ?, ?, 'awaiting_approval', ?, ?, ?, ?)
         ON CONFLICT (run_id, step_id) DO NOTHING`,
    ).run(
      runId,
      step.id,
      step.index,
      step.tool,
      JSON.stringify(args),
      inputSchema === undefined ? null : JSON.stringify(inputSchema),
      expiresAt,
      now,
    )
  }

  /** Moves a step from `awaiting_approval` to `to`; false when it was not waiting (a concurrent decision). */
  decide(
    runId: string,
    stepId: string,
    to: "approved" | "rejected" | "expired",
    fields: { approvedArguments?: unknown; reason?: string },
    now: number,
  ): boolean {
    const changed = this.#sql(
      `UPDATE toolplane_steps SET status = ?, approved_arguments = ?, reason = ?, updated_at = ?
         WHERE run_id = ? AND step_id = ? AND status = 'awaiting_approval'`,
    ).run(
      to,
      fields.approvedArguments === undefined ? null : JSON.stringify(fields.approvedArguments),
      fields.reason ?? null,
      now,
      runId,
      stepId,
    )
    return Number(changed.changes) === 1
  }

  /** Marks a step started (inserting it, or moving an approved or interrupted one); counts the execution. */
  start(runId: string, step: { id: string; index: number; tool: string }, args: unknown, now: number): void {
    this.#sql(
      `INSERT INTO toolplane_steps (run_id, step_id, idx, tool, status, arguments, executions, updated_at)
         VALUES (?, ?, ?, ?, 'started', ?, 1, ?)
         ON CONFLICT (run_id, step_id) DO UPDATE SET status = 'started', executions = executions + 1,
           updated_at = excluded.updated_at`,
    ).run(runId, step.id, step.index, step.tool, JSON.stringify(args), now)
  }

  finish(runId: string, stepId: string, status: "completed" | "failed", result: unknown, now: number): void {
    this.#sql(
      "UPDATE toolplane_steps SET status = ?, result = ?, updated_at = ? WHERE run_id = ? AND step_id = ?",
    ).run(status, JSON.stringify(result), now, runId, stepId)
  }
}
