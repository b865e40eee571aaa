/**
 * The backend contract: something that serves tools (in-process functions, a subprocess, an MCP server,
 * an HTTP service). A plugin author writes a plain object of async functions with {@link defineBackend};
 * an Effect user writes an {@link EffectBackend} (Effect-returning methods, typed failures) with
 * {@link makeEffectBackend}, and contributes either form to a running program with {@link backendLayer}.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, type Scope } from "effect"
import {
  CurrentContext,
  type ExecutionContext,
  type ExecutionContextInit,
  makeContext,
  toContext,
} from "./executionContext.js"
import { fromContextual, runTyped } from "./internal/effectBridge.js"
import type { Tool } from "./tool.js"
import type { BackendCall } from "./toolCall.js"
import { BackendUnavailable, causeOf, isToolError, type ToolError, toToolError } from "./toolError.js"
import type { BackendResult } from "./toolResult.js"

/**
 * Descriptive metadata for debugging and monitoring.
 *
 * @since 0.1.0
 */
export interface BackendMetadata {
  /** Unique backend name; MCP backends use it as the tools' namespace. */
  readonly name: string
  /** e.g. `"local"`, `"subprocess"`, `"mcp-stdio"`, `"mcp-http"`. */
  readonly kind: string
  readonly version?: string
  readonly description?: string
  readonly [key: string]: unknown
}

/**
 * A change in the set of tools a backend serves (e.g. MCP `notifications/tools/list_changed`).
 *
 * @since 0.1.0
 */
export type BackendListener = () => void

/**
 * The backend contract, plain async form. Every method is present after {@link defineBackend}.
 *
 * @since 0.1.0
 */
export interface Backend {
  readonly name: string
  /** Executes one call. Rejects only with {@link ToolError}s. */
  execute(call: BackendCall, ctx: ExecutionContext): Promise<BackendResult>
  /** The ids of the tools this backend serves. */
  supportedTools(): Promise<readonly string[]>
  /** The canonical tools this backend serves. */
  toolSchemas(): Promise<readonly Tool[]>
  metadata(): BackendMetadata
  /** Defaults to healthy. */
  healthCheck(): Promise<boolean>
  /** Defaults to `true`, for safety: a backend must opt tools out of approval. */
  requiresApproval(toolId: string): Promise<boolean>
  /** Subscribe to tool-list changes; returns an unsubscribe function. Defaults to never notifying. */
  onToolsChanged(listener: BackendListener): () => void
  /** Releases connections, processes, timers. Defaults to a no-op. */
  close(): Promise<void>
}

type MaybePromise<A> = A | Promise<A>

/**
 * What {@link defineBackend} accepts: `name`, `toolSchemas` and `execute` are required, everything else
 * has a default. Methods may be synchronous.
 *
 * @since 0.1.0
 */
export interface BackendSpec {
  readonly name: string
  readonly kind?: string
  execute(call: BackendCall, ctx: ExecutionContext): MaybePromise<BackendResult>
  toolSchemas(): MaybePromise<readonly Tool[]>
  supportedTools?(): MaybePromise<readonly string[]>
  metadata?(): BackendMetadata
  healthCheck?(): MaybePromise<boolean>
  requiresApproval?(toolId: string): MaybePromise<boolean>
  onToolsChanged?(listener: BackendListener): () => void
  close?(): MaybePromise<void>
}

/**
 * Makes a complete {@link Backend} from a partial spec, filling in the documented defaults and making
 * sure `execute` rejects only with typed errors (anything else becomes {@link ExecutionFailed}).
 *
 * @example
 * ```ts
 * const echo = defineBackend({
 *   name: "echo",
 *   toolSchemas: () => [makeTool({ id: "echo/say", inputSchema: { type: "object" } })],
 *   execute: (call) => textResult(JSON.stringify(call.arguments)),
 *   requiresApproval: () => false,
 * })
 * ```
 * @since 0.1.0
 */
export const defineBackend = (spec: BackendSpec): Backend => {
  const toolSchemas = async () => spec.toolSchemas()
  return {
    name: spec.name,
    async execute(call, ctx) {
      try {
        return await spec.execute(call, ctx)
      } catch (error) {
        throw toToolError(error, call.toolId)
      }
    },
    toolSchemas,
    supportedTools: spec.supportedTools
      ? async () => spec.supportedTools!()
      : async () => (await toolSchemas()).map((t) => t.id),
    metadata: spec.metadata ?? (() => ({ name: spec.name, kind: spec.kind ?? "custom" })),
    healthCheck: spec.healthCheck ? async () => spec.healthCheck!() : async () => true,
    requiresApproval: spec.requiresApproval ? async (id) => spec.requiresApproval!(id) : async () => true,
    onToolsChanged: spec.onToolsChanged ?? (() => () => {}),
    close: spec.close ? async () => spec.close!() : async () => {},
  }
}

