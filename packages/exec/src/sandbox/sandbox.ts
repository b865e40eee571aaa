/**
 * The sandbox contract: run an untrusted program with a bridge of host functions under limits, and get
 * back its result and console output, or a typed failure. Plain form (`Sandbox`, Promises) and Effect form
 * (`EffectSandbox`), like backends. Implementations: `@toolplane/plugin-sandbox-quickjs` (the default);
 * check your own with `sandboxContract` from `@toolplane/exec/testing`.
 *
 * Values crossing the bridge are plain JSON data both ways: arguments of host functions, their results,
 * errors and the program's result are copied, never shared.
 *
 * @since 0.1.0
 */
import {
  Cancelled,
  causeOf,
  isToolError,
  SandboxCrashed,
  type SandboxFailure,
  type ToolError,
  toolErrorToJson,
} from "@toolplane/foundation"
import { Effect } from "effect"

/**
 * A function the host offers to the program. It receives the program's arguments as plain data (copied),
 * and a signal that aborts when the run ends (timeout, limit, cancellation). What it returns is copied
 * into the program as JSON; what it throws reaches the program as a catchable `Error` whose own
 * properties are the thrown error's JSON form (`_tag`, `code`, `message` and fields for a `ToolError`).
 *
 * @since 0.1.0
 */
export type HostFunction = (
  args: readonly unknown[],
  context: { readonly signal: AbortSignal },
) => Promise<unknown>

/**
 * Limits of one run. Every limit fires with its typed error: `SandboxTimeout` (wall time),
 * `SandboxMemory` (memory), `SandboxLimit` (`"output"`, `"calls"`, `"cpu"`); a stack overflow is a catchable
 * `RangeError`/`InternalError` inside the program.
 *
 * @since 0.1.0
 */
export interface SandboxLimits {
  /**
   * Wall-clock budget of the whole run, from the request: time spent waiting for a free engine and in
   * host calls included. Default 5000 ms.
   */
  readonly wallTimeMs?: number
  /** Memory cap of the engine. Default 64 MiB. */
  readonly memoryBytes?: number
  /** Cap on the program's result (as JSON) plus its console output. Default 1 MiB. */
  readonly maxOutputBytes?: number
  /** Cap on the number of host-function calls. Default 1000. */
  readonly maxHostCalls?: number
  /** Engine stack size. Default 256 KiB. */
  readonly stackBytes?: number
  /**
   * Budget of time spent running the program (the interrupt budget), time waiting for host calls
   * excluded. Default: none (the wall-time limit applies).
   */
  readonly cpuTimeMs?: number
  /**
   * Cap on one host call's arguments, as UTF-8 bytes of their JSON text. A call over it stops the run
   * with `SandboxLimit` (`"arguments"`) before the arguments leave the engine. Default 1 MiB.
   *
   * @since 0.1.0
   */
  readonly maxArgumentBytes?: number
}

/**
 * The default limits.
 *
 * @since 0.1.0
 */
export const defaultSandboxLimits: Required<Omit<SandboxLimits, "cpuTimeMs">> = {
  wallTimeMs: 5000,
  memoryBytes: 64 * 2 ** 20,
  maxOutputBytes: 2 ** 20,
  maxHostCalls: 1000,
  stackBytes: 256 * 2 ** 10,
  maxArgumentBytes: 2 ** 20,
}

/**
 * One run's input. `code` is the body of an async function: it may `await` and `return` a value.
 * `functions` become globals of the same names in the program (async functions).
 *
 * @since 0.1.0
 */
export interface SandboxRunRequest {
  readonly code: string
  readonly functions?: Readonly<Record<string, HostFunction>>
  readonly limits?: SandboxLimits
  /** Aborting it stops the run with `Cancelled`. */
  readonly signal?: AbortSignal
  /**
   * Who runs the program (an opaque key, e.g. the caller id of the request). A sandbox that queues runs
   * schedules callers fairly and may cap each caller's runs (`SandboxLimit` `"queue"` at once when a
   * caller is over its cap); runs without one are the embedding application's own.
   *
   * @since 0.1.0
   */
  readonly caller?: string
}

/**
 * A finished run: the program's returned value (as JSON data; `undefined` becomes `null`), its console
 * output (one line per call, `console.error`/`warn`/`info`/`debug` prefixed with their level) and how
 * many host calls it made.
 *
 * @since 0.1.0
 */
export interface SandboxRunResult {
  readonly result: unknown
  readonly logs: readonly string[]
  readonly hostCalls: number
  readonly durationMs: number
}

