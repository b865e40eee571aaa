/**
 * The embedded journal: a SQLite file through Node's built-in `node:sqlite` (synchronous, no native
 * build). WAL mode, `synchronous = NORMAL`, prepared statements; every state change is one statement,
 * so a crash leaves either the state before or after it. Several processes may share the file (SQLite
 * serializes writers; claims and fenced writes are single statements).
 *
 * @internal
 */
import { DatabaseSync, type StatementSync } from "node:sqlite"
import type { RunInfo, RunStatus } from "../run.js"
import {
  type ClaimFilter,
  type Journal,
  type Lease,
  LeaseLost,
  type RunRecord,
  type RunRow,
  type StepOutcome,
  type StepPosition,
  type StepRecord,
  type StepRow,
  toRecord,
  toStep,
} from "./journal.js"

const SCHEMA = `
CREATE TABLE IF NOT EXISTS toolplane_runs (
  id TEXT PRIMARY KEY,
  skill TEXT NOT NULL,
  input TEXT NOT NULL,
  status TEXT NOT NULL,
  error TEXT,
  owner TEXT,
  lease_until INTEGER,
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

/** The fence: the run is still leased to the writing runner (two parameters: run id, owner). */
const HELD = "EXISTS (SELECT 1 FROM toolplane_runs WHERE id = ? AND owner = ?)"

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value))

/** @internal */
export class SqliteJournal implements Journal {
  readonly db: DatabaseSync
  readonly location: string
  readonly #statements = new Map<string, StatementSync>()

  constructor(file: string) {
    this.location = file
    this.db = new DatabaseSync(file)
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;")
    this.db.exec(SCHEMA)
    // Files written before leases existed gain the two columns.
    const columns = (this.db.prepare("PRAGMA table_info(toolplane_runs)").all() as { name: string }[]).map(
      (c) => c.name,
    )
    if (!columns.includes("owner")) this.db.exec("ALTER TABLE toolplane_runs ADD COLUMN owner TEXT")
    if (!columns.includes("lease_until"))
      this.db.exec("ALTER TABLE toolplane_runs ADD COLUMN lease_until INTEGER")
  }

  /** A prepared statement, prepared once per journal. */
  #sql(text: string): StatementSync {
    let statement = this.#statements.get(text)
    if (statement === undefined) {
      statement = this.db.prepare(text)
      this.#statements.set(text, statement)
    }
    return statement
  }

  #fenced(runId: string, changes: number | bigint): void {
    if (Number(changes) !== 1) throw new LeaseLost(runId)
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close()
  }

  async createRun(id: string, skill: unknown, input: unknown, lease: Lease, now: number): Promise<void> {
    this.#sql(
      `INSERT INTO toolplane_runs (id, skill, input, status, owner, lease_until, created_at, updated_at)
         VALUES (?, ?, ?, 'running', ?, ?, ?, ?)`,
    ).run(id, JSON.stringify(skill), JSON.stringify(input), lease.owner, lease.until, now, now)
  }

  #stepRows(runId: string): StepRow[] {
    return this.#sql("SELECT * FROM toolplane_steps WHERE run_id = ? ORDER BY idx").all(
      runId,
    ) as unknown as StepRow[]
  }

  async run(id: string): Promise<RunRecord | undefined> {
    const row = this.#sql("SELECT * FROM toolplane_runs WHERE id = ?").get(id) as RunRow | undefined
    return row === undefined ? undefined : toRecord(row, this.#stepRows(id))
  }

  async list(status?: RunStatus): Promise<RunInfo[]> {
    const rows = (status === undefined
      ? this.#sql("SELECT * FROM toolplane_runs ORDER BY created_at, id").all()
      : this.#sql("SELECT * FROM toolplane_runs WHERE status = ? ORDER BY created_at, id").all(
          status,
        )) as unknown as RunRow[]
    return rows.map((r) => toRecord(r, this.#stepRows(r.id)).info)
  }

  async step(runId: string, stepId: string): Promise<StepRecord | undefined> {
    const row = this.#sql("SELECT * FROM toolplane_steps WHERE run_id = ? AND step_id = ?").get(
      runId,
      stepId,
    ) as StepRow | undefined
    return row === undefined ? undefined : toStep(row)
  }

  async steps(runId: string): Promise<Map<string, StepRecord>> {
    return new Map(this.#stepRows(runId).map((row) => [row.step_id, toStep(row)]))
  }

  async claim(runId: string, lease: Lease, now: number): Promise<boolean> {
    const changed = this.#sql(
      `UPDATE toolplane_runs SET owner = ?, lease_until = ?, status = 'running'
         WHERE id = ? AND status IN ('running', 'suspended')
           AND (owner IS NULL OR owner = ? OR lease_until <= ?)`,
    ).run(lease.owner, lease.until, runId, lease.owner, now)
    return Number(changed.changes) === 1
  }

  async claimMany(filter: ClaimFilter, lease: Lease, now: number): Promise<string[]> {
    const rows = this.#sql(
      `UPDATE toolplane_runs SET owner = ?, lease_until = ?, status = 'running' WHERE id IN (
         SELECT r.id FROM toolplane_runs r
         WHERE (? = 1 AND r.status = 'running' AND (r.owner IS NULL OR r.lease_until <= ?))
            OR (r.status = 'suspended' AND (? = 1 OR EXISTS (
                 SELECT 1 FROM toolplane_steps s WHERE s.run_id = r.id
                   AND (s.status IN ('approved', 'rejected', 'expired')
                     OR (s.status = 'awaiting_approval' AND s.expires_at IS NOT NULL AND s.expires_at <= ?)))))
         ORDER BY r.created_at, r.id LIMIT ?)
       RETURNING id, created_at`,
    ).all(
      lease.owner,
      lease.until,
      filter.orphaned ? 1 : 0,
      now,
      filter.suspended === "all" ? 1 : 0,
      now,
      filter.limit,
    ) as unknown as { id: string; created_at: number }[]
    return rows.sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id)).map((r) => r.id)
  }

  async renew(lease: Lease): Promise<void> {
    this.#sql("UPDATE toolplane_runs SET lease_until = ? WHERE owner = ? AND status = 'running'").run(
      lease.until,
      lease.owner,
    )
  }

  async release(runId: string, owner: string, status: RunStatus, error: unknown, now: number): Promise<void> {
    const changed = this.#sql(
      `UPDATE toolplane_runs SET status = ?, error = ?, owner = NULL, lease_until = NULL, updated_at = ?
         WHERE id = ? AND owner = ?`,
    ).run(status, json(error), now, runId, owner)
    this.#fenced(runId, changed.changes)
  }

  async awaitApproval(
    runId: string,
    owner: string,
    step: StepPosition,
    args: unknown,
    inputSchema: unknown,
    expiresAt: number | null,
    now: number,
  ): Promise<void> {
    const changed = this.#sql(
      `INSERT INTO toolplane_steps (run_id, step_id, idx, tool, status, arguments, input_schema, expires_at, updated_at)
         SELECT ?, ?, ?, ?, 'awaiting_approval', ?, ?, ?, ? WHERE ${HELD}
         ON CONFLICT (run_id, step_id) DO NOTHING`,
    ).run(
      runId,
      step.id,
      step.index,
      step.tool,
      JSON.stringify(args),
      json(inputSchema),
      expiresAt,
      now,
      runId,
      owner,
    )
    if (Number(changed.changes) !== 1 && (await this.step(runId, step.id)) === undefined)
      throw new LeaseLost(runId)
  }

  async decide(
    runId: string,
    stepId: string,
    to: "approved" | "rejected" | "expired",
    fields: { approvedArguments?: unknown; reason?: string },
    now: number,
  ): Promise<boolean> {
    const changed = this.#sql(
      `UPDATE toolplane_steps SET status = ?, approved_arguments = ?, reason = ?, updated_at = ?
         WHERE run_id = ? AND step_id = ? AND status = 'awaiting_approval'`,
    ).run(to, json(fields.approvedArguments), fields.reason ?? null, now, runId, stepId)
    return Number(changed.changes) === 1
  }

  async start(runId: string, owner: string, step: StepPosition, args: unknown, now: number): Promise<void> {
    const changed = this.#sql(
      `INSERT INTO toolplane_steps (run_id, step_id, idx, tool, status, arguments, executions, updated_at)
         SELECT ?, ?, ?, ?, 'started', ?, 1, ? WHERE ${HELD}
         ON CONFLICT (run_id, step_id) DO UPDATE SET status = 'started', executions = executions + 1,
           updated_at = excluded.updated_at`,
    ).run(runId, step.id, step.index, step.tool, JSON.stringify(args), now, runId, owner)
    this.#fenced(runId, changed.changes)
  }

  async finish(
    runId: string,
    owner: string,
    stepId: string,
    status: "completed" | "failed",
    result: unknown,
    now: number,
  ): Promise<void> {
    const changed = this.#sql(
      `UPDATE toolplane_steps SET status = ?, result = ?, updated_at = ?
         WHERE run_id = ? AND step_id = ? AND ${HELD}`,
    ).run(status, JSON.stringify(result), now, runId, stepId, runId, owner)
    this.#fenced(runId, changed.changes)
  }

  async record(runId: string, owner: string, outcomes: readonly StepOutcome[], now: number): Promise<void> {
    const insert = this.#sql(
      `INSERT INTO toolplane_steps (run_id, step_id, idx, tool, status, arguments, result, executions, updated_at)
         SELECT ?, ?, ?, ?, ?, ?, ?, 1, ? WHERE ${HELD}
         ON CONFLICT (run_id, step_id) DO UPDATE SET status = excluded.status, result = excluded.result,
           executions = executions + 1, updated_at = excluded.updated_at`,
    )
    // node:sqlite is synchronous: nothing else in this process runs between BEGIN and COMMIT.
    this.db.exec("BEGIN IMMEDIATE")
    try {
      for (const { step, args, status, result } of outcomes) {
        const changed = insert.run(
          runId,
          step.id,
          step.index,
          step.tool,
          status,
          JSON.stringify(args),
          JSON.stringify(result),
          now,
          runId,
          owner,
        )
        this.#fenced(runId, changed.changes)
      }
      this.db.exec("COMMIT")
    } catch (error) {
      this.db.exec("ROLLBACK")
      throw error
    }
  }
}
