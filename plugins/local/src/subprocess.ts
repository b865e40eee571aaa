/**
 * Running one command as a subprocess, safely: an argv array (spawned with `shell: false`, so an
 * argument is never parsed by a shell), an environment built from an allow-list, a working directory,
 * a timeout, stdout/stderr size caps, and the whole process group killed (SIGTERM, then SIGKILL after a
 * grace period) on cancellation, timeout or overflow.
 *
 * @since 0.1.0
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { Cancelled, ExecutionFailed, isToolError, Timeout, type ToolError } from "@toolplane/foundation"

/**
 * Which environment variables a subprocess sees.
 *
 * @since 0.1.0
 */
export interface EnvOptions {
  /** Names copied from the parent's environment when set. Default `["PATH"]`. */
  readonly allow?: readonly string[]
  /** Variables set explicitly (override allowed ones). */
  readonly set?: Readonly<Record<string, string>>
}

/**
 * One subprocess run.
 *
 * @since 0.1.0
 */
export interface SubprocessSpec {
  /** Reported in errors. */
  readonly toolId: string
  /** Executable: a path, or a name looked up on the child's `PATH`. */
  readonly command: string
  readonly argv: readonly string[]
  readonly cwd?: string
  readonly env?: EnvOptions
  /** Written to stdin, which is then closed; without it stdin is closed at once. */
  readonly stdin?: string | Uint8Array
  /** Kill the process and fail with `Timeout` after this long. Default 60 000 ms. */
  readonly timeoutMs?: number
  /** Largest stdout kept. Default 1 MiB. */
  readonly maxOutputBytes?: number
  /** Largest stderr tail kept. Default 64 KiB. */
  readonly maxStderrBytes?: number
  /** On stdout overflow: `"fail"` (default, `ExecutionFailed`) or `"truncate"` (keep the first bytes). */
  readonly onOverflow?: "fail" | "truncate"
  /** Time between SIGTERM and SIGKILL. Default 2000 ms. */
  readonly killGraceMs?: number
  /** Exit codes that count as success. Default `[0]`. */
  readonly successCodes?: readonly number[]
}

/**
 * What a finished subprocess produced.
 *
 * @since 0.1.0
 */
export interface SubprocessOutput {
  readonly stdout: string
  /** The last `maxStderrBytes` bytes of stderr. */
  readonly stderr: string
  readonly exitCode: number | null
  /** stdout was cut at `maxOutputBytes` (only with `onOverflow: "truncate"`). */
  readonly truncated: boolean
  readonly durationMs: number
}

const STDERR_TAIL_IN_ERRORS = 2000

/**
 * The environment a subprocess gets under `options`.
 *
 * @since 0.1.0
 */
export const subprocessEnv = (options: EnvOptions = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const name of options.allow ?? ["PATH"]) {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  return { ...env, ...options.set }
}

const abortFailure = (toolId: string, signal: AbortSignal): ToolError => {
  const reason = signal.reason
  if (isToolError(reason)) return reason
  return new Cancelled({ toolId, reason: reason instanceof Error ? reason.message : undefined })
}

const killGroup = (child: ChildProcess, detached: boolean, signal: NodeJS.Signals): void => {
  if (child.pid === undefined) return
  try {
    if (detached) process.kill(-child.pid, signal)
    else child.kill(signal)
  } catch {
    // already gone
  }
}

/**
 * Runs a command and resolves with its output. Rejects with `ExecutionFailed` (cannot start, non-zero
 * exit with the tail of stderr in `detail`, stdout overflow), `Timeout`, or `Cancelled` (the signal's
 * typed reason when it has one). Every rejection kills the process group.
 *
 * @example
 * ```ts
 * const out = await runSubprocess({ toolId: "git/log", command: "git", argv: ["log", "-n", "5"], cwd: repo })
 * ```
 * @since 0.1.0
 */
