/**
 * The execution context of a call: the caller's context as is, or one built from the caller's init
 * with foundation's cheap `makeContext` (counter-based call ids, one object).
 *
 * @since 0.1.0
 */
import {
  type ExecutionContext,
  type ExecutionContextInit,
  isExecutionContext,
  makeContext,
  neverAborted,
} from "@toolplane/foundation"

/** The never-aborting signal of a context made without one. */
export const NEVER_ABORTED: AbortSignal = neverAborted

/**
 * The context of a call: the caller's context as is, or one built from the caller's init.
 *
 * @since 0.1.0
 */
export const callContext = (value: ExecutionContext | ExecutionContextInit | undefined): ExecutionContext =>
  value !== undefined && isExecutionContext(value) ? value : makeContext(value)
