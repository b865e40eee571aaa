/**
 * The enricher contract: a plugin that rewrites tool schemas when tools are listed and arguments
 * before a call runs, for the tool categories it supports. Contract only: the runner in
 * `@toolplane/exec` applies enrichers in registration order.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, type Scope } from "effect"
import { runTypedSync } from "./internal/effectBridge.js"
import type { JsonValue } from "./jsonSchema.js"
import type { Tool } from "./tool.js"
import { type ToolError, toToolError } from "./toolError.js"

/**
 * A follow-up a tool commonly leads to (e.g. a search leads to a fetch), used for speculative prefetch.
 *
 * @since 0.1.0
 */
export interface FollowUpLink {
  readonly toolId: string
  /** JSON pointer into the previous result selecting the values to project. */
  readonly projection?: string
  /** The follow-up argument that receives each projected value. */
  readonly projectionArg?: string
}

/**
 * What an enricher knows about a tool's value and cost, for planners.
 *
 * @since 0.1.0
 */
export interface ToolValueModel {
  readonly rateLimitHost?: string
  readonly followUps?: readonly FollowUpLink[]
  /** Relative cost of a call (1 = typical). */
  readonly cost?: number
}

/**
 * The enricher contract. Every method is present after {@link defineEnricher}.
 *
 * @since 0.1.0
 */
