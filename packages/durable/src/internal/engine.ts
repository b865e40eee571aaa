/**
 * The durable engine: Effect's `ClusterWorkflowEngine` (effect/workflow on effect/cluster) over SQL
 * message and runner storage, wired like effect's `SingleRunner` (no runner-to-runner transport: runners
 * sharing a database hand each other messages through storage) but with the sharding settings of a
 * durable runner: a shard-lock lease of `leaseMs` (refreshed every third of it), short storage polls,
 * a fixed number of shards, our table prefix.
 *
 * One workflow, {@link SkillWorkflow}, runs every skill; its payload is the run id (the skill and its
 * input are in the runs table). Each step is an `Activity`; an approval is a `DurableDeferred` per step
 * (plus a `DurableClock` wake-up at its expiry).
 *
 * @internal
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as ClusterWorkflowEngine from "effect/cluster/ClusterWorkflowEngine"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as RunnerHealth from "effect/cluster/RunnerHealth"
import * as Runners from "effect/cluster/Runners"
import * as Sharding from "effect/cluster/Sharding"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as SqlMessageStorage from "effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "effect/cluster/SqlRunnerStorage"
import * as Digest from "effect/crypto/Digest"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as DurableClock from "effect/workflow/DurableClock"
import * as DurableDeferred from "effect/workflow/DurableDeferred"
import * as Workflow from "effect/workflow/Workflow"
import type * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import { isPostgresStorage } from "../storage.js"
import { nodeSqliteClientLayer } from "./nodeSqliteClient.js"
import { ENGINE_PREFIX } from "./runTables.js"

/** Shards per group: a cluster-wide constant (every runner of one database must agree). */
const SHARDS = 32

/** The workflow every durable skill run is an execution of. */
export const SkillWorkflow = Workflow.make("ToolplaneSkill", {
  payload: { runId: Schema.String },
  idempotencyKey: (payload) => payload.runId,
})

/** The approval of one step: completed (with the decision's name) when someone decides it. */
export const approvalDeferred = (stepId: string) =>
  DurableDeferred.make(`approval/${stepId}`, { success: Schema.String })

/** The wake-up of a run at its step's approval expiry. */
export const expiryClock = (stepId: string, ms: number) =>
  DurableClock.make({ name: `approval-expiry/${stepId}`, duration: ms })

/** The `SqlClient` a storage string names: PostgreSQL (`@effect/sql-pg`) or a SQLite file (`node:sqlite`). */
export const sqlClientLayer = (storage: string): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  isPostgresStorage(storage)
    ? PgClient.layer({ url: Redacted.make(storage), maxConnections: 8 })
    : nodeSqliteClientLayer({ filename: storage })

export interface EngineOptions {
  /** This runner's identity; also its address in the engine's runner table. */
  readonly runnerId: string
  /** Shard-lock lease (ms): how long a dead runner's runs wait before another runner takes them. */
  readonly leaseMs: number
  /** How often storage is polled for messages from other processes (ms). */
  readonly pollMs: number
}

/** The address this runner registers under (its id; the port is unused: no runner-to-runner transport). */
export const runnerAddress = (runnerId: string) => RunnerAddress.make(runnerId, 1)

/** The engine's layer over a `SqlClient`: `WorkflowEngine` and `Sharding`. */
export const engineLayer = (
  options: EngineOptions,
): Layer.Layer<WorkflowEngine.WorkflowEngine | Sharding.Sharding, never, SqlClient.SqlClient> => {
  const config = ShardingConfig.layer({
    runnerAddress: Option.some(runnerAddress(options.runnerId)),
    shardsPerGroup: SHARDS,
    shardLockExpiration: options.leaseMs,
    shardLockRefreshInterval: Math.max(100, Math.floor(options.leaseMs / 3)),
    refreshAssignmentsInterval: Math.max(100, Math.min(1000, Math.floor(options.leaseMs / 3))),
    entityMessagePollInterval: options.pollMs,
    entityReplyPollInterval: Math.min(100, options.pollMs),
    // A runner that closes, or hands shards over when runners join or leave, lets the steps in progress
    // finish (up to half the lease) before the next owner takes the shard; a step cut off after that
    // is re-executed there only if idempotent.
    entityTerminationTimeout: Math.floor(options.leaseMs / 2),
    simulateRemoteSerialization: false,
  })
  const sharding = Sharding.layer.pipe(
    Layer.provideMerge(Runners.layerNoop),
    Layer.provideMerge(SqlMessageStorage.layerWith({ prefix: ENGINE_PREFIX })),
    Layer.provide([
      Layer.orDie(SqlRunnerStorage.layerWith({ prefix: ENGINE_PREFIX })),
      RunnerHealth.layerNoop,
    ]),
    Layer.provide(config),
    Layer.provide(Digest.layerWebCrypto),
  )
  return ClusterWorkflowEngine.layer.pipe(Layer.provideMerge(sharding))
}