/**
 * The backend contract, Effect form: every method returns an Effect that fails only with a typed
 * {@link ToolError} (a backend that cannot list its tools fails with `BackendUnavailable`, never a
 * defect). Made by {@link backendToEffect} or {@link makeEffectBackend}.
 *
 * @since 0.1.0
 */
export interface EffectBackend {
  readonly name: string
  /** Runs one call; interrupting the Effect aborts the call's signal. */
  execute(
    call: BackendCall,
    ctx?: ExecutionContext | ExecutionContextInit,
  ): Effect.Effect<BackendResult, ToolError>
  readonly supportedTools: Effect.Effect<readonly string[], ToolError>
  readonly toolSchemas: Effect.Effect<readonly Tool[], ToolError>
  metadata(): BackendMetadata
  /** Never fails: an unhealthy or unreachable backend answers `false`. */
  readonly healthCheck: Effect.Effect<boolean>
  /** Never fails: a backend that cannot answer requires approval. */
  requiresApproval(toolId: string): Effect.Effect<boolean>
  /** Subscribe to tool-list changes; returns an unsubscribe function. */
  onToolsChanged(listener: BackendListener): () => void
  /** Releases connections, processes, timers. */
  readonly close: Effect.Effect<void>
}

const listFailure =
  (backend: string) =>
  (error: unknown): ToolError =>
    isToolError(error) ? error : new BackendUnavailable({ backend, reason: causeOf(error).message })

/**
 * Views a plain backend as an {@link EffectBackend}. Interrupting `execute` aborts the call's signal;
 * a rejection of `toolSchemas` / `supportedTools` is a typed failure (`BackendUnavailable` unless the
 * backend rejected with a typed error already).
 *
 * @since 0.1.0
 */
export const backendToEffect = (backend: Backend): EffectBackend => {
  const onListError = listFailure(backend.name)
  return {
    name: backend.name,
    execute: (call, ctx) =>
      fromContextual(
        (c) => backend.execute(call, c),
        ctx,
        (error) => toToolError(error, call.toolId),
      ),
    supportedTools: Effect.tryPromise({ try: () => backend.supportedTools(), catch: onListError }),
    toolSchemas: Effect.tryPromise({ try: () => backend.toolSchemas(), catch: onListError }),
    metadata: () => backend.metadata(),
    healthCheck: Effect.promise(() => backend.healthCheck().catch(() => false)),
    requiresApproval: (id) => Effect.promise(() => backend.requiresApproval(id).catch(() => true)),
    onToolsChanged: (listener) => backend.onToolsChanged(listener),
    close: Effect.promise(() => backend.close().catch(() => undefined)),
  }
}

/**
 * Views an {@link EffectBackend} as a plain backend. The call's signal interrupts the Effect; every
 * method rejects only with typed errors.
 *
 * @since 0.1.0
 */
export const backendFromEffect = (backend: EffectBackend): Backend =>
  defineBackend({
    name: backend.name,
    execute: (call, ctx) => runTyped(backend.execute(call, ctx), call.toolId, toContext(ctx).signal),
    toolSchemas: () => runTyped(backend.toolSchemas, `${backend.name}/*`, undefined),
    supportedTools: () => runTyped(backend.supportedTools, `${backend.name}/*`, undefined),
    metadata: () => backend.metadata(),
    healthCheck: () => Effect.runPromise(backend.healthCheck),
    requiresApproval: (id) => Effect.runPromise(backend.requiresApproval(id)),
    onToolsChanged: (listener) => backend.onToolsChanged(listener),
    close: () => Effect.runPromise(backend.close),
  })

/**
 * What {@link makeEffectBackend} accepts: the backend written with Effects. `execute` reads the call's
 * context with `yield* CurrentContext`; every Effect may require services `R`, which come from the
 * context {@link makeEffectBackend} runs in (e.g. a Layer's).
 *
 * @since 0.1.0
 */
export interface EffectBackendSpec<R> {
  readonly name: string
  readonly kind?: string
  readonly toolSchemas: Effect.Effect<readonly Tool[], ToolError, R>
  execute(call: BackendCall): Effect.Effect<BackendResult, ToolError, R | CurrentContext>
  readonly supportedTools?: Effect.Effect<readonly string[], ToolError, R>
  metadata?(): BackendMetadata
  readonly healthCheck?: Effect.Effect<boolean, never, R>
  /** Defaults to `true`, as for plain backends. */
  requiresApproval?(toolId: string): Effect.Effect<boolean, never, R>
  onToolsChanged?(listener: BackendListener): () => void
  readonly close?: Effect.Effect<void, never, R>
}

