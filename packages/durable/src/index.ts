/**
 * @toolplane/durable: durable skills and approvals on Effect's workflow engine (`effect/workflow` on
 * `effect/cluster`). Runs are stored in a SQLite file (Node's built-in `node:sqlite`, embedded) or a
 * PostgreSQL database shared by several runners (distributed); completed steps are never re-executed
 * after a crash; steps that need approval suspend the run until someone approves, edits or rejects them
 * (through the API, `toolplane runs`, or MCP elicitation of a connected caller).
 *
 * @since 0.1.0
 */
export {
  type ApprovalDecision,
  type DurableRunner,
  type DurableRunnerOptions,
  openDurableRunner,
  type RunOptions,
} from "./durableRunner.js"
export {
  type DurableSkillToolOptions,
  durableSkillResult,
  durableSkillTool,
  RUN_META_KEY,
  runIdOfTaskReference,
  runTaskReference,
} from "./durableSkillTool.js"
export {
  ApprovalNotPending,
  RunNotCancellable,
  RunNotFound,
  RunnerClosed,
  StorageUnavailable,
} from "./errors.js"
export type { RunInfo, RunStatus, StepInfo, StepStatus } from "./run.js"
export { type ApproveOptions, openRunStore, type PendingApprovals, type RunStore } from "./runStore.js"
export { isPostgresStorage } from "./storage.js"
