// Prototype: a Workflow with Activities and a DurableDeferred on ClusterWorkflowEngine + SingleRunner over
// our node:sqlite SqlClient (or @effect/sql-pg). Usage:
//   tsx engineProto.ts run <db> <runId> <port>     start/continue the run; exits when it completes
//   tsx engineProto.ts approve <db> <runId> <port> resolve the approval deferred from another process
import { appendFileSync, readFileSync } from "node:fs"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as ClusterWorkflowEngine from "effect/cluster/ClusterWorkflowEngine"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as SingleRunner from "effect/cluster/SingleRunner"
import * as Digest from "effect/crypto/Digest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Activity from "effect/workflow/Activity"
import * as DurableDeferred from "effect/workflow/DurableDeferred"
import * as Workflow from "effect/workflow/Workflow"
import { nodeSqliteClientLayer } from "../../src/internal/nodeSqliteClient.js"

const [mode, db, runId, port, counts] = process.argv.slice(2) as [string, string, string, string, string]

const Skill = Workflow.make("Skill", {
  payload: { runId: Schema.String },
  idempotencyKey: (p) => p.runId,
  success: Schema.String,
})
const Approval = DurableDeferred.make("approve-3", { success: Schema.String })

const step = (n: number) =>
  Activity.make({
    name: `step-${n}`,
    success: Schema.Number,
    execute: Effect.sync(() => {
      appendFileSync(counts, `${n}\n`)
      console.log(`[${process.pid}] executing step ${n}`)
      return n
    }),
  })

const SkillLive = Skill.toLayer(
  Effect.fn(function* () {
    yield* step(1)
    yield* step(2)
    console.log(`[${process.pid}] awaiting approval`)
    const decision = yield* DurableDeferred.await(Approval)
    console.log(`[${process.pid}] approval: ${decision}`)
    yield* step(3)
    yield* step(4)
    yield* step(5)
    return `done(${decision})`
  }),
)

const sql = db.startsWith("postgres")
  ? PgClient.layer({ url: Redacted.make(db) })
  : nodeSqliteClientLayer({ filename: db })

const cluster = SingleRunner.layer({
  shardingConfig: {
    runnerAddress: Option.some(RunnerAddress.make("127.0.0.1", Number(port))),
    shardsPerGroup: 16,
    entityMessagePollInterval: 200,
    entityReplyPollInterval: 100,
    refreshAssignmentsInterval: 500,
    shardLockRefreshInterval: 1000,
    shardLockExpiration: 3000,
  },
}).pipe(Layer.provide(Digest.layerWebCrypto))

const engine = ClusterWorkflowEngine.layer.pipe(Layer.provideMerge(cluster))
const app = SkillLive.pipe(Layer.provideMerge(engine), Layer.provide(sql))

const program = Effect.gen(function* () {
  const t0 = Date.now()
  if (mode === "run") {
    const executionId = yield* Skill.executionId({ runId })
    yield* Skill.execute({ runId }, { discard: true })
    console.log(`[${process.pid}] started ${executionId}`)
    while (true) {
      const result = yield* Skill.poll(executionId)
      if (Option.isSome(result) && result.value._tag === "Complete") {
        console.log(`[${process.pid}] complete`, JSON.stringify(Exit.isSuccess(result.value.exit) ? result.value.exit.value : "failure"), `${Date.now() - t0}ms`)
        return
      }
      yield* Effect.sleep(100)
    }
  } else {
    const executionId = yield* Skill.executionId({ runId })
    const token = DurableDeferred.tokenFromExecutionId(Approval, { workflow: Skill, executionId })
    yield* DurableDeferred.succeed(Approval, { token, value: "approved" })
    console.log(`[${process.pid}] approved ${executionId} ${Date.now() - t0}ms`)
  }
})

Effect.runPromise(program.pipe(Effect.provide(app))).then(
  () => process.exit(0),
  (e) => {
    console.error("FAILED", e)
    process.exit(1)
  },
)
void readFileSync