/**
 * Makes an {@link EffectBackend} from Effects, capturing the services they need (`R`) from the
 * context it runs in, so the backend itself needs none. Unknown tools and other expected failures are
 * typed failures of `execute`.
 *
 * @example
 * ```ts
 * const backend = makeEffectBackend({
 *   name: "clock",
 *   toolSchemas: Effect.succeed([makeTool({ id: "clock/now", inputSchema: { type: "object" } })]),
 *   execute: (call) =>
 *     call.toolId === "clock/now"
 *       ? Effect.sync(() => textResult(new Date().toISOString()))
 *       : Effect.fail(new ToolNotFound({ toolId: call.toolId, suggestions: ["clock/now"] })),
 *   requiresApproval: () => Effect.succeed(false),
 * })
 * ```
 * @since 0.1.0
 */
export const makeEffectBackend = <R = never>(
  spec: EffectBackendSpec<R>,
): Effect.Effect<EffectBackend, never, R> =>
  Effect.map(Effect.context<R>(), (services): EffectBackend => {
    const provide = <A, E>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E> =>
      Effect.provideContext(effect, services)
    const toolSchemas = provide(spec.toolSchemas)
    return {
      name: spec.name,
      execute: (call, ctx) =>
        Effect.suspend(() => {
          const context = ctx === undefined ? makeContext() : toContext(ctx)
          return spec.execute(call).pipe(Effect.provideService(CurrentContext, context), provide)
        }),
      toolSchemas,
      supportedTools: spec.supportedTools
        ? provide(spec.supportedTools)
        : Effect.map(toolSchemas, (tools) => tools.map((t) => t.id)),
      metadata: spec.metadata ?? (() => ({ name: spec.name, kind: spec.kind ?? "effect" })),
      healthCheck: spec.healthCheck ? provide(spec.healthCheck) : Effect.succeed(true),
      requiresApproval: (id) =>
        spec.requiresApproval ? provide(spec.requiresApproval(id)) : Effect.succeed(true),
      onToolsChanged: spec.onToolsChanged ?? (() => () => {}),
      close: spec.close ? provide(spec.close) : Effect.void,
    }
  })

/**
 * Where Layers contribute backends: a registry the runner reads live. `@toolplane/exec`'s runner Layer
 * provides it; {@link backendLayer} adds to it.
 *
 * @since 0.1.0
 */
export interface Backends {
  /** Registers a backend. Fails with `ToolConflict`, `ConfigError` or `BackendUnavailable`. */
  add(backend: Backend): Effect.Effect<void, ToolError>
  /** Unregisters a backend (without closing it); succeeds with whether it was registered. */
  remove(name: string): Effect.Effect<boolean>
}

/**
 * The {@link Backends} registry as a Context tag: `const backends = yield* Backends`.
 *
 * @since 0.1.0
 */
export const Backends: Context.Service<Backends, Backends> = Context.Service<Backends>(
  "@toolplane/foundation/Backends",
)

const isPlainBackend = (value: Backend | EffectBackend): value is Backend =>
  typeof (value as Backend).toolSchemas === "function"

/**
 * A Layer contributing one backend to {@link Backends}: it registers the backend when built and, when
 * its scope closes, unregisters it and closes it (the Layer owns the backend). `source` is a plain
 * backend, an {@link EffectBackend}, or an Effect making either (whose requirements the Layer needs).
 *
 * @example
 * ```ts
 * const Weather = backendLayer(localBackend([weather]))
 * const program = Effect.gen(function* () {
 *   const runner = yield* EffectToolRunner
 *   return yield* runner.callTool({ name: "weather/current", arguments: { city: "Oslo" } })
 * })
 * program.pipe(Effect.provide(Weather.pipe(Layer.provideMerge(toolRunnerLayer()))))
 * ```
 * @since 0.1.0
 */
export const backendLayer = <E = never, R = never>(
  source: Backend | EffectBackend | Effect.Effect<Backend | EffectBackend, E, R>,
): Layer.Layer<never, ToolError | E, Backends | Exclude<R, Scope.Scope>> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const backends = yield* Backends
      const made = Effect.isEffect(source) ? yield* source : source
      const backend = isPlainBackend(made) ? made : backendFromEffect(made)
      yield* Effect.addFinalizer(() => Effect.promise(() => backend.close().catch(() => undefined)))
      yield* Effect.acquireRelease(backends.add(backend), () => backends.remove(backend.name))
    }),
  )