export const runSubprocess = (spec: SubprocessSpec, signal?: AbortSignal): Promise<SubprocessOutput> =>
  new Promise<SubprocessOutput>((resolve, reject) => {
    const { toolId } = spec
    if (signal?.aborted) {
      reject(abortFailure(toolId, signal))
      return
    }
    const argv = spec.argv
    if (!Array.isArray(argv) || argv.some((a) => typeof a !== "string")) {
      reject(
        new ExecutionFailed({
          toolId,
          cause: { name: "TypeError", message: "the argv builder must return an array of strings" },
        }),
      )
      return
    }
    const timeoutMs = spec.timeoutMs ?? 60_000
    const maxOut = spec.maxOutputBytes ?? 1024 * 1024
    const maxErr = spec.maxStderrBytes ?? 64 * 1024
    const grace = spec.killGraceMs ?? 2000
    const successCodes = spec.successCodes ?? [0]
    const detached = process.platform !== "win32"
    const started = performance.now()
    if (spec.cwd !== undefined && !existsSync(spec.cwd)) {
      reject(
        new ExecutionFailed({
          toolId,
          cause: { name: "SpawnError", message: `working directory ${spec.cwd} does not exist` },
          retryable: false,
        }),
      )
      return
    }
    let child: ChildProcess
    try {
      child = spawn(spec.command, argv, {
        shell: false,
        detached,
        windowsHide: true,
        env: subprocessEnv(spec.env),
        stdio: [spec.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
      })
    } catch (error) {
      reject(
        new ExecutionFailed({
          toolId,
          cause: { name: "SpawnError", message: (error as Error)?.message ?? String(error) },
        }),
      )
      return
    }

    const out: Buffer[] = []
    let outBytes = 0
    let truncated = false
    let err: Buffer[] = []
    let errBytes = 0
    let settled = false
    let timer: ReturnType<typeof setTimeout> | undefined

    const stderrText = (): string => {
      const all = Buffer.concat(err)
      return all.subarray(Math.max(0, all.length - maxErr)).toString("utf8")
    }
    const cleanup = () => {
      if (timer !== undefined) clearTimeout(timer)
      signal?.removeEventListener("abort", onAbort)
    }
    const terminate = () => {
      killGroup(child, detached, "SIGTERM")
      const hard = setTimeout(() => killGroup(child, detached, "SIGKILL"), grace)
      hard.unref()
      child.stdout?.destroy()
      child.stderr?.destroy()
    }
    const fail = (error: ToolError) => {
      if (settled) return
      settled = true
      cleanup()
      terminate()
      reject(error)
    }
    const succeed = (exitCode: number | null) => {
      if (settled) return
      settled = true
      cleanup()
      // Background jobs the command left behind must not outlive the call.
      killGroup(child, detached, "SIGTERM")
      resolve({
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: stderrText(),
        exitCode,
        truncated,
        durationMs: performance.now() - started,
      })
    }
    function onAbort() {
      fail(abortFailure(toolId, signal!))
    }

    signal?.addEventListener("abort", onAbort, { once: true })
    timer = setTimeout(() => fail(new Timeout({ toolId, timeoutMs })), Math.min(timeoutMs, 0x7fffffff))

    child.stdout!.on("data", (chunk: Buffer) => {
      if (settled) return
      if (outBytes + chunk.length > maxOut) {
        if (spec.onOverflow === "truncate") {
          out.push(chunk.subarray(0, maxOut - outBytes))
          outBytes = maxOut
          truncated = true
          terminate()
          succeed(null)
        } else {
          fail(
            new ExecutionFailed({
              toolId,
              cause: {
                name: "OutputLimitExceeded",
                message: `stdout exceeded ${maxOut} bytes; the process was killed`,
              },
            }),
          )
        }
        return
      }
      out.push(chunk)
      outBytes += chunk.length
    })
    child.stderr!.on("data", (chunk: Buffer) => {
      err.push(chunk)
      errBytes += chunk.length
      if (errBytes > 2 * maxErr) {
        const tail = Buffer.concat(err)
        const kept = tail.subarray(tail.length - maxErr)
        err = [kept]
        errBytes = kept.length
      }
    })
    child.on("error", (error) => {
      fail(
        new ExecutionFailed({
          toolId,
          cause: { name: "SpawnError", message: `cannot run "${spec.command}": ${error.message}` },
        }),
      )
    })
    child.on("close", (code, killedBy) => {
      if (settled) return
      if (code !== null && successCodes.includes(code)) {
        succeed(code)
        return
      }
      const tail = stderrText()
      fail(
        new ExecutionFailed({
          toolId,
          cause: {
            name: "ExitStatus",
            message:
              code !== null
                ? `"${spec.command}" exited with code ${code}`
                : `"${spec.command}" was killed by ${killedBy}`,
          },
          detail:
            tail.length > STDERR_TAIL_IN_ERRORS ? tail.slice(-STDERR_TAIL_IN_ERRORS) : tail || undefined,
          retryable: false,
        }),
      )
    })
    if (spec.stdin !== undefined) {
      child.stdin!.on("error", () => {})
      child.stdin!.end(spec.stdin)
    }
  })
