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
} from "./ExecutionContext.js"
import { type InferSchema, type JsonValue, type SchemaSource, toJsonSchema } from "./JsonSchema.js"
import { makeTool, type Tool, type ToolFields, type ToolIdentity, type ToolSpec } from "./Tool.js"
import type { BackendCall } from "./ToolCall.js"
import {
  Cancelled,
  causeOf,
  ExecutionFailed,
  InvalidArguments,
  isToolError,
  type ToolError,
} from "./ToolError.js"
import { type BackendResult, type Page, toToolResult } from "./ToolResult.js"
import { type Validator, validatorFor } from "./Validator.js"

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
export type HandlerOutput<R> =
  | R
  | Page<R>
  | Promise<R | Page<R>>
  | Effect.Effect<R | Page<R>, unknown, CurrentContext>

type OutputOf<O> = O extends StandardSchemaV1<infer I, any> ? I : O extends undefined ? unknown : unknown

/**
 * The options of {@link defineTool}.
 *
 * @since 0.1.0
 */
export type DefineToolOptions<S extends SchemaSource, O extends SchemaSource | undefined> = ToolFields &
  ToolIdentity & {
    /** Argument schema. Omit for a tool without arguments. */
    readonly input?: S
    /** Schema of the structured result. */
    readonly output?: O
    readonly handler: (args: InferSchema<S>, ctx: ToolHandlerContext) => HandlerOutput<OutputOf<O> | unknown>
  }

/**
 * A tool with its implementation: canonical {@link Tool} data plus a handler, the compiled validators
 * and `invoke`, which validates, runs and normalizes a call without any backend.
 *
 * @since 0.1.0
 */
export interface ToolDefinition<Args = Record<string, unknown>> extends Tool {
  readonly handler: (args: Args, ctx: ToolHandlerContext) => HandlerOutput<unknown>
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
>(
  options: DefineToolOptions<S, O>,
): ToolDefinition<InferSchema<S>> => {
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
  const definition = {
    ...tool,
    handler: handler as ToolDefinition<InferSchema<S>>["handler"],
    inputValidator,
    ...(outputValidator ? { outputValidator } : {}),
  } as ToolDefinition<InferSchema<S>>
  Object.defineProperty(definition, DEFINITION, { value: true })
  Object.defineProperty(definition, "invoke", {
    value: (args: unknown, context?: ExecutionContext | ExecutionContextInit) =>
      runDefinition(
        definition,
        { toolId: definition.id, arguments: args as Record<string, unknown> },
        toContext(context),
      ),
    enumerable: false,
  })
  return definition
}

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
  return new ExecutionFailed({ toolId, cause: causeOf(error) })
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
