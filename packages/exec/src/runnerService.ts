/**
 * The Effect face of the runner: {@link EffectToolRunner}, whose methods return Effects failing with
 * typed errors, provided by {@link toolRunnerLayer}. The Layer also provides foundation's `Backends`,
 * `Enrichers` and `EffectToolService`, so a program is assembled from Layers: backends and enrichers
 * are each contributed by their own Layer (merged above the runner; a scoped one is removed when its
 * scope closes), single services the runner depends on (the approver, and later a prefetcher or a
 * sandbox) are provided below it. Each call runs the plain pipeline (no fiber per pipeline step) inside
 * an Effect span `execute_tool <id>`; interrupting the fiber aborts the call's signal, which reaches the
 * backend.
 *
 * @since 0.1.0
 */
import {
  type Backend,
  type BackendHealth,
  Backends,
  type CallToolRequest,
  EffectToolService,
  Enrichers,
  type Tool,
  type ToolError,
  type ToolResult,
  toolServiceToEffect,
  toToolError,
} from "@toolplane/foundation"
import { Context, Effect, Layer, Option, Tracer } from "effect"
import { approverFromEffect, EffectApprover } from "./approver.js"
import type { CallAllOptions, CallAllResult } from "./callAll.js"
import type { RunnerOptions } from "./options.js"
import { outcomeOf } from "./pipeline/trace.js"
import { EffectPrefetcher, layerPrefetcher } from "./prefetch/prefetcher.js"
import { createRunner, type ToolRunner } from "./runner.js"

/**
 * The runner, Effect form, and its Context tag: `const runner = yield* EffectToolRunner`.
 *
 * @since 0.1.0
 */
export interface EffectToolRunner extends EffectToolService {
  /** The plain runner underneath. */
  readonly plain: ToolRunner
  readonly listAll: Effect.Effect<Tool[], ToolError>
  callAll(request: CallToolRequest, options?: CallAllOptions): Effect.Effect<CallAllResult, ToolError>
  register(backend: Backend): Effect.Effect<void, ToolError>
  unregister(name: string): Effect.Effect<boolean>
  readonly health: Effect.Effect<Record<string, BackendHealth>>
}

/**
 * The {@link EffectToolRunner} tag.
 *
 * @since 0.1.0
 */
export const EffectToolRunner: Context.Service<EffectToolRunner, EffectToolRunner> =
  Context.Service<EffectToolRunner>("@toolplane/exec/EffectToolRunner")

const traced = (
  call: Effect.Effect<ToolResult, ToolError>,
  request: CallToolRequest,
  runner: ToolRunner,
): Effect.Effect<ToolResult, ToolError> =>
  call.pipe(
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
  )

/**
 * Views a plain runner as an {@link EffectToolRunner}, with an Effect span `execute_tool <id>` per call
 * when a tracer is installed.
 *
 * @since 0.1.0
 */
export const toolRunnerToEffect = (runner: ToolRunner): EffectToolRunner => {
  const service = toolServiceToEffect(runner)
  return {
    plain: runner,
    listTools: service.listTools,
    callTool: (request) =>
      Effect.withFiber((fiber) =>
        // Effect's built-in tracer keeps spans in memory only: as the plain runner skips OpenTelemetry
        // spans until an SDK is registered, the Effect face makes a span only when a tracer is installed
        // (`Effect.withTracer`, `@effect/opentelemetry`). A span costs more than the call itself.
        fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
          ? service.callTool(request)
          : traced(service.callTool(request), request, runner),
      ),
    listAll: Effect.tryPromise({
      try: () => runner.listAll(),
      catch: (error) => toToolError(error, "(list)"),
    }),
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
        catch: (error) => toToolError(error, request.name),
      }),
    register: (backend) =>
      Effect.tryPromise({
        try: () => runner.register(backend),
        catch: (error) => toToolError(error, `${backend.name}/*`),
      }),
    unregister: (name) => Effect.promise(() => runner.unregister(name)),
    health: Effect.promise(() => runner.health()),
  }
}

/**
 * Builds a runner from options, with an approver from context ({@link EffectApprover}) when
 * `options.approver` is absent, and prefetch on when a `prefetcherLayer` is below and `options.prefetch`
 * is absent. The services a future sandbox contributes are read here the same way: optional services of
 * the Layer's context.
 */
const acquireRunner = (options: RunnerOptions) =>
  Effect.gen(function* () {
    const fromContext = yield* Effect.serviceOption(EffectApprover)
    const approver =
      options.approver ?? (Option.isSome(fromContext) ? approverFromEffect(fromContext.value) : undefined)
    // A prefetcher from `prefetcherLayer` below turns prefetch on (unless the options set `prefetch`).
    const prefetcher = yield* Effect.serviceOption(EffectPrefetcher)
    const fromLayer = Option.isSome(prefetcher) ? layerPrefetcher(prefetcher.value) : undefined
    const runner = yield* Effect.acquireRelease(
      Effect.sync(() =>
        createRunner({
          ...options,
          ...(approver ? { approver } : {}),
          ...(fromLayer && options.prefetch === undefined ? { prefetch: fromLayer.options } : {}),
        }),
      ),
      (r) => Effect.promise(() => r.close()),
    )
    if (fromLayer !== undefined && runner.prefetch !== undefined) fromLayer.attach(runner.prefetch)
    yield* Effect.tryPromise({
      try: () => runner.ready(),
      catch: (error) => toToolError(error, "(registration)"),
    })
    return runner
  })

/**
 * A Layer building a runner from options and providing it as {@link EffectToolRunner}, as foundation's
 * `EffectToolService`, and as the `Backends` and `Enrichers` registries other Layers contribute to
 * (`backendLayer`, `enricherLayer`). Merge contributions above it with `Layer.provideMerge`; provide an
 * approver below it with {@link approverLayer}. The runner's backends are closed when the Layer's scope
 * closes. Fails with the registration's configuration error (e.g. `ToolConflict`).
 *
 * @example
 * ```ts
 * const App = Layer.mergeAll(backendLayer(localBackend([weather]))).pipe(
 *   Layer.provideMerge(toolRunnerLayer()),
 *   Layer.provide(approverLayer(allowList(["weather/*"]))),
 * )
 * const program = Effect.gen(function* () {
 *   const runner = yield* EffectToolRunner
 *   return yield* runner.callTool({ name: "weather/current", arguments: { city: "Oslo" } })
 * })
 * await Effect.runPromise(program.pipe(Effect.provide(App)))
 * ```
 * @since 0.1.0
 */
export const toolRunnerLayer = (
  options: RunnerOptions = {},
): Layer.Layer<EffectToolRunner | EffectToolService | Backends | Enrichers, ToolError> =>
  Layer.effectContext(
    Effect.map(acquireRunner(options), (runner) => {
      const effect = toolRunnerToEffect(runner)
      const backends: Backends = {
        add: effect.register,
        remove: effect.unregister,
      }
      const enrichers: Enrichers = {
        add: (enricher) =>
          Effect.try({
            try: () => runner.addEnricher(enricher),
            catch: (error) => toToolError(error, `(enricher ${enricher.name})`),
          }),
        remove: (name) => Effect.sync(() => runner.removeEnricher(name)),
      }
      return Context.make(EffectToolRunner, effect).pipe(
        Context.add(EffectToolService, effect),
        Context.add(Backends, backends),
        Context.add(Enrichers, enrichers),
      )
    }),
  )
