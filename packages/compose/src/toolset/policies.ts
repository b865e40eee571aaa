/**
 * Access policies. They run after the filters, in the order they were added, and the first policy that
 * decides wins: a policy returns `"allow"`, `"deny"`, or `undefined` to abstain. With no policy at all
 * every filtered tool is allowed; with policies, a tool no policy decides is denied (end with
 * {@link allowAll} for default-allow).
 *
 * @since 0.1.0
 */
import { normalizeTag, type Tool } from "@toolplane/foundation"

/**
 * A policy's verdict on one tool; `undefined` abstains.
 *
 * @since 0.1.0
 */
export type PolicyDecision = "allow" | "deny" | undefined

/**
 * An access policy. `decide` must be pure.
 *
 * @since 0.1.0
 */
export interface Policy {
  readonly name: string
  decide(tool: Tool): PolicyDecision
}

/**
 * Makes a policy from a function.
 *
 * @since 0.1.0
 */
export const definePolicy = (name: string, decide: (tool: Tool) => PolicyDecision): Policy => ({
  name,
  decide,
})

/**
 * Allows every tool that reaches it.
 *
 * @since 0.1.0
 */
export const allowAll = (): Policy => definePolicy("allowAll", () => "allow")

/**
 * Denies every tool that reaches it.
 *
 * @since 0.1.0
 */
export const denyAll = (): Policy => definePolicy("denyAll", () => "deny")

/**
 * Allows tools of the given namespaces; abstains on the others.
 *
 * @since 0.1.0
 */
export const allowNamespaces = (...namespaces: readonly string[]): Policy => {
  const set = new Set(namespaces)
  return definePolicy(`allowNamespaces(${namespaces.join(",")})`, (tool) =>
    set.has(tool.namespace) ? "allow" : undefined,
  )
}

/**
 * Denies tools carrying any of the given tags; abstains on the others.
 *
 * @since 0.1.0
 */
export const denyTags = (...tags: readonly string[]): Policy => {
  const set = new Set(tags.map(normalizeTag))
  return definePolicy(`denyTags(${[...set].join(",")})`, (tool) =>
    (tool.tags ?? []).some((t) => set.has(normalizeTag(t))) ? "deny" : undefined,
  )
}

/**
 * Options of {@link allowScopes}.
 *
 * @since 0.1.0
 */
export interface ScopeOptions {
  /** Where a tool declares the scopes it needs. Default: `tool.metadata.scopes` (a string array). */
  readonly scopesOf?: (tool: Tool) => readonly string[] | undefined
}

const defaultScopesOf = (tool: Tool): readonly string[] | undefined => {
  const scopes = tool.metadata?.scopes
  return Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === "string") : undefined
}

/**
 * Scope-based access: a tool that declares required scopes is allowed when every one is granted and
 * denied otherwise; a tool that declares none is left to the next policy.
 *
 * @example
 * ```ts
 * allowScopes(["repo:read", "issues:write"])
 * ```
 * @since 0.1.0
 */
export const allowScopes = (granted: readonly string[], options: ScopeOptions = {}): Policy => {
  const set = new Set(granted)
  const scopesOf = options.scopesOf ?? defaultScopesOf
  return definePolicy(`allowScopes(${granted.join(",")})`, (tool) => {
    const needed = scopesOf(tool)
    if (needed === undefined || needed.length === 0) return undefined
    return needed.every((s) => set.has(s)) ? "allow" : "deny"
  })
}

/**
 * Runs policies in order; the first decision wins. No policies allows; policies that all abstain deny.
 *
 * @since 0.1.0
 */
export const evaluatePolicies = (
  policies: readonly Policy[],
  tool: Tool,
): { readonly allowed: boolean; readonly by?: string } => {
  if (policies.length === 0) return { allowed: true }
  for (const policy of policies) {
    const decision = policy.decide(tool)
    if (decision !== undefined) return { allowed: decision === "allow", by: policy.name }
  }
  return { allowed: false, by: "(no policy decided: default deny)" }
}
