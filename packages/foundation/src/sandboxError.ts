/**
 * The typed failures of a sandboxed program (see `Sandbox` in `@toolplane/exec`). They are members of the
 * `ToolError` family ({@link TaggedToolError}, declared in `ToolErrorExtensions`): tagged, branded, with a
 * stable `code`; `toolErrorToJson` serializes them and `toolErrorFromJson` rebuilds them (their decoders
 * are registered when this module loads).
 * Each carries the console output the program wrote before it failed (`logs`), so a model sees what
 * happened.
 *
 * @since 0.1.0
 */
import { type ErrorCause, registerToolErrorDecoder, TaggedToolError } from "./toolError.js"

const withLogs = (message: string, logs: readonly string[] | undefined): string =>
  logs && logs.length > 0 ? `${message}\nConsole output before the failure:\n${logs.join("\n")}` : message

/**
 * The program ran past its wall-clock budget and was stopped (from inside the engine, or by terminating
 * the thread running it when a native loop never yields). The budget counts from the request: `queuedMs`
 * (since 0.3.0) is the part of it spent waiting for a free sandbox.
 *
 * @since 0.1.0
 */
export class SandboxTimeout extends TaggedToolError("SandboxTimeout")<{
  readonly timeoutMs: number
  readonly queuedMs?: number | undefined
  readonly logs?: readonly string[] | undefined
}> {
  readonly code = "SANDBOX_TIMEOUT"
  override get message(): string {
    const queued =
      this.queuedMs !== undefined && this.queuedMs > 0
        ? ` (${Math.round(this.queuedMs)} ms of it waiting for a free sandbox)`
        : ""
    return withLogs(
      `The program did not finish within ${this.timeoutMs} ms${queued} and was stopped`,
      this.logs,
    )
  }
}

/**
 * The program exceeded its memory cap and was stopped.
 *
 * @since 0.1.0
 */
export class SandboxMemory extends TaggedToolError("SandboxMemory")<{
  readonly limitBytes: number
  readonly logs?: readonly string[] | undefined
}> {
  readonly code = "SANDBOX_MEMORY"
  override get message(): string {
    return withLogs(
      `The program exceeded its memory limit of ${Math.round(this.limitBytes / 2 ** 20)} MiB and was stopped`,
      this.logs,
    )
  }
}

/** Which counted limit a {@link SandboxLimit} is about. */
type SandboxLimitKind = "output" | "calls" | "cpu" | "arguments" | "queue"

/**
 * The program exceeded a counted limit: `"output"` (bytes of result plus console output), `"calls"`
 * (number of host calls), `"cpu"` (milliseconds spent running, time waiting for host calls excluded),
 * `"arguments"` (bytes of one host call's arguments, since 0.3.0) or `"queue"` (its caller already had
 * `max` programs waiting for the sandbox: the program was refused without running, since 0.3.0).
 *
 * @since 0.1.0
 */
export class SandboxLimit extends TaggedToolError("SandboxLimit")<{
  readonly limit: SandboxLimitKind
  readonly max: number
  readonly logs?: readonly string[] | undefined
}> {
  readonly code = "SANDBOX_LIMIT"
  override get message(): string {
    if (this.limit === "queue")
      return `The program was refused: its caller already has ${this.max} programs waiting for the sandbox`
    const what =
      this.limit === "output"
        ? `${this.max} bytes of output`
        : this.limit === "calls"
          ? `${this.max} tool calls`
          : this.limit === "arguments"
            ? `${this.max} bytes of arguments in one tool call`
            : `${this.max} ms of CPU time`
    return withLogs(`The program exceeded its limit of ${what} and was stopped`, this.logs)
  }
}

const LIMIT_KINDS: ReadonlySet<unknown> = new Set<SandboxLimitKind>([
  "output",
  "calls",
  "cpu",
  "arguments",
  "queue",
])

/**
 * The program threw (or its promise rejected) and did not catch it; also a syntax error. `cause` holds
 * the program's error name, message and stack (guest frames only).
 *
 * @since 0.1.0
 */
export class SandboxError extends TaggedToolError("SandboxError")<{
  readonly cause: ErrorCause
  readonly logs?: readonly string[] | undefined
}> {
  readonly code = "SANDBOX_ERROR"
  override get message(): string {
    const stack = this.cause.stack ? `\n${this.cause.stack.trimEnd()}` : ""
    return withLogs(`The program failed: ${this.cause.name}: ${this.cause.message}${stack}`, this.logs)
  }
}

/**
 * The sandbox itself failed (its engine aborted or its thread died); the program may not have run.
 *
 * @since 0.1.0
 */
export class SandboxCrashed extends TaggedToolError("SandboxCrashed")<{
  readonly reason: string
  readonly logs?: readonly string[] | undefined
}> {
  readonly code = "SANDBOX_CRASHED"
  override get message(): string {
    return withLogs(`The sandbox failed: ${this.reason}`, this.logs)
  }
}

/**
 * Every way a sandboxed program can fail.
 *
 * @since 0.1.0
 */
export type SandboxFailure = SandboxTimeout | SandboxMemory | SandboxLimit | SandboxError | SandboxCrashed

declare module "./toolError.js" {
  /** The sandbox failures join the {@link ToolError} union. */
  interface ToolErrorExtensions {
    SandboxTimeout: SandboxTimeout
    SandboxMemory: SandboxMemory
    SandboxLimit: SandboxLimit
    SandboxError: SandboxError
    SandboxCrashed: SandboxCrashed
  }
}

/** `logs` from the wire: an array of strings, else absent. */
const logsField = (logs: unknown): { logs?: readonly string[] } =>
  Array.isArray(logs) && logs.every((l) => typeof l === "string") ? { logs: logs as string[] } : {}

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0

const causeField = (cause: unknown): ErrorCause | undefined => {
  if (typeof cause !== "object" || cause === null) return undefined
  const { name, message, stack } = cause as Record<string, unknown>
  if (typeof message !== "string") return undefined
  return {
    name: typeof name === "string" ? name : "Error",
    message,
    ...(typeof stack === "string" ? { stack } : {}),
  }
}

registerToolErrorDecoder("SandboxTimeout", ({ timeoutMs, queuedMs, logs }) =>
  isCount(timeoutMs)
    ? new SandboxTimeout({ timeoutMs, ...(isCount(queuedMs) ? { queuedMs } : {}), ...logsField(logs) })
    : undefined,
)
registerToolErrorDecoder("SandboxMemory", ({ limitBytes, logs }) =>
  isCount(limitBytes) ? new SandboxMemory({ limitBytes, ...logsField(logs) }) : undefined,
)
registerToolErrorDecoder("SandboxLimit", ({ limit, max, logs }) =>
  LIMIT_KINDS.has(limit) && isCount(max)
    ? new SandboxLimit({ limit: limit as SandboxLimitKind, max, ...logsField(logs) })
    : undefined,
)
registerToolErrorDecoder("SandboxError", ({ cause, logs }) => {
  const parsed = causeField(cause)
  return parsed ? new SandboxError({ cause: parsed, ...logsField(logs) }) : undefined
})
registerToolErrorDecoder("SandboxCrashed", ({ reason, logs }) =>
  typeof reason === "string" ? new SandboxCrashed({ reason, ...logsField(logs) }) : undefined,
)
