/**
 * The typed failures of a sandboxed program (see `Sandbox` in `@toolplane/exec`). They are members of the
 * {@link ToolError} family: tagged, with a stable `code`, and they round-trip through `toolErrorToJson` /
 * `toolErrorFromJson`. Each carries the console output the program wrote before it failed (`logs`), so a
 * model sees what happened.
 *
 * @since 0.2.0
 */
import { Data } from "effect"

/** The program's error (the shape of `ErrorCause`; not imported, since ToolError.ts imports this file). */
interface ProgramError {
  readonly name: string
  readonly message: string
  readonly stack?: string | undefined
}

const withLogs = (message: string, logs: readonly string[] | undefined): string =>
  logs && logs.length > 0 ? `${message}\nConsole output before the failure:\n${logs.join("\n")}` : message

/**
 * The program ran past its wall-clock budget and was stopped (from inside the engine, or by terminating
 * the thread running it when a native loop never yields).
 *
 * @since 0.2.0
 */
export class SandboxTimeout extends Data.TaggedError("SandboxTimeout")<{
  readonly timeoutMs: number
  readonly logs?: readonly string[] | undefined
}> {
  readonly code = "SANDBOX_TIMEOUT"
  override get message(): string {
    return withLogs(`The program did not finish within ${this.timeoutMs} ms and was stopped`, this.logs)
  }
}

/**
 * The program exceeded its memory cap and was stopped.
 *
 * @since 0.2.0
 */
export class SandboxMemory extends Data.TaggedError("SandboxMemory")<{
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

/**
 * The program exceeded a counted limit: `"output"` (bytes of result plus console output), `"calls"`
 * (number of host calls) or `"cpu"` (milliseconds spent running, time waiting for host calls excluded).
 *
 * @since 0.2.0
 */
export class SandboxLimit extends Data.TaggedError("SandboxLimit")<{
  readonly limit: "output" | "calls" | "cpu"
  readonly max: number
  readonly logs?: readonly string[] | undefined
}> {
  readonly code = "SANDBOX_LIMIT"
  override get message(): string {
    const what =
      this.limit === "output"
        ? `${this.max} bytes of output`
        : this.limit === "calls"
          ? `${this.max} tool calls`
          : `${this.max} ms of CPU time`
    return withLogs(`The program exceeded its limit of ${what} and was stopped`, this.logs)
  }
}

/**
 * The program threw (or its promise rejected) and did not catch it; also a syntax error. `cause` holds
 * the program's error name, message and stack (guest frames only).
 *
 * @since 0.2.0
 */
export class SandboxError extends Data.TaggedError("SandboxError")<{
  readonly cause: ProgramError
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
 * @since 0.2.0
 */
export class SandboxCrashed extends Data.TaggedError("SandboxCrashed")<{
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
 * @since 0.2.0
 */
export type SandboxFailure = SandboxTimeout | SandboxMemory | SandboxLimit | SandboxError | SandboxCrashed
