/**
 * Step 1, resolution: the tool id names a visible tool served by a registered backend, or the call
 * fails with {@link ToolNotFound} and the closest visible ids as suggestions. Everything the rest of the
 * pipeline needs about a tool is computed once per registry version into a {@link ToolEntry}.
 *
 * @since 0.1.0
 */
import {
  type Backend,
  type Enricher,
  type RegisteredTool,
  suggestToolIds,
  type Tool,
  ToolNotFound,
  type Validator,
} from "@toolplane/foundation"
import type { RetryOptions } from "../options.js"
import { enricherApplies } from "./enrich.js"
import type { EntryLimits, LimitSet } from "./limits.js"
import { type RetryPolicy, retryPolicyFor } from "./retry.js"
import { inputValidatorOf, outputValidatorOf } from "./validate.js"

/**
 * A resolved tool with everything its calls need, precomputed.
 *
 * @since 0.1.0
 */
export interface ToolEntry {
  readonly id: string
  /** The tool as listed (enriched, without handler). */
  readonly tool: Tool
  readonly backend: Backend
  readonly backendName: string
  readonly validator: Validator
  /** The backend must validate again (an enricher changed the listed schema). */
  readonly backendRevalidates: boolean
  readonly outputValidator: Validator | undefined
  /** Enrichers applying to this tool, in registration order. */
  readonly enrichers: readonly Enricher[]
  /** Whether the backend requires approval; `undefined` until asked. */
  approval: boolean | undefined
  readonly limits: EntryLimits | undefined
  /** The tool's own timeout, else the runner's default. */
  readonly timeoutMs: number | undefined
  readonly retry: RetryPolicy | undefined
  /** The tool returns continuation pages. */
  readonly paginated: boolean
}

/**
 * What building an entry needs from the runner.
 *
 * @since 0.1.0
 */
export interface EntryDeps {
  readonly enrichers: readonly Enricher[]
  readonly limits: LimitSet
  readonly retry: RetryOptions | false | undefined
  readonly defaultTimeoutMs: number | undefined
}

/**
 * Builds the entry of a registered tool given its listed form.
 *
 * @since 0.1.0
 */
export const makeEntry = (registered: RegisteredTool, listed: Tool, deps: EntryDeps): ToolEntry => {
  const served = registered.tool
  const enrichers = deps.enrichers.filter((e) => enricherApplies(e, served))
  const { validator, backendRevalidates } = inputValidatorOf(served, listed)
  return {
    id: served.id,
    tool: listed,
    backend: registered.backend,
    backendName: registered.backend.name,
    validator,
    backendRevalidates,
    outputValidator: outputValidatorOf(served),
    enrichers,
    approval: undefined,
    limits: deps.limits.forTool(served.id, registered.backend.name, enrichers),
    timeoutMs: served.timeoutMs ?? deps.defaultTimeoutMs,
    retry: retryPolicyFor(served, deps.retry),
    paginated: served.paginated === true,
  }
}

/**
 * The failure for an unknown (or hidden) tool id, with suggestions among the visible ids.
 *
 * @since 0.1.0
 */
export const toolNotFound = (name: unknown, visibleIds: readonly string[]): ToolNotFound => {
  const toolId = typeof name === "string" ? name : String(name)
  return new ToolNotFound({ toolId, suggestions: suggestToolIds(toolId, visibleIds) })
}