/**
 * A sandbox (plain form). `run` rejects only with a {@link SandboxFailure} or `Cancelled`; a failed run
 * never affects other runs or the host.
 *
 * @since 0.1.0
 */
export interface Sandbox {
  readonly name: string
  run(request: SandboxRunRequest): Promise<SandboxRunResult>
  /** Releases engines and threads. Runs in flight fail with `SandboxCrashed`. Idempotent. */
  close(): Promise<void>
}

/**
 * The failures a run can end with.
 *
 * @since 0.1.0
 */
export type SandboxRunError = SandboxFailure | Cancelled

/**
 * A sandbox (Effect form). Interrupting `run` cancels the program.
 *
 * @since 0.1.0
 */
export interface EffectSandbox {
  readonly name: string
  run(request: Omit<SandboxRunRequest, "signal">): Effect.Effect<SandboxRunResult, SandboxRunError>
  readonly close: Effect.Effect<void>
}

const SANDBOX_TAGS = new Set([
  "SandboxTimeout",
  "SandboxMemory",
  "SandboxLimit",
  "SandboxError",
  "SandboxCrashed",
  "Cancelled",
])

/**
 * Tells whether a value is a {@link SandboxRunError}.
 *
 * @since 0.1.0
 */
export const isSandboxRunError = (error: unknown): error is SandboxRunError =>
  isToolError(error) && SANDBOX_TAGS.has(error._tag)

const asRunError = (error: unknown): SandboxRunError =>
  isSandboxRunError(error) ? error : new SandboxCrashed({ reason: causeOf(error).message })

/**
 * Views a plain sandbox as an {@link EffectSandbox}.
 *
 * @since 0.1.0
 */
export const sandboxToEffect = (sandbox: Sandbox): EffectSandbox => ({
  name: sandbox.name,
  run: (request) =>
    Effect.tryPromise({ try: (signal) => sandbox.run({ ...request, signal }), catch: asRunError }),
  close: Effect.promise(() => sandbox.close()),
})

/**
 * Views an {@link EffectSandbox} as a plain sandbox; the request's signal interrupts the Effect.
 *
 * @since 0.1.0
 */
export const sandboxFromEffect = (sandbox: EffectSandbox): Sandbox => ({
  name: sandbox.name,
  run: async ({ signal, ...request }) => {
    const exit = await Effect.runPromiseExit(sandbox.run(request), signal ? { signal } : undefined)
    if (exit._tag === "Success") return exit.value
    const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
    if (failure && failure._tag === "Fail") throw failure.error
    throw new Cancelled({ toolId: "sandbox", reason: "the run was interrupted" })
  },
  close: () => Effect.runPromise(sandbox.close),
})

/**
 * A host function's failure that reaches the program as exactly the JSON given (stacks removed), for a
 * typed error this process cannot rebuild: say, one another Toolplane process reported with a tag no
 * decoder here knows. The program's error then has that `_tag`, `code`, `message` and fields.
 *
 * @since 0.1.0
 */
export class HostFunctionError extends Error {
  readonly json: Readonly<Record<string, unknown>>
  constructor(json: Readonly<Record<string, unknown>>) {
    super(typeof json.message === "string" ? json.message : "the host function failed")
    this.name = "HostFunctionError"
    this.json = json
  }
}

/** A copy of an error's JSON without any `stack` (the host's frames and file paths), at any depth. */
const withoutStacks = (value: unknown, depth = 0): unknown => {
  if (typeof value !== "object" || value === null) return value
  if (depth > 16) return undefined
  if (Array.isArray(value)) return value.map((v) => withoutStacks(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) if (key !== "stack") out[key] = withoutStacks(v, depth + 1)
  return out
}

/**
 * The JSON form in which a host function's failure reaches the program: a `ToolError`'s JSON, a
 * {@link HostFunctionError}'s JSON, otherwise `{ name, message }`; never a stack (no host frame or file
 * path reaches the program, also not in `cause`).
 *
 * @since 0.1.0
 */
export const hostErrorJson = (error: unknown): Record<string, unknown> => {
  if (error instanceof HostFunctionError)
    return withoutStacks({ name: "Error", ...error.json }) as Record<string, unknown>
  if (isToolError(error))
    return withoutStacks({
      ...toolErrorToJson(error as ToolError),
      name: (error as ToolError)._tag,
    }) as Record<string, unknown>
  const cause = causeOf(error)
  return { name: cause.name, message: cause.message }
}
