/**
 * The distributed journal: the same two tables in a PostgreSQL database through the `pg` client (a small
 * pool), shared by any number of runner processes. Claims are row-locking updates: a single run with a
 * conditional `UPDATE` (a concurrent claimer waits for the row lock, then sees the new owner and gets
 * nothing), a sweep with `SELECT ... FOR UPDATE SKIP LOCKED` (runners sweeping at once split the runs
 * instead of waiting on each other). Fenced writes lock the run row `FOR SHARE` in the same statement,
 * so a takeover (which needs the row exclusively) and a step write by the old owner cannot interleave.
 *
 * @internal
 */
import type pg from "pg"
import type { RunInfo, RunStatus } from "../run.js"
import {
  type ClaimFilter,
  type Journal,
  type Lease,
  LeaseLost,
  type RunRecord,
  type RunRow,
  redactUrl,
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
  lease_until BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS toolplane_steps (
  run_id TEXT NOT NULL REFERENCES toolplane_runs (id) ON DELETE CASCADE,
  step_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  tool TEXT NOT NULL,
  status TEXT NOT NULL,
  arguments TEXT NOT NULL,
  approved_arguments TEXT,
  input_schema TEXT,
  result TEXT,
  reason TEXT,
  expires_at BIGINT,
  executions INTEGER NOT NULL DEFAULT 0,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (run_id, step_id)
);
CREATE INDEX IF NOT EXISTS toolplane_runs_status ON toolplane_runs (status);
`

/** The fence: the run is still leased to the writer; `$a` run id, `$b` owner. */
const held = (a: number, b: number) =>
  `EXISTS (SELECT 1 FROM toolplane_runs WHERE id = $${a} AND owner = $${b} FOR SHARE)`

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value))

/** @internal */
export class PostgresJournal implements Journal {
  readonly location: string
  readonly #pool: pg.Pool

  private constructor(url: string, pool: pg.Pool) {
    this.location = redactUrl(url)
    this.#pool = pool
  }

  /** Connects a pool and creates the tables if needed (serialized by an advisory lock across runners). */
  static async open(url: string): Promise<PostgresJournal> {
    const { default: pgModule } = await import("pg")
    const pool = new pgModule.Pool({ connectionString: url, max: 4 })
    // An idle client's connection error (server restart) must not crash the process; the next query fails.
    pool.on("error", () => {})
    const client = await pool.connect()
    try {
      await client.query("BEGIN")
      await client.query("SELECT pg_advisory_xact_lock(hashtext('toolplane_durable_schema'))")
      await client.query(SCHEMA)
      await client.query("COMMIT")
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {})
      client.release()
      await pool.end()
      throw error
    }
    client.release()
    return new PostgresJournal(url, pool)
  }

  async #query<R extends object>(text: string, values: readonly unknown[]): Promise<pg.QueryResult<R>> {
    return this.#pool.query<R>({ text, values: values as unknown[] })
  }

  #fenced(runId: string, count: number | null): void {
    if (count !== 1) throw new LeaseLost(runId)
  }

  async close(): Promise<void> {
    await this.#pool.end()
  }

  async createRun(id: string, skill: unknown, input: unknown, lease: Lease, now: number): Promise<void> {
    await this.#query(
      `INSERT INTO toolplane_runs (id, skill, input, status, owner, lease_until, created_at, updated_at)
         VALUES ($1, $2, $3, 'running', $4, $5, $6, $6)`,
      [id, JSON.stringify(skill), JSON.stringify(input), lease.owner, lease.until, now],
    )
  }

  async #stepRows(runIds: readonly string[]): Promise<Map<string, StepRow[]>> {
    const { rows } = await this.#query<StepRow>(
      "SELECT * FROM toolplane_steps WHERE run_id = ANY($1) ORDER BY run_id, idx",
      [runIds],
    )
    const byRun = new Map<string, StepRow[]>()
    for (const row of rows) {
      const list = byRun.get(row.run_id) ?? []
      list.push(row)
      byRun.set(row.run_id, list)
    }
    return byRun
  }

  async run(id: string): Promise<RunRecord | undefined> {
    const { rows } = await this.#query<RunRow>("SELECT * FROM toolplane_runs WHERE id = $1", [id])
    if (rows[0] === undefined) return undefined
    return toRecord(rows[0], (await this.#stepRows([id])).get(id) ?? [])
  }

  async list(status?: RunStatus): Promise<RunInfo[]> {
    const { rows } =
      status === undefined
        ? await this.#query<RunRow>("SELECT * FROM toolplane_runs ORDER BY created_at, id", [])
        : await this.#query<RunRow>(
            "SELECT * FROM toolplane_runs WHERE status = $1 ORDER BY created_at, id",
            [status],
          )
    const steps = await this.#stepRows(rows.map((r) => r.id))
    return rows.map((r) => toRecord(r, steps.get(r.id) ?? []).info)
  }

  async step(runId: string, stepId: string): Promise<StepRecord | undefined> {
    const { rows } = await this.#query<StepRow>(
      "SELECT * FROM toolplane_steps WHERE run_id = $1 AND step_id = $2",
      [runId, stepId],
    )
    return rows[0] === undefined ? undefined : toStep(rows[0])
  }

  async steps(runId: string): Promise<Map<string, StepRecord>> {
    const rows = (await this.#stepRows([runId])).get(runId) ?? []
    return new Map(rows.map((row) => [row.step_id, toStep(row)]))
  }

  async claim(runId: string, lease: Lease, now: number): Promise<boolean> {
    const { rowCount } = await this.#query(
      `UPDATE toolplane_runs SET owner = $1, lease_until = $2, status = 'running'
         WHERE id = $3 AND status IN ('running', 'suspended')
           AND (owner IS NULL OR owner = $1 OR lease_until <= $4)`,
      [lease.owner, lease.until, runId, now],
    )
    return rowCount === 1
  }

  async claimMany(filter: ClaimFilter, lease: Lease, now: number): Promise<string[]> {
    const { rows } = await this.#query<{ id: string; created_at: string }>(
      `WITH picked AS (
         SELECT r.id FROM toolplane_runs r
         WHERE ($3::boolean AND r.status = 'running' AND (r.owner IS NULL OR r.lease_until <= $4))
            OR (r.status = 'suspended' AND ($5::boolean OR EXISTS (
                 SELECT 1 FROM toolplane_steps s WHERE s.run_id = r.id
                   AND (s.status IN ('approved', 'rejected', 'expired')
                     OR (s.status = 'awaiting_approval' AND s.expires_at IS NOT NULL AND s.expires_at <= $4)))))
         ORDER BY r.created_at, r.id LIMIT $6
         FOR UPDATE SKIP LOCKED)
       UPDATE toolplane_runs r SET owner = $1, lease_until = $2, status = 'running'
         FROM picked WHERE r.id = picked.id
       RETURNING r.id, r.created_at`,
      [lease.owner, lease.until, filter.orphaned, now, filter.suspended === "all", filter.limit],
    )
    return rows
      .sort((a, b) => Number(a.created_at) - Number(b.created_at) || a.id.localeCompare(b.id))
      .map((r) => r.id)
  }

  async renew(lease: Lease): Promise<void> {
    await this.#query("UPDATE toolplane_runs SET lease_until = $1 WHERE owner = $2 AND status = 'running'", [
      lease.until,
      lease.owner,
    ])
  }

  async release(runId: string, owner: string, status: RunStatus, error: unknown, now: number): Promise<void> {
    const { rowCount } = await this.#query(
      `UPDATE toolplane_runs SET status = $1, error = $2, owner = NULL, lease_until = NULL, updated_at = $3
         WHERE id = $4 AND owner = $5`,
      [status, json(error), now, runId, owner],
    )
    this.#fenced(runId, rowCount)
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
    const { rowCount } = await this.#query(
      `INSERT INTO toolplane_steps (run_id, step_id, idx, tool, status, arguments, input_schema, expires_at, updated_at)
         SELECT $1::text, $2::text, $3::int, $4::text, 'awaiting_approval', $5::text, $6::text, $7::bigint, $8::bigint WHERE ${held(1, 9)}
         ON CONFLICT (run_id, step_id) DO NOTHING`,
      [runId, step.id, step.index, step.tool, JSON.stringify(args), json(inputSchema), expiresAt, now, owner],
    )
    if (rowCount !== 1 && (await this.step(runId, step.id)) === undefined) throw new LeaseLost(runId)
  }

  async decide(
    runId: string,
    stepId: string,
    to: "approved" | "rejected" | "expired",
    fields: { approvedArguments?: unknown; reason?: string },
    now: number,
  ): Promise<boolean> {
    const { rowCount } = await this.#query(
      `UPDATE toolplane_steps SET status = $1, approved_arguments = $2, reason = $3, updated_at = $4
         WHERE run_id = $5 AND step_id = $6 AND status = 'awaiting_approval'`,
      [to, json(fields.approvedArguments), fields.reason ?? null, now, runId, stepId],
    )
    return rowCount === 1
  }

  async start(runId: string, owner: string, step: StepPosition, args: unknown, now: number): Promise<void> {
    const { rowCount } = await this.#query(
      `INSERT INTO toolplane_steps (run_id, step_id, idx, tool, status, arguments, executions, updated_at)
         SELECT $1::text, $2::text, $3::int, $4::text, 'started', $5::text, 1, $6::bigint WHERE ${held(1, 7)}
         ON CONFLICT (run_id, step_id) DO UPDATE SET status = 'started',
           executions = toolplane_steps.executions + 1, updated_at = excluded.updated_at`,
      [runId, step.id, step.index, step.tool, JSON.stringify(args), now, owner],
    )
    this.#fenced(runId, rowCount)
  }

  async finish(
    runId: string,
    owner: string,
    stepId: string,
    status: "completed" | "failed",
    result: unknown,
    now: number,
  ): Promise<void> {
    const { rowCount } = await this.#query(
      `UPDATE toolplane_steps SET status = $1, result = $2, updated_at = $3
         WHERE run_id = $4 AND step_id = $5 AND ${held(4, 6)}`,
      [status, JSON.stringify(result), now, runId, stepId, owner],
    )
    this.#fenced(runId, rowCount)
  }

  async record(runId: string, owner: string, outcomes: readonly StepOutcome[], now: number): Promise<void> {
    // One statement (so one round trip and one commit) for the whole batch: the rows come from arrays.
    const { rowCount } = await this.#query(
      `INSERT INTO toolplane_steps (run_id, step_id, idx, tool, status, arguments, result, executions, updated_at)
         SELECT $1::text, u.step_id, u.idx, u.tool, u.status, u.arguments, u.result, 1, $3::bigint
         FROM unnest($4::text[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[])
           AS u (step_id, idx, tool, status, arguments, result)
         WHERE ${held(1, 2)}
         ON CONFLICT (run_id, step_id) DO UPDATE SET status = excluded.status, result = excluded.result,
           executions = toolplane_steps.executions + 1, updated_at = excluded.updated_at`,
      [
        runId,
        owner,
        now,
        outcomes.map((o) => o.step.id),
        outcomes.map((o) => o.step.index),
        outcomes.map((o) => o.step.tool),
        outcomes.map((o) => o.status),
        outcomes.map((o) => JSON.stringify(o.args)),
        outcomes.map((o) => JSON.stringify(o.result)),
      ],
    )
    if (rowCount !== outcomes.length) throw new LeaseLost(runId)
  }
}
