/**
 * Subprocess tools: a tool whose execution runs a command with an argv array built from the validated
 * arguments. It is an ordinary `defineTool` definition (so it is validated, typed and served like any
 * local tool); {@link subprocessBackend} serves a set of them.
 *
 * @since 0.1.0
 */
import {
  defineTool,
  ExecutionFailed,
  type InferSchema,
  type SchemaSource,
  type ToolDefinition,
  type ToolFields,
  type ToolIdentity,
} from "@toolplane/foundation"
import { type LocalBackend, type LocalBackendOptions, localBackend } from "./localBackend.js"
import { type EnvOptions, runSubprocess, type SubprocessOutput, type SubprocessSpec } from "./subprocess.js"

/**
 * Options of {@link subprocessTool}.
 *
 * @since 0.1.0
 */
export type SubprocessToolOptions<S extends SchemaSource> = ToolFields &
  ToolIdentity &
  Pick<
    SubprocessSpec,
    "maxOutputBytes" | "maxStderrBytes" | "onOverflow" | "killGraceMs" | "successCodes"
  > & {
    /** Argument schema. */
    readonly input?: S
    /** Executable: a path, or a name looked up on the child's `PATH` (which the env allow-list controls). */
    readonly command: string
    /**
     * Builds the argv from the validated arguments. Each element reaches the program as one argument,
     * verbatim: no shell ever parses it.
     */
    readonly args?: (args: InferSchema<S>) => readonly string[]
    /** Working directory (fixed, or from the arguments). */
    readonly cwd?: string | ((args: InferSchema<S>) => string)
    /** Environment allow-list. Default: only `PATH`. */
    readonly env?: EnvOptions
    /** Text written to stdin. */
    readonly stdin?: (args: InferSchema<S>) => string | Uint8Array
    /**
     * How stdout becomes the result: `"text"` (default) a text block, `"json"` parsed into
     * `structuredContent`, or a function of the whole output.
     */
    readonly output?: "text" | "json" | ((output: SubprocessOutput) => unknown)
    /** Default 60 000 ms; also the tool's `timeoutMs`, which the runner enforces. */
    readonly timeoutMs?: number
  }

/**
 * Defines a tool that runs a command.
 *
 * @example
 * ```ts
 * const grep = subprocessTool({
 *   id: "fs/grep",
 *   input: z.object({ pattern: z.string(), path: z.string() }),
 *   command: "grep",
 *   args: ({ pattern, path }) => ["-rn", "--", pattern, path],
 *   cwd: "/srv/repo",
 *   annotations: { readOnlyHint: true },
 *   timeoutMs: 10_000,
 * })
 * ```
 * @since 0.1.0
 */
export const subprocessTool = <S extends SchemaSource = SchemaSource>(
  options: SubprocessToolOptions<S>,
): ToolDefinition<InferSchema<S>> => {
  const {
    command,
    args,
    cwd,
    env,
    stdin,
    output,
    maxOutputBytes,
    maxStderrBytes,
    onOverflow,
    killGraceMs,
    successCodes,
    ...spec
  } = options
  const timeoutMs = options.timeoutMs ?? 60_000
  const named = spec as { id?: string; namespace?: string; name?: string }
  const toolId = named.id ?? `${named.namespace}/${named.name}`
  const handler = async (validated: InferSchema<S>, ctx: { readonly signal: AbortSignal }) => {
    const run = await runSubprocess(
      {
        toolId,
        command,
        argv: args ? args(validated) : [],
        timeoutMs,
        ...(cwd !== undefined ? { cwd: typeof cwd === "function" ? cwd(validated) : cwd } : {}),
        ...(env !== undefined ? { env } : {}),
        ...(stdin !== undefined ? { stdin: stdin(validated) } : {}),
        ...(maxOutputBytes !== undefined ? { maxOutputBytes } : {}),
        ...(maxStderrBytes !== undefined ? { maxStderrBytes } : {}),
        ...(onOverflow !== undefined ? { onOverflow } : {}),
        ...(killGraceMs !== undefined ? { killGraceMs } : {}),
        ...(successCodes !== undefined ? { successCodes } : {}),
      },
      ctx.signal,
    )
    if (output === undefined || output === "text") return run.stdout
    if (output === "json") {
      try {
        return JSON.parse(run.stdout) as unknown
      } catch (error) {
        throw new ExecutionFailed({
          toolId,
          cause: { name: "SyntaxError", message: `stdout is not JSON: ${(error as Error).message}` },
        })
      }
    }
    return output(run)
  }
  return defineTool({ ...(spec as object), timeoutMs, handler } as never) as ToolDefinition<InferSchema<S>>
}

/**
 * Serves subprocess tools: a {@link localBackend} whose `metadata().kind` is `"subprocess"`. Approval
 * follows the same policy (default `"auto"`: every tool not annotated read-only needs approval).
 *
 * @since 0.1.0
 */
export const subprocessBackend = (
  tools: readonly ToolDefinition<any>[],
  options: LocalBackendOptions = {},
): LocalBackend => localBackend(tools, { kind: "subprocess", ...options })