export interface Enricher {
  readonly name: string
  /** Tool categories this enricher applies to; tools of other categories are hidden while it is active. */
  supportedCategories(): readonly string[]
  /** Returns the tool as it should be listed (must not mutate its input). */
  enrichSchema(tool: Tool): Tool
  /** Returns the arguments the tool should receive (must not mutate its input). */
  transformArgs(toolId: string, args: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>>
  /** Optional value model for a tool. */
  valueModel(toolId: string): ToolValueModel | undefined
  /** Arguments for speculative follow-up calls given a previous result, or `undefined` for no opinion. */
  projectArgs(
    prevToolId: string,
    prevResult: JsonValue,
    link: FollowUpLink,
  ): readonly Record<string, unknown>[] | undefined
  /** The network host a call will reach, for per-host rate limiting, or `undefined`. */
  rateLimitHost(toolId: string, args: Readonly<Record<string, unknown>>): string | undefined
}

/**
 * What {@link defineEnricher} accepts: a name and supported categories; the rest defaults to identity
 * or "no opinion".
 *
 * @since 0.1.0
 */
export interface EnricherSpec extends Partial<Omit<Enricher, "name" | "supportedCategories">> {
  readonly name: string
  readonly categories: readonly string[]
}

/**
 * Makes a complete {@link Enricher} from a partial spec.
 *
 * @example
 * ```ts
 * const github = defineEnricher({
 *   name: "github-auth",
 *   categories: ["github"],
 *   transformArgs: (_id, args) => ({ ...args, token: process.env.GITHUB_TOKEN }),
 *   rateLimitHost: () => "api.github.com",
 * })
 * ```
 * @since 0.1.0
 */
export const defineEnricher = (spec: EnricherSpec): Enricher => ({
  ...sharedDefaults(spec),
  enrichSchema: spec.enrichSchema ?? ((tool) => tool),
  transformArgs: spec.transformArgs ?? ((_id, args) => args),
})

/** The members both forms of an enricher share (all but the two rewrites). */
type SharedMembers = Pick<
  Enricher,
  "name" | "supportedCategories" | "valueModel" | "projectArgs" | "rateLimitHost"
>

/** What both forms of an enricher default the same way: the name, the categories and "no opinion". */
const sharedDefaults = (spec: EnricherSpec | EffectEnricherSpec): SharedMembers => {
  const categories = [...spec.categories]
  return {
    name: spec.name,
    supportedCategories: () => categories,
    valueModel: spec.valueModel ?? (() => undefined),
    projectArgs: spec.projectArgs ?? (() => undefined),
    rateLimitHost: spec.rateLimitHost ?? (() => undefined),
  }
}

/**
 * The enricher contract, Effect form: each rewrite is an Effect that may fail with a typed
 * {@link ToolError} (the call or listing it belongs to then fails with it). The runner applies
 * enrichers synchronously, so these Effects must not be asynchronous; one that is fails with
 * `ExecutionFailed`. Made by {@link defineEffectEnricher} or {@link enricherToEffect}.
 *
 * @since 0.1.0
 */
export interface EffectEnricher
  extends Pick<Enricher, "name" | "supportedCategories" | "valueModel" | "projectArgs" | "rateLimitHost"> {
  /** Returns the tool as it should be listed (must not mutate its input). */
  enrichSchema(tool: Tool): Effect.Effect<Tool, ToolError>
  /** Returns the arguments the tool should receive (must not mutate its input). */
  transformArgs(
    toolId: string,
    args: Readonly<Record<string, unknown>>,
  ): Effect.Effect<Readonly<Record<string, unknown>>, ToolError>
}

/**
 * What {@link defineEffectEnricher} accepts: a name and categories; the rest defaults to identity or
 * "no opinion".
 *
 * @since 0.1.0
 */
export interface EffectEnricherSpec extends Partial<Omit<EffectEnricher, "name" | "supportedCategories">> {
  readonly name: string
  readonly categories: readonly string[]
}

/**
 * Makes a complete {@link EffectEnricher} from a partial spec.
 *
 * @example
 * ```ts
 * const auth = defineEffectEnricher({
 *   name: "github-auth",
 *   categories: ["github"],
 *   transformArgs: (toolId, args) =>
 *     process.env.GITHUB_TOKEN
 *       ? Effect.succeed({ ...args, token: process.env.GITHUB_TOKEN })
 *       : Effect.fail(new ConfigError({ path: "GITHUB_TOKEN", reason: `needed by ${toolId}` })),
 * })
 * ```
 * @since 0.1.0
 */
export const defineEffectEnricher = (spec: EffectEnricherSpec): EffectEnricher =>
  branded({
    ...sharedDefaults(spec),
    enrichSchema: spec.enrichSchema ?? Effect.succeed,
    transformArgs: spec.transformArgs ?? ((_id, args) => Effect.succeed(args)),
  })

/** The shared members of one form, delegating to the other (methods called on it, so `this` holds). */
const delegated = (enricher: SharedMembers): SharedMembers => ({
  name: enricher.name,
  supportedCategories: () => enricher.supportedCategories(),
  valueModel: (toolId) => enricher.valueModel(toolId),
  projectArgs: (prevToolId, prevResult, link) => enricher.projectArgs(prevToolId, prevResult, link),
  rateLimitHost: (toolId, args) => enricher.rateLimitHost(toolId, args),
})

const EFFECT_FORM = Symbol.for("@toolplane/foundation/EffectEnricher")
const branded = (enricher: EffectEnricher): EffectEnricher =>
  Object.defineProperty(enricher, EFFECT_FORM, { value: true })

/**
 * Views a plain enricher as an {@link EffectEnricher}; anything it throws becomes a typed failure.
 *
 * @since 0.1.0
 */
export const enricherToEffect = (enricher: Enricher): EffectEnricher =>
  branded({
    ...delegated(enricher),
    enrichSchema: (tool) =>
      Effect.try({ try: () => enricher.enrichSchema(tool), catch: (error) => toToolError(error, tool.id) }),
    transformArgs: (toolId, args) =>
      Effect.try({
        try: () => enricher.transformArgs(toolId, args),
        catch: (error) => toToolError(error, toolId),
      }),
  })

/**
 * Views an {@link EffectEnricher} as a plain enricher: each Effect runs synchronously and its typed
 * failure is thrown as is.
 *
 * @since 0.1.0
 */
export const enricherFromEffect = (enricher: EffectEnricher): Enricher => ({
  ...delegated(enricher),
  enrichSchema: (tool) => runTypedSync(enricher.enrichSchema(tool), tool.id),
  transformArgs: (toolId, args) => runTypedSync(enricher.transformArgs(toolId, args), toolId),
})

/**
 * Where Layers contribute enrichers: a registry the runner reads live (in the order enrichers were
 * added). `@toolplane/exec`'s runner Layer provides it; {@link enricherLayer} adds to it.
 *
 * @since 0.1.0
 */
export interface Enrichers {
  /** Adds an enricher after the present ones. Fails with `ConfigError` when the name is taken. */
  add(enricher: Enricher): Effect.Effect<void, ToolError>
  /** Removes an enricher; succeeds with whether it was present. */
  remove(name: string): Effect.Effect<boolean>
}

/**
 * The {@link Enrichers} registry as a Context tag.
 *
 * @since 0.1.0
 */
export const Enrichers: Context.Service<Enrichers, Enrichers> = Context.Service<Enrichers>(
  "@toolplane/foundation/Enrichers",
)

/**
 * A Layer contributing one enricher to {@link Enrichers}: added when built, removed when its scope
 * closes. `source` is a plain enricher, an {@link EffectEnricher}, or an Effect making either.
 *
 * @since 0.1.0
 */
export const enricherLayer = <E = never, R = never>(
  source: Enricher | EffectEnricher | Effect.Effect<Enricher | EffectEnricher, E, R>,
): Layer.Layer<never, ToolError | E, Enrichers | Exclude<R, Scope.Scope>> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const enrichers = yield* Enrichers
      const made = Effect.isEffect(source) ? yield* source : source
      const enricher = isEffectEnricher(made) ? enricherFromEffect(made) : made
      yield* Effect.acquireRelease(enrichers.add(enricher), () => enrichers.remove(enricher.name))
    }),
  )

const isEffectEnricher = (value: Enricher | EffectEnricher): value is EffectEnricher => EFFECT_FORM in value
