/**
 * The journal: what the durable runner and the run store need from storage, two tables (runs, steps),
 * implemented over SQLite (`sqliteJournal.ts`, Node's built-in `node:sqlite`, one file) and PostgreSQL
 * (`postgresJournal.ts`, the `pg` client, shared by several runner processes).
 *
 * Ownership: a run being executed is leased to one runner (`owner`, `lease_until`). Every write a runner
 * makes while executing a run is fenced: it happens only while the run is still leased to that runner,
 * in the same statement (or transaction) as the check, so a runner that lost its lease (it stalled past
 * the lease and another runner took the run over) cannot journal one more step; it gets `LeaseLost`.
 *
 * @internal
 */
import type { RunInfo, RunStatus, StepInfo, StepStatus } from "../run.js"

/** A step as the runner and the store read it: its info plus the tool's input schema. */
export type StepRecord = StepInfo & { readonly inputSchema?: unknown }

/** A run row: the stored skill and input, the info, and who holds it. */
export interface RunRecord {
  readonly skill: unknown
  readonly input: Record<string, unknown>
  readonly info: RunInfo
  readonly owner?: string
  readonly leaseUntil?: number
}

/** Where a step sits in the plan. */
export interface StepPosition {
  readonly id: string
  readonly index: number
  readonly tool: string
}

/** A finished step, for {@link Journal.record}. */
export interface StepOutcome {
  readonly step: StepPosition
  readonly args: unknown
  readonly status: "completed" | "failed"
  readonly result: unknown
}

/** A runner's lease on the runs it executes. */
export interface Lease {
  readonly owner: string
  /** Epoch ms after which another runner may take the run over. */
  readonly until: number
}

/** Which runs a runner claims in one sweep. */
export interface ClaimFilter {
  /** Take `running` runs whose lease expired (or that have no owner): their runner died. */
  readonly orphaned: boolean
  /** Take every `suspended` run (`recover`), or only those with a decision to apply or an overdue approval. */
  readonly suspended: "all" | "decided"
  /** At most this many runs per sweep. */
  readonly limit: number
}

/** The storage of durable runs. Every method is one statement or one transaction. */
export interface Journal {
  /** The file, or the database URL without its password (for messages). */
  readonly location: string
  createRun(id: string, skill: unknown, input: unknown, lease: Lease, now: number): Promise<void>
  run(id: string): Promise<RunRecord | undefined>
  list(status?: RunStatus): Promise<RunInfo[]>
  step(runId: string, stepId: string): Promise<StepRecord | undefined>
  steps(runId: string): Promise<Map<string, StepRecord>>
  /**
   * Takes the run for `lease.owner` when it is `running` or `suspended` and unowned, its lease expired,
   * or already owned by `lease.owner`; false otherwise (another live runner holds it, or it finished).
   */
  claim(runId: string, lease: Lease, now: number): Promise<boolean>
  /** Claims the runs matching `filter` for `lease.owner` (skipping rows other runners are claiming); their ids, oldest first. */
  claimMany(filter: ClaimFilter, lease: Lease, now: number): Promise<string[]>
  /** Extends the lease of every `running` run `lease.owner` holds. */
  renew(lease: Lease): Promise<void>
  /** Sets a held run's status and releases it (fenced). */
  release(runId: string, owner: string, status: RunStatus, error: unknown, now: number): Promise<void>
  /** Records a step waiting for approval (fenced). */
  awaitApproval(
    runId: string,
    owner: string,
    step: StepPosition,
    args: unknown,
    inputSchema: unknown,
    expiresAt: number | null,
    now: number,
  ): Promise<void>
  /** Moves a step from `awaiting_approval` to `to`; false when it was not waiting (a concurrent decision). */
  decide(
    runId: string,
    stepId: string,
    to: "approved" | "rejected" | "expired",
    fields: { approvedArguments?: unknown; reason?: string },
    now: number,
  ): Promise<boolean>
  /** Marks a step started, counting the execution (fenced). */
  start(runId: string, owner: string, step: StepPosition, args: unknown, now: number): Promise<void>
  /** Records the outcome of a step marked started by {@link Journal.start} (fenced). */
  finish(
    runId: string,
    owner: string,
    stepId: string,
    status: "completed" | "failed",
    result: unknown,
    now: number,
  ): Promise<void>
  /**
   * Records the outcomes of idempotent steps that were not marked started (each counts one execution),
   * all in one transaction (fenced): the runner group-commits consecutive idempotent steps.
   */
  record(runId: string, owner: string, outcomes: readonly StepOutcome[], now: number): Promise<void>
  close(): Promise<void>
}

/** A fenced write found the run no longer leased to this runner. */
export class LeaseLost extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId} is no longer leased to this runner`)
    this.name = "LeaseLost"
  }
}

/** The columns both implementations store (times as epoch ms, JSON as text). */
export interface RunRow {
  id: string
  skill: string
  input: string
  status: string
  error: string | null
  owner: string | null
  lease_until: number | string | null
  created_at: number | string
  updated_at: number | string
}

export interface StepRow {
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
  expires_at: number | string | null
  executions: number
  updated_at: number | string
}

const parse = (text: string | null): unknown => (text === null ? undefined : JSON.parse(text))

/** A row as public step info (built field by field: this runs for every step of every read run). */
const toInfo = (row: StepRow): StepInfo => {
  const info: {
    -readonly [K in keyof StepInfo]: StepInfo[K]
  } = {
    stepId: row.step_id,
    index: Number(row.idx),
    tool: row.tool,
    status: row.status as StepStatus,
    arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    executions: Number(row.executions),
  }
  if (row.approved_arguments !== null) info.approvedArguments = JSON.parse(row.approved_arguments)
  if (row.result !== null) info.result = JSON.parse(row.result)
  if (row.reason !== null) info.reason = row.reason
  if (row.expires_at !== null) info.expiresAt = new Date(Number(row.expires_at)).toISOString()
  return info
}

/** A row with its tool's input schema (what the runner and the store's approvals need). */
export const toStep = (row: StepRow): StepRecord =>
  row.input_schema === null ? toInfo(row) : { ...toInfo(row), inputSchema: parse(row.input_schema) }

/** A step's public info (without the stored input schema). */
export const stepInfo = (step: StepRecord): StepInfo => {
  const { inputSchema: _schema, ...info } = step
  return info
}

export const toRecord = (row: RunRow, steps: readonly StepRow[]): RunRecord => {
  const skill = JSON.parse(row.skill) as { name?: string }
  return {
    skill,
    input: JSON.parse(row.input),
    info: {
      runId: row.id,
      skill: skill.name ?? "(unnamed)",
      status: row.status as RunStatus,
      ...(row.error !== null ? { error: JSON.parse(row.error) } : {}),
      ...(row.owner !== null ? { owner: row.owner } : {}),
      ...(row.lease_until !== null
        ? { leaseExpiresAt: new Date(Number(row.lease_until)).toISOString() }
        : {}),
      createdAt: new Date(Number(row.created_at)).toISOString(),
      updatedAt: new Date(Number(row.updated_at)).toISOString(),
      steps: [...steps].sort((a, b) => Number(a.idx) - Number(b.idx)).map(toInfo),
    },
    ...(row.owner !== null ? { owner: row.owner } : {}),
    ...(row.lease_until !== null ? { leaseUntil: Number(row.lease_until) } : {}),
  }
}

/** A URL without its password, for messages. */
export const redactUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = "***"
    return parsed.toString()
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@")
  }
}
