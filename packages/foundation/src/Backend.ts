/**
 * The backend contract: something that serves tools (in-process functions, a subprocess, an MCP server,
 * an HTTP service). A plugin author writes a plain object of async functions with {@link defineBackend};
 * an Effect user gets the same contract as a service ({@link ToolBackend}) with Effect-returning methods.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import {
  type ExecutionContext,
  type ExecutionContextInit,
  fromContextual,
  toContext,
} from "./ExecutionContext.js"
import type { Tool } from "./Tool.js"
import type { BackendCall } from "./ToolCall.js"
import { causeOf, ExecutionFailed, isToolError, type ToolError } from "./ToolError.js"
import type { BackendResult } from "./ToolResult.js"
import { runTyped } from "./ToolService.js"

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
        if (isToolError(error)) throw error
        throw new ExecutionFailed({ toolId: call.toolId, cause: causeOf(error) })
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
 * The backend contract, Effect form.
 *
 * @since 0.1.0
 */
export interface EffectBackend {
  readonly name: string
  execute(
    call: BackendCall,
    ctx?: ExecutionContext | ExecutionContextInit,
  ): Effect.Effect<BackendResult, ToolError>
  readonly supportedTools: Effect.Effect<readonly string[]>
  readonly toolSchemas: Effect.Effect<readonly Tool[]>
  metadata(): BackendMetadata
  readonly healthCheck: Effect.Effect<boolean>
  requiresApproval(toolId: string): Effect.Effect<boolean>
}

/**
 * A backend as an Effect service, for programs that assemble backends with Layers.
 *
 * @since 0.1.0
 */
export class ToolBackend extends Context.Service<ToolBackend, EffectBackend>()(
  "@toolplane/foundation/ToolBackend",
) {}

const asToolError =
  (toolId: string) =>
  (error: unknown): ToolError =>
    isToolError(error) ? error : new ExecutionFailed({ toolId, cause: causeOf(error) })

/**
 * Views a plain backend as an {@link EffectBackend}. Interrupting `execute` aborts the call's signal.
 *
 * @since 0.1.0
 */
export const backendToEffect = (backend: Backend): EffectBackend => ({
  name: backend.name,
  execute: (call, ctx) =>
    fromContextual((c) => backend.execute(call, c), ctx ?? {}, asToolError(call.toolId)),
  supportedTools: Effect.promise(() => backend.supportedTools()),
  toolSchemas: Effect.promise(() => backend.toolSchemas()),
  metadata: () => backend.metadata(),
  healthCheck: Effect.promise(() => backend.healthCheck().catch(() => false)),
  requiresApproval: (id) => Effect.promise(() => backend.requiresApproval(id).catch(() => true)),
})

/**
 * Views an {@link EffectBackend} as a plain backend. The call's signal interrupts the Effect.
 *
 * @since 0.1.0
 */
export const backendFromEffect = (backend: EffectBackend): Backend =>
  defineBackend({
    name: backend.name,
    execute: (call, ctx) => runTyped(backend.execute(call, ctx), call.toolId, toContext(ctx).signal),
    toolSchemas: () => Effect.runPromise(backend.toolSchemas),
    supportedTools: () => Effect.runPromise(backend.supportedTools),
    metadata: () => backend.metadata(),
    healthCheck: () => Effect.runPromise(backend.healthCheck),
    requiresApproval: (id) => Effect.runPromise(backend.requiresApproval(id)),
  })

/**
 * A Layer providing {@link ToolBackend} from a plain backend.
 *
 * @since 0.1.0
 */
export const backendLayer = (backend: Backend): Layer.Layer<ToolBackend> =>
  Layer.succeed(ToolBackend, backendToEffect(backend))
