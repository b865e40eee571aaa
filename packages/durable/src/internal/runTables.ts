/**
 * The queryable side of durable runs, beside the workflow engine's own tables: one row per run (status,
 * owner, the stored skill and input) and one per journaled step (arguments, approval decision, result,
 * execution count). The engine (effect/cluster's message storage) is what makes runs durable and
 * resumes them; these two tables are what `list`/`show`/`toolplane runs` read, where approval decisions
 * are recorded (first decision wins), and the "started" mark that stops a non-idempotent step from being
 * called twice when the engine re-delivers its activity after a crash.
 *
 * Every method is one statement (or one small transaction) over an Effect `SqlClient` (our node:sqlite
 * driver, or @effect/sql-pg), so several processes may share the tables.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { RunInfo, RunStatus, StepInfo, StepStatus } from "../run.js"

export const RUNS = "toolplane_wf_runs"
export const STEPS = "toolplane_wf_steps"
/** The engine's tables are prefixed with this (effect/cluster's SqlMessageStorage and SqlRunnerStorage). */
export const ENGINE_PREFIX = "toolplane_cluster"

/** A step as the runner and the store read it: its info plus the tool's input schema and last write. */
export type StepRecord = StepInfo & { readonly inputSchema?: unknown; readonly updatedMs?: number }

/** A run row: the stored skill and input, the info, and engine bookkeeping. */
export interface RunRecord {
  readonly skill: unknown
  readonly input: Record<string, unknown>
  readonly info: RunInfo
  readonly executionId: string
  /** Bumped by every status write: waiters compare it. */
  readonly seq: number
}

/** Where a step sits in the plan. */
export interface StepPosition {
  readonly id: string
  readonly index: number
  readonly tool: string
}

/** A decided (or overdue) approval a runner has to hand to the engine. */
export interface PendingDecision {
  readonly runId: string
  readonly stepId: string
  readonly status: StepStatus
}

type Row = Record<string, unknown>

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value))
const parse = (text: unknown): unknown =>
  text === null || text === undefined ? undefined : JSON.parse(String(text))
