/**
 * The enricher contract: a plugin that rewrites tool schemas when tools are listed and arguments
 * before a call runs, for the tool categories it supports. Contract only: the runner in
 * `@toolplane/exec` applies enrichers in registration order.
 *
 * @since 0.1.0
 */
import type { JsonValue } from "./JsonSchema.js"
import type { Tool } from "./Tool.js"

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
export const defineEnricher = (spec: EnricherSpec): Enricher => {
  const categories = [...spec.categories]
  return {
    name: spec.name,
    supportedCategories: () => categories,
    enrichSchema: spec.enrichSchema ?? ((tool) => tool),
    transformArgs: spec.transformArgs ?? ((_id, args) => args),
    valueModel: spec.valueModel ?? (() => undefined),
    projectArgs: spec.projectArgs ?? (() => undefined),
    rateLimitHost: spec.rateLimitHost ?? (() => undefined),
  }
}
