/**
 * The Effect face of the runner: a `Runner` service whose methods return Effects, provided by
 * `Runner.layer(options)`. Each call runs the plain pipeline (no fiber per pipeline step) inside an
 * Effect span `execute_tool <id>`; interrupting the fiber aborts the call's signal, which reaches the
 * backend.
 *
 * @since 0.1.0
 */
import {
  type Backend,
  type BackendHealth,
  type CallToolRequest,
  causeOf,
  type EffectToolService,
  ExecutionFailed,
  isToolError,
  type Tool,
  type ToolError,
  Tools,
  toEffectService,
} from "@toolplane/foundation"
import { Context, Effect, Layer, Option } from "effect"
import { ApproverService, approverFromEffect } from "./Approver.js"
import type { CallAllOptions, CallAllResult } from "./callAll.js"
import type { RunnerOptions } from "./options.js"
import { outcomeOf } from "./pipeline/trace.js"
import { createRunner, type ToolRunner } from "./Runner.js"

/**
 * The runner, Effect form.
 *
 * @since 0.1.0
 */
export interface EffectRunner extends EffectToolService {
  /** The plain runner underneath. */
  readonly plain: ToolRunner
  readonly listAll: Effect.Effect<Tool[], ToolError>
  callAll(request: CallToolRequest, options?: CallAllOptions): Effect.Effect<CallAllResult, ToolError>
  register(backend: Backend): Effect.Effect<void, ToolError>
  unregister(name: string): Effect.Effect<boolean>
  readonly health: Effect.Effect<Record<string, BackendHealth>>
}

const toToolError =
  (toolId: string) =>
  (error: unknown): ToolError =>
    isToolError(error) ? error : new ExecutionFailed({ toolId, cause: causeOf(error) })

/**
 * Views a plain runner as an {@link EffectRunner}, with an Effect span per call.
 *
 * @since 0.1.0
 */
export const runnerToEffect = (runner: ToolRunner): EffectRunner => {
  const service = toEffectService(runner)
  return {
    plain: runner,
    listTools: service.listTools,
    callTool: (request) =>
      service.callTool(request).pipe(
        Effect.tap((result) =>
          Effect.annotateCurrentSpan("toolplane.outcome", result.isError ? "tool_error" : "ok"),
        ),
        Effect.tapError((error) => Effect.annotateCurrentSpan("toolplane.outcome", outcomeOf(error))),
        Effect.withSpan(`execute_tool ${request.name}`, {
          attributes: {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": request.name,
            "toolplane.tool.id": request.name,
            "toolplane.backend": runner.registry.resolve(request.name)?.backend.name ?? "(unknown)",
          },
        }),
      ),
    listAll: Effect.tryPromise({ try: () => runner.listAll(), catch: toToolError("(list)") }),
    callAll: (request, options) =>
      Effect.tryPromise({
        try: (signal) =>
          runner.callAll(
            {
              ...request,
              context: { ...(request.context ?? {}), signal } as CallToolRequest["context"] & {},
            },
            options,
          ),
        catch: toToolError(request.name),
      }),
    register: (backend) =>
      Effect.tryPromise({ try: () => runner.register(backend), catch: toToolError(`${backend.name}/*`) }),
    unregister: (name) => Effect.promise(() => runner.unregister(name)),
    health: Effect.promise(() => runner.health()),
  }
}

/**
 * The runner as an Effect service: `const runner = yield* Runner`.
 *
 * @example
 * ```ts
 * const program = Effect.gen(function* () {
 *   const runner = yield* Runner
 *   return yield* runner.callTool({ name: "weather/current", arguments: { city: "Oslo" } })
 * })
 * Effect.runPromise(program.pipe(Effect.provide(Runner.layer({ backends: [localBackend([weather])] }))))
 * ```
 * @since 0.1.0
 */
export class Runner extends Context.Service<Runner, EffectRunner>()("@toolplane/exec/Runner") {
  /**
   * A Layer building a runner from options; the runner's backends are closed when the Layer's scope
   * closes. When `options.approver` is absent, an {@link ApproverService} in context is used. Fails with
   * the registration's configuration error (e.g. `ToolConflict`).
   *
   * @since 0.1.0
   */
  static readonly layer = (options: RunnerOptions = {}): Layer.Layer<Runner, ToolError> =>
    Layer.effect(
      Runner,
      Effect.gen(function* () {
        const fromContext = yield* Effect.serviceOption(ApproverService)
        const approver =
          options.approver ?? (Option.isSome(fromContext) ? approverFromEffect(fromContext.value) : undefined)
        const runner = yield* Effect.acquireRelease(
          Effect.sync(() => createRunner({ ...options, ...(approver ? { approver } : {}) })),
          (r) => Effect.promise(() => r.close()),
        )
        yield* Effect.tryPromise({ try: () => runner.ready(), catch: toToolError("(registration)") })
        return runnerToEffect(runner)
      }),
    )

  /**
   * Provides foundation's {@link Tools} service from the {@link Runner}, so code written against the
   * generic tool service (middleware, gateways) runs over it.
   *
   * @since 0.1.0
   */
  static readonly toolsLayer: Layer.Layer<Tools, never, Runner> = Layer.effect(
    Tools,
    Effect.map(Effect.service(Runner), (runner): EffectToolService => runner),
  )
}
