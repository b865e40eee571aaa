/**
 * `defineTool`: the one function a user learns first. A schema (zod 4, any Standard Schema with JSON
 * Schema support, or raw JSON Schema) plus a handler whose argument type is inferred from the schema.
 *
 * @since 0.1.0
 */
import type { StandardSchemaV1 } from "@standard-schema/spec"
import { Effect } from "effect"
import {
  CurrentContext,
  type ExecutionContext,
  type ExecutionContextInit,
  toContext,
} from "./executionContext.js"
import { type InferSchema, type JsonValue, type SchemaSource, toJsonSchema } from "./jsonSchema.js"
import { makeTool, type Tool, type ToolFields, type ToolIdentity, type ToolSpec } from "./tool.js"
import type { BackendCall } from "./toolCall.js"
import { Cancelled, InvalidArguments, isToolError, type ToolError, toToolError } from "./toolError.js"
import { type BackendResult, type Page, toToolResult } from "./toolResult.js"
import { type Validator, validatorFor } from "./validator.js"

/**
 * What a handler receives besides its arguments: the call's context, plus `resume`, the verified state
 * of a continuation when a paginated tool is asked for its next page.
 *
 * @since 0.1.0
 */
export interface ToolHandlerContext extends ExecutionContext {
  readonly resume?: JsonValue
}

/**
 * What a handler may return: a value (string, object, content block, {@link ToolResult}, {@link Page}),
 * a Promise of one, or an Effect of one.
 *
 * @since 0.1.0
 */
export type HandlerOutput<A, R = never> =
  | A
  | Page<A>
  | Promise<A | Page<A>>
  | Effect.Effect<A | Page<A>, unknown, CurrentContext | R>

/**
 * The services an Effect handler returning `Out` needs besides {@link CurrentContext} (`never` for
 * plain handlers).
 *
 * @since 0.1.0
 */
export type HandlerRequirements<Out> =
  Out extends Effect.Effect<any, any, infer R> ? Exclude<R, CurrentContext> : never

declare const Requirements: unique symbol

type OutputOf<O> = O extends StandardSchemaV1<infer I, any> ? I : O extends undefined ? unknown : unknown

/**
 * The options of {@link defineTool}.
 *
 * @since 0.1.0
 */
export type DefineToolOptions<
  S extends SchemaSource,
  O extends SchemaSource | undefined,
  Out = HandlerOutput<OutputOf<O> | unknown>,
> = ToolFields &
  ToolIdentity & {
    /** Argument schema. Omit for a tool without arguments. */
    readonly input?: S
    /** Schema of the structured result. */
    readonly output?: O
    /**
     * The implementation: returns a value, a Promise or an Effect. An Effect may require services
     * besides {@link CurrentContext}; they become the definition's `R`, provided by {@link bindHandlers}.
     */
    readonly handler: (args: InferSchema<S>, ctx: ToolHandlerContext) => Out
  }

/**
 * A tool with its implementation: canonical {@link Tool} data plus a handler, the compiled validators
 * and `invoke`, which validates, runs and normalizes a call without any backend. `R` is what an Effect
 * handler needs besides the call context; a backend accepts only definitions with `R = never`, which
 * {@link bindHandlers} makes by providing `R` from the context it runs in.
 *
 * @since 0.1.0
 */
export interface ToolDefinition<Args = Record<string, unknown>, R = never> extends Tool {
  readonly handler: (args: Args, ctx: ToolHandlerContext) => HandlerOutput<unknown, R>
  /** Type-level only: the services the handler requires. */
  readonly [Requirements]?: R
  readonly inputValidator: Validator<Args>
  readonly outputValidator?: Validator
  /**
   * Validates `args`, runs the handler and returns its result. Rejects with {@link InvalidArguments},
   * {@link ExecutionFailed}, {@link Cancelled}, or any {@link ToolError} the handler raised.
   */
  readonly invoke: (
    args: unknown,
    context?: ExecutionContext | ExecutionContextInit,
  ) => Promise<BackendResult>
}

const DEFINITION = Symbol.for("@toolplane/foundation/ToolDefinition")

/**
 * Defines a tool.
 *
 * @example
 * ```ts
 * import { defineTool } from "@toolplane/foundation"
 * import { z } from "zod"
 *
 * export const weather = defineTool({
 *   id: "weather/current",
 *   description: "Current weather for a city",
 *   input: z.object({ city: z.string() }),
 *   annotations: { readOnlyHint: true },
 *   handler: async ({ city }) => ({ city, tempC: 21 }),
 * })
 * ```
 * @since 0.1.0
 */
export const defineTool = <
  S extends SchemaSource = SchemaSource,
  O extends SchemaSource | undefined = undefined,
  Out = unknown,
