/**
 * @toolplane/durable: durable skills and approvals. Runs are journaled in a SQLite file (Node's built-in
 * `node:sqlite`); completed steps are never re-executed after a crash; steps that need approval suspend
 * the run until someone approves, edits or rejects them.
 *
 * @since 0.2.0
 */
export {
  type DurableRunner,
  type DurableRunnerOptions,
  openDurableRunner,
} from "./durableRunner.js"
export { ApprovalNotPending, RunNotFound } from "./errors.js"
export type { RunInfo, RunStatus, StepInfo, StepStatus } from "./run.js"
export { type ApproveOptions, openRunStore, type RunStore } from "./runStore.js"