const num = (value: unknown): number => Number(value)
const iso = (ms: unknown): string => new Date(Number(ms)).toISOString()
/** The engine's heartbeat column: SQLite `YYYY-MM-DD HH:MM:SS` (UTC), PostgreSQL a Date or string. */
const heartbeatMs = (value: unknown): number | undefined => {
  if (value instanceof Date) return value.getTime()
  if (typeof value !== "string") return undefined
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(" ", "T")}Z`)
  return Number.isNaN(ms) ? undefined : ms
}

const toInfo = (row: Row): StepInfo => {
  const info: { -readonly [K in keyof StepInfo]: StepInfo[K] } = {
    stepId: String(row.step_id),
    index: num(row.idx),
    tool: String(row.tool),
    status: row.status as StepStatus,
    arguments: parse(row.arguments) as Record<string, unknown>,
    executions: num(row.executions),
  }
  if (row.approved_arguments !== null) info.approvedArguments = parse(row.approved_arguments) as never
  if (row.result !== null) info.result = parse(row.result) as never
  if (row.reason !== null) info.reason = String(row.reason)
  if (row.expires_at !== null) info.expiresAt = iso(row.expires_at)
  if (row.requested_at !== null && row.requested_at !== undefined) info.requestedAt = iso(row.requested_at)
  if (row.decided_by !== null && row.decided_by !== undefined) info.decidedBy = String(row.decided_by)
  return info
}

const toStep = (row: Row): StepRecord => ({
  ...toInfo(row),
  ...(row.input_schema === null ? {} : { inputSchema: parse(row.input_schema) }),
  updatedMs: num(row.updated_at),
})

/** A step's public info (without the stored input schema and last write). */
export const stepInfo = (step: StepRecord): StepInfo => {
  const { inputSchema: _schema, updatedMs: _updated, ...info } = step
  return info
}

const toRecord = (row: Row, steps: readonly Row[]): RunRecord => {
  const skill = parse(row.skill) as { name?: string }
  const running = row.status === "running" && row.owner !== null
  const heartbeat = heartbeatMs(row.last_heartbeat)
  return {
    skill,
    input: parse(row.input) as Record<string, unknown>,
    executionId: String(row.execution_id),
    seq: num(row.seq),
    info: {
      runId: String(row.id),
      skill: skill.name ?? "(unnamed)",
      status: row.status as RunStatus,
      ...(row.error !== null ? { error: parse(row.error) } : {}),
      ...(running ? { owner: String(row.owner) } : {}),
      ...(running && heartbeat !== undefined && row.lease_ms !== null
        ? { leaseExpiresAt: new Date(heartbeat + num(row.lease_ms)).toISOString() }
        : {}),
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
      steps: [...steps].sort((a, b) => num(a.idx) - num(b.idx)).map(toInfo),
    },
  }
}

export interface RunTables {
  readonly location: string
  createRun(
    id: string,
    executionId: string,
    skill: unknown,
    input: unknown,
    now: number,
  ): Effect.Effect<void, SqlError>
  run(id: string): Effect.Effect<RunRecord | undefined, SqlError>
  list(status?: RunStatus): Effect.Effect<RunInfo[], SqlError>
  /** Runs in one of these statuses (id, execution id, owner), oldest first. */
  runsIn(
    statuses: readonly RunStatus[],
  ): Effect.Effect<{ id: string; executionId: string; owner?: string; seq: number }[], SqlError>
  step(runId: string, stepId: string): Effect.Effect<StepRecord | undefined, SqlError>
  /** Sets a run's status (and who executes it) and bumps its `seq`. */
  setRun(
    runId: string,
    status: RunStatus,
    fields: { owner?: string; ownerAddress?: string; leaseMs?: number; error?: unknown },
    now: number,
  ): Effect.Effect<void, SqlError>
  /** Moves a running or suspended run to the final `cancelled` state; false when it was not live. */
  cancelRun(
    runId: string,
    fields: { reason?: string; channel?: string },
    now: number,
  ): Effect.Effect<boolean, SqlError>
  /** Records a step waiting for approval, unless it already has a row. */
  requestApproval(
    runId: string,
    step: StepPosition,
    args: unknown,
    inputSchema: unknown,
    expiresAt: number | null,
    now: number,
  ): Effect.Effect<void, SqlError>
  /** Moves a step from `awaiting_approval` to `to`; false when it was not waiting (a concurrent decision). */
  decide(
    runId: string,
    stepId: string,
    to: "approved" | "rejected" | "expired",
    fields: { approvedArguments?: unknown; reason?: string; channel?: string },
    now: number,
  ): Effect.Effect<boolean, SqlError>
  /** The steps waiting for approval in the whole store: how many, and the oldest one's request time. */
  awaiting(): Effect.Effect<{ count: number; oldestRequestedAt?: number }, SqlError>
  /** Decisions not yet handed to the engine (of suspended runs), and approvals overdue at `now`. */
  pendingDecisions(now: number): Effect.Effect<PendingDecision[], SqlError>
  /** Takes the hand-over of a decision (one runner only); false when another runner took it. */
  claimDelivery(runId: string, stepId: string): Effect.Effect<boolean, SqlError>
  /** Marks a non-idempotent step started before its call, counting the execution; returns the count. */
  startStep(runId: string, step: StepPosition, args: unknown, now: number): Effect.Effect<number, SqlError>
  /**
   * Records the outcome of a step marked started, fenced: only while it is still `started` with this
   * execution count (another runner that took the run over and settled the step wins). False when fenced.
   */
  finishStarted(
    runId: string,
    stepId: string,
    executions: number,
    status: "completed" | "failed",
    result: unknown,
    now: number,
  ): Effect.Effect<boolean, SqlError>
  /** Records the outcome of an idempotent step (one execution), unless the step is already completed. */
  recordStep(
    runId: string,
    step: StepPosition,
    args: unknown,
    status: "completed" | "failed",
    result: unknown,
    now: number,
  ): Effect.Effect<void, SqlError>
}

/** Creates the tables if missing and returns their queries. */
export const makeRunTables = (sql: SqlClient, location: string): Effect.Effect<RunTables, SqlError> =>
  Effect.gen(function* () {
    const bigint = sql.onDialectOrElse({ pg: () => "BIGINT", orElse: () => "INTEGER" })
    const create = Effect.gen(function* () {
      yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${RUNS} (
        id TEXT PRIMARY KEY,
        execution_id TEXT NOT NULL,
        skill TEXT NOT NULL,
        input TEXT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        owner TEXT,
        owner_address TEXT,
        lease_ms ${bigint},
        seq ${bigint} NOT NULL DEFAULT 0,
        created_at ${bigint} NOT NULL,
        updated_at ${bigint} NOT NULL
      )`)
      yield* sql.unsafe(`CREATE INDEX IF NOT EXISTS ${RUNS}_status ON ${RUNS} (status)`)
      yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${STEPS} (
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
        expires_at ${bigint},
        executions INTEGER NOT NULL DEFAULT 0,
        delivered INTEGER NOT NULL DEFAULT 0,
        updated_at ${bigint} NOT NULL,
        PRIMARY KEY (run_id, step_id)
      )`)
    })
    // Columns added after 0.1.0 (approval metrics): stores made by 0.1.0 get them on open.
    const added: readonly (readonly [string, string])[] = [
      ["requested_at", bigint],
      ["decided_by", "TEXT"],
    ]
    const migrate = sql.onDialectOrElse({
      pg: () =>
        Effect.forEach(added, ([column, type]) =>
          sql.unsafe(`ALTER TABLE ${STEPS} ADD COLUMN IF NOT EXISTS ${column} ${type}`),
        ),
      orElse: () =>
        sql.unsafe<Row>(`PRAGMA table_info(${STEPS})`).pipe(
          Effect.flatMap((columns) =>
            Effect.forEach(
              added.filter(([column]) => !columns.some((c) => c.name === column)),
              ([column, type]) =>
                sql.unsafe(`ALTER TABLE ${STEPS} ADD COLUMN ${column} ${type}`).pipe(
                  // Another process added it meanwhile.
                  Effect.catchIf(
                    (error) => /duplicate column/i.test(String(error.cause ?? error.message)),
                    () => Effect.succeed([]),
                  ),
                ),
            ),
          ),
        ),
    })
    // Runners starting at once on a fresh PostgreSQL database would race on CREATE TABLE: one at a time.
    yield* sql.onDialectOrElse({
      pg: () =>
        sql.withTransaction(
          sql`SELECT pg_advisory_xact_lock(7263021)`.pipe(Effect.andThen(create), Effect.andThen(migrate)),
        ),
      orElse: () => create.pipe(Effect.andThen(migrate)),
    })
    const runners = `${ENGINE_PREFIX}_runners`
    /** The engine's runner table exists once a runner opened the store (a store alone may come first). */
    let runnersPresent = false
    const hasRunners = Effect.suspend(() =>
      runnersPresent
        ? Effect.succeed(true)
        : sql
            .onDialectOrElse({
              pg: () => sql<Row>`SELECT to_regclass(${runners}) IS NOT NULL AS present`,
              orElse: () =>
                sql<Row>`SELECT count(*) > 0 AS present FROM sqlite_master WHERE name = ${runners}`,
            })
            .pipe(
              Effect.map((rows) => {
                const present = rows[0]?.present
                runnersPresent = present === true || Number(present) > 0
                return runnersPresent
              }),
            ),
    )
    const runColumns = (withLease: boolean) =>
      withLease
        ? sql.literal(
            `r.*, h.last_heartbeat AS last_heartbeat FROM ${RUNS} r LEFT JOIN ${runners} h ON h.address = r.owner_address`,
          )
        : sql.literal(`r.*, NULL AS last_heartbeat FROM ${RUNS} r`)
    const stepsOf = (runIds: readonly string[]): Effect.Effect<ReadonlyArray<Row>, SqlError> =>
      runIds.length === 0
        ? Effect.succeed([])
        : sql<Row>`SELECT * FROM ${sql(STEPS)} WHERE ${sql.in("run_id", runIds)}`
    const withSteps = (rows: readonly Row[]): Effect.Effect<RunRecord[], SqlError> =>
      stepsOf(rows.map((r) => String(r.id))).pipe(
        Effect.map((steps) =>
          rows.map((row) =>
            toRecord(
              row,
              steps.filter((s) => s.run_id === row.id),
            ),
          ),
        ),
      )

    const tables: RunTables = {
      location,
      createRun: (id, executionId, skill, input, now) =>
        sql`INSERT INTO ${sql(RUNS)} (id, execution_id, skill, input, status, seq, created_at, updated_at)
            VALUES (${id}, ${executionId}, ${JSON.stringify(skill)}, ${JSON.stringify(input)}, 'running', 0, ${now}, ${now})`.pipe(
          Effect.asVoid,
        ),
      run: (id) =>
        Effect.gen(function* () {
          const rows = yield* sql<Row>`SELECT ${runColumns(yield* hasRunners)} WHERE r.id = ${id}`
          if (rows.length === 0) return undefined
          return (yield* withSteps(rows))[0]
        }),
      list: (status) =>
        Effect.gen(function* () {
          const columns = runColumns(yield* hasRunners)
          const rows =
            status === undefined
              ? yield* sql<Row>`SELECT ${columns} ORDER BY r.created_at, r.id`
              : yield* sql<Row>`SELECT ${columns} WHERE r.status = ${status} ORDER BY r.created_at, r.id`
          return (yield* withSteps(rows)).map((r) => r.info)
        }),
      runsIn: (statuses) =>
        sql<Row>`SELECT id, execution_id, owner, seq FROM ${sql(RUNS)} WHERE ${sql.in("status", statuses)} ORDER BY created_at, id`.pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              id: String(r.id),
              executionId: String(r.execution_id),
              ...(r.owner !== null ? { owner: String(r.owner) } : {}),
              seq: num(r.seq),
            })),
          ),
        ),
      step: (runId, stepId) =>
        sql<Row>`SELECT * FROM ${sql(STEPS)} WHERE run_id = ${runId} AND step_id = ${stepId}`.pipe(
          Effect.map((rows) => (rows[0] === undefined ? undefined : toStep(rows[0]))),
        ),
      setRun: (runId, status, fields, now) =>
        sql`UPDATE ${sql(RUNS)} SET status = ${status}, owner = ${fields.owner ?? null},
              owner_address = ${fields.ownerAddress ?? null}, lease_ms = ${fields.leaseMs ?? null},
              error = ${json(fields.error)}, seq = seq + 1, updated_at = ${now}
            WHERE id = ${runId} AND status <> 'cancelled'`.pipe(Effect.asVoid),
      cancelRun: (runId, fields, now) =>
        sql<Row>`UPDATE ${sql(RUNS)} SET status = 'cancelled', owner = NULL, owner_address = NULL, lease_ms = NULL,
              error = ${json({ _tag: "RunCancelled", reason: fields.reason, channel: fields.channel })}, seq = seq + 1, updated_at = ${now}
            WHERE id = ${runId} AND status IN ('running', 'suspended')
            RETURNING id`.pipe(Effect.map((rows) => rows.length > 0)),
      requestApproval: (runId, step, args, inputSchema, expiresAt, now) =>
        sql`INSERT INTO ${sql(STEPS)} (run_id, step_id, idx, tool, status, arguments, input_schema, expires_at, executions, delivered, updated_at, requested_at)
            VALUES (${runId}, ${step.id}, ${step.index}, ${step.tool}, 'awaiting_approval', ${JSON.stringify(args)},
                    ${json(inputSchema)}, ${expiresAt}, 0, 0, ${now}, ${now})
            ON CONFLICT (run_id, step_id) DO NOTHING`.pipe(Effect.asVoid),
      decide: (runId, stepId, to, fields, now) =>
        sql<Row>`UPDATE ${sql(STEPS)} SET status = ${to}, approved_arguments = ${json(fields.approvedArguments)},
              reason = ${fields.reason ?? null}, decided_by = ${fields.channel ?? null}, delivered = 0, updated_at = ${now}
            WHERE run_id = ${runId} AND step_id = ${stepId} AND status = 'awaiting_approval'
            RETURNING step_id`.pipe(Effect.map((rows) => rows.length > 0)),
      awaiting: () =>
        sql<Row>`SELECT count(*) AS n, min(coalesce(requested_at, updated_at)) AS oldest FROM ${sql(STEPS)}
            WHERE status = 'awaiting_approval'`.pipe(
          Effect.map((rows) => {
            const n = num(rows[0]?.n ?? 0)
            const oldest = rows[0]?.oldest
            return n > 0 && oldest !== null && oldest !== undefined
              ? { count: n, oldestRequestedAt: num(oldest) }
              : { count: n }
          }),
        ),
      pendingDecisions: (now) =>
        sql<Row>`SELECT s.run_id, s.step_id, s.status FROM ${sql(STEPS)} s JOIN ${sql(RUNS)} r ON r.id = s.run_id
            WHERE r.status = 'suspended' AND (
              (s.status IN ('approved', 'rejected', 'expired') AND s.delivered = 0)
              OR (s.status = 'awaiting_approval' AND s.expires_at IS NOT NULL AND s.expires_at <= ${now}))
            ORDER BY r.created_at, r.id`.pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              runId: String(r.run_id),
              stepId: String(r.step_id),
              status: r.status as StepStatus,
            })),
          ),
        ),
      claimDelivery: (runId, stepId) =>
        sql<Row>`UPDATE ${sql(STEPS)} SET delivered = 1
            WHERE run_id = ${runId} AND step_id = ${stepId} AND delivered = 0
              AND status IN ('approved', 'rejected', 'expired')
            RETURNING step_id`.pipe(Effect.map((rows) => rows.length > 0)),
      startStep: (runId, step, args, now) =>
        sql<Row>`INSERT INTO ${sql(STEPS)} (run_id, step_id, idx, tool, status, arguments, executions, delivered, updated_at)
            VALUES (${runId}, ${step.id}, ${step.index}, ${step.tool}, 'started', ${JSON.stringify(args)}, 1, 1, ${now})
            ON CONFLICT (run_id, step_id) DO UPDATE SET status = 'started',
              executions = ${sql(STEPS)}.executions + 1, updated_at = excluded.updated_at
            RETURNING executions`.pipe(Effect.map((rows) => num(rows[0]?.executions))),
      finishStarted: (runId, stepId, executions, status, result, now) =>
        sql<Row>`UPDATE ${sql(STEPS)} SET status = ${status}, result = ${JSON.stringify(result)}, updated_at = ${now}
            WHERE run_id = ${runId} AND step_id = ${stepId} AND status = 'started' AND executions = ${executions}
            RETURNING step_id`.pipe(Effect.map((rows) => rows.length > 0)),
      recordStep: (runId, step, args, status, result, now) =>
        sql`INSERT INTO ${sql(STEPS)} (run_id, step_id, idx, tool, status, arguments, result, executions, delivered, updated_at)
            VALUES (${runId}, ${step.id}, ${step.index}, ${step.tool}, ${status}, ${JSON.stringify(args)},
                    ${JSON.stringify(result)}, 1, 1, ${now})
            ON CONFLICT (run_id, step_id) DO UPDATE SET status = excluded.status, result = excluded.result,
              executions = ${sql(STEPS)}.executions + 1, updated_at = excluded.updated_at
            WHERE ${sql(STEPS)}.status <> 'completed'`.pipe(Effect.asVoid),
    }
    return tables
  })
