/**
 * Building the execution context of a call cheaply. Foundation's `makeContext` draws a random UUID per
 * call (about 250 ns, more than the rest of the pipeline); the runner instead numbers calls under a
 * per-process random prefix when the caller gave no `callId`, and builds the context in one literal.
 * The result is a regular foundation context (`isExecutionContext` is true).
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import {
  type ExecutionContext,
  type ExecutionContextInit,
  isExecutionContext,
  makeContext,
} from "@toolplane/foundation"

/** Foundation brands its contexts with this registered symbol (see `isExecutionContext`). */
const BRAND = Symbol.for("@toolplane/foundation/ExecutionContext")
/** The never-aborting signal of a context made without one (foundation shares a single instance). */
export const NEVER_ABORTED: AbortSignal = makeContext().signal
const PREFIX = `${randomUUID().slice(0, 8)}-`
const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({})
const ignoreProgress = (): void => {}
let counter = 0

/**
 * A call id unique within this process and unlikely to collide across processes.
 *
 * @since 0.1.0
 */
export const nextCallId = (): string => PREFIX + (++counter).toString(36)

const brandWorks = isExecutionContext({ [BRAND]: true })

/**
 * The context of a call: the caller's context as is, or one built from the caller's init.
 *
 * @since 0.1.0
 */
export const callContext = (value: ExecutionContext | ExecutionContextInit | undefined): ExecutionContext => {
  if (value === undefined) {
    if (!brandWorks) return makeContext({ callId: nextCallId() })
    return {
      [BRAND]: true,
      callId: nextCallId(),
      signal: NEVER_ABORTED,
      reportProgress: ignoreProgress,
      metadata: EMPTY,
    } as unknown as ExecutionContext
  }
  if (isExecutionContext(value)) return value
  return makeContext(value.callId === undefined ? { ...value, callId: nextCallId() } : value)
}