>(
  options: DefineToolOptions<S, O, Out>,
): ToolDefinition<InferSchema<S>, HandlerRequirements<Out>> => {
  const { input, output, handler, ...spec } = options
  const named = spec as { id?: string; namespace?: string; name?: string }
  const toolId = named.id ?? `${named.namespace}/${named.name}`
  const inputSchema = input === undefined ? undefined : toJsonSchema(input, "input", toolId)
  // The handler's raw return value becomes structuredContent, so the declared schema is the output
  // schema's input side (what the handler produces before any transform).
  const outputSchema = output === undefined ? undefined : toJsonSchema(output, "input", toolId)
  const tool = makeTool({
    ...(spec as ToolSpec),
    ...(inputSchema ? { inputSchema } : {}),
    ...(outputSchema ? { outputSchema } : {}),
  })
  const inputValidator = validatorFor<InferSchema<S>>(input ?? tool.inputSchema, tool.id)
  const outputValidator = output === undefined ? undefined : validatorFor(output, tool.id)
  return finish({
    ...tool,
    handler: handler as ToolDefinition<InferSchema<S>>["handler"],
    inputValidator,
    ...(outputValidator ? { outputValidator } : {}),
  } as ToolDefinition<InferSchema<S>, HandlerRequirements<Out>>)
}

const finish = <D extends ToolDefinition<any, any>>(definition: D): D => {
  Object.defineProperty(definition, DEFINITION, { value: true })
  Object.defineProperty(definition, "invoke", {
    value: (args: unknown, context?: ExecutionContext | ExecutionContextInit) =>
      runDefinition(
        definition as unknown as ToolDefinition<any>,
        { toolId: definition.id, arguments: args as Record<string, unknown> },
        toContext(context),
      ),
    enumerable: false,
  })
  return definition
}

/**
 * Provides what the definitions' Effect handlers require (`R`) from the context this Effect runs in
 * (for example the Layer that registers them), the way Effect's `Toolkit.toHandlers` does: the
 * returned definitions need nothing but the call context and can be served by any backend.
 *
 * @example
 * ```ts no-check
 * class Greeter extends Context.Service<Greeter, { greet(name: string): string }>()("Greeter") {}
 * const hello = defineTool({
 *   id: "demo/hello",
 *   input: z.object({ name: z.string() }),
 *   handler: ({ name }) => Effect.map(Greeter, (g) => g.greet(name)),
 * })
 * const HelloBackend = backendLayer(Effect.map(bindHandlers([hello]), (defs) => localBackend(defs)))
 * // HelloBackend requires Greeter (and Backends): provide it with a Layer
 * ```
 * @since 0.1.0
 */
export const bindHandlers = <R>(
  definitions: readonly ToolDefinition<any, R>[],
): Effect.Effect<ToolDefinition<any>[], never, R> =>
  Effect.map(Effect.context<R>(), (services) =>
    definitions.map((definition) => {
      const handler = definition.handler
      const { inputValidator, outputValidator, handler: _handler, ...tool } = definition
      return finish({
        ...tool,
        inputValidator,
        ...(outputValidator ? { outputValidator } : {}),
        handler: (args: unknown, ctx: ToolHandlerContext) => {
          const out = handler(args, ctx)
          return Effect.isEffect(out) ? Effect.provideContext(out, services) : out
        },
      } as ToolDefinition<any>)
    }),
  )

/**
 * Tells whether a value was made by {@link defineTool}.
 *
 * @since 0.1.0
 */
export const isToolDefinition = (value: unknown): value is ToolDefinition<any> =>
  typeof value === "object" && value !== null && DEFINITION in value

/**
 * The canonical data of a definition, without handler and validators (safe to serialize).
 *
 * @since 0.1.0
 */
export const toolOf = (definition: ToolDefinition<any>): Tool => {
  const { handler: _h, inputValidator: _i, outputValidator: _o, ...tool } = definition
  return tool
}

const toFailure = (toolId: string, error: unknown, signal: AbortSignal): ToolError => {
  if (isToolError(error)) return error
  if (signal.aborted) {
    const reason = signal.reason
    if (isToolError(reason)) return reason
    return new Cancelled({ toolId, reason: reason instanceof Error ? reason.message : undefined })
  }
  return toToolError(error, toolId)
}

/**
 * Runs a definition for one backend call: validates (unless `call.validated`), runs the handler (value,
 * Promise or Effect; an Effect is interrupted when the context's signal aborts) and normalizes the
 * result. Rejects only with {@link ToolError}s.
 *
 * @since 0.1.0
 */
export const runDefinition = async (
  definition: ToolDefinition<any>,
  call: BackendCall,
  ctx: ExecutionContext,
): Promise<BackendResult> => {
  let args: unknown = call.arguments ?? {}
  if (!call.validated) {
    let checked = definition.inputValidator.validate(args)
    if (checked instanceof Promise) checked = await checked
    if (!checked.ok) throw new InvalidArguments({ toolId: definition.id, issues: checked.issues })
    args = checked.value
  }
  const handlerCtx: ToolHandlerContext = call.resume === undefined ? ctx : { ...ctx, resume: call.resume }
  let out: unknown
  try {
    out = definition.handler(args, handlerCtx)
    if (Effect.isEffect(out)) {
      out = await Effect.runPromise(
        Effect.provideService(out as Effect.Effect<unknown, unknown, CurrentContext>, CurrentContext, ctx),
        { signal: ctx.signal },
      )
    } else if (out instanceof Promise) {
      out = await out
    }
  } catch (error) {
    throw toFailure(definition.id, unwrapFiberFailure(error), ctx.signal)
  }
  if (ctx.signal.aborted) throw toFailure(definition.id, undefined, ctx.signal)
  return toToolResult(out)
}

const unwrapFiberFailure = (error: unknown): unknown => {
  if (error instanceof Error && isToolError(error.cause)) return error.cause
  return error
}
