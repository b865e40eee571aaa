/**
 * Argument injection and parameter overrides, per tool: hide a parameter (optionally injecting a fixed
 * value the caller cannot override), give it a default, or rename it. The listing shows the schema the
 * caller should use; calls are rewritten back to what the tool expects.
 *
 * Rules are keyed by tool id patterns (exact, glob such as `github/*`, or `re:`), as the inner service
 * names tools (before aliasing). Several matching keys merge in declaration order, later ones winning
 * per parameter.
 *
 * @since 0.1.0
 */
import {
  ConfigError,
  getOwn,
  type JsonSchema,
  type Middleware,
  setOwn,
  type Tool,
} from "@toolplane/foundation"
import { compileIdPatterns, type IdMatcher } from "../internal/glob.js"
import { type ListingOptions, listingService, resolveListing } from "../internal/listing.js"
import { memoizeByTool } from "../internal/memo.js"

/**
 * What to do with one parameter. `value` injects a fixed value and hides the parameter; `hide` alone
 * drops whatever the caller sends; `default` makes it optional with that default; `rename` exposes it
 * under another name.
 *
 * @since 0.1.0
 */
export interface ParameterOverride {
  readonly hide?: boolean
  readonly value?: unknown
  readonly default?: unknown
  readonly rename?: string
}

/**
 * Overrides: tool id pattern → parameter name → override.
 *
 * @example
 * ```ts
 * const overrides: ArgumentOverrides = {
 *   "github/*": { token: { value: process.env.GITHUB_TOKEN } },
 *   "github/search_issues": { per_page: { default: 20 }, q: { rename: "query" } },
 * }
 * ```
 * @since 0.1.0
 */
export type ArgumentOverrides = Readonly<Record<string, Readonly<Record<string, ParameterOverride>>>>

interface Rule {
  readonly match: IdMatcher
  readonly params: Readonly<Record<string, ParameterOverride>>
}

const compileRules = (overrides: ArgumentOverrides): readonly Rule[] =>
  Object.entries(overrides).map(([pattern, params]) => {
    const at = `argument_overrides[${JSON.stringify(pattern)}]`
    if (typeof params !== "object" || params === null)
      throw new ConfigError({ path: at, reason: "must map parameter names to overrides" })
    const renamedTo = new Map<string, string>()
    for (const [param, o] of Object.entries(params)) {
      const p = `${at}.${param}`
      if (typeof o !== "object" || o === null)
        throw new ConfigError({ path: p, reason: "an override must be an object" })
      const hides = o.hide === true || "value" in o
      if ("value" in o && "default" in o)
        throw new ConfigError({ path: p, reason: '"value" (injected) and "default" exclude each other' })
      if (o.rename !== undefined) {
        if (typeof o.rename !== "string" || o.rename === "")
          throw new ConfigError({ path: `${p}.rename`, reason: "must be a non-empty string" })
        if (hides) throw new ConfigError({ path: p, reason: "a hidden parameter cannot be renamed" })
        if (Object.hasOwn(params, o.rename) && o.rename !== param)
          throw new ConfigError({
            path: `${p}.rename`,
            reason: `"${o.rename}" is also a configured parameter`,
          })
        const other = renamedTo.get(o.rename)
        if (other !== undefined)
          throw new ConfigError({
            path: `${p}.rename`,
            reason: `"${other}" is already renamed to "${o.rename}"`,
          })
        renamedTo.set(o.rename, param)
      }
    }
    return { match: compileIdPatterns([pattern], "argument_overrides"), params }
  })

/** The merged overrides of one tool, or undefined. */
const overridesFor = (
  rules: readonly Rule[],
  id: string,
): Readonly<Record<string, ParameterOverride>> | undefined => {
  let merged: Record<string, ParameterOverride> | undefined
  for (const rule of rules) if (rule.match(id)) merged = { ...merged, ...rule.params }
  return merged
}

const clone = <A>(value: A): A =>
  typeof value === "object" && value !== null ? structuredClone(value) : value

/**
 * The schema a caller sees.
 *
 * @since 0.1.0
 */
export const overrideSchema = (
  schema: JsonSchema,
  params: Readonly<Record<string, ParameterOverride>>,
): JsonSchema => {
  const properties: Record<string, JsonSchema> = { ...(schema.properties ?? {}) }
  let required = [...(schema.required ?? [])]
  for (const [param, o] of Object.entries(params)) {
    if (o.hide === true || "value" in o) {
      delete properties[param]
      required = required.filter((r) => r !== param)
    } else if ("default" in o) {
      setOwn(properties, param, { ...(getOwn(properties, param) ?? {}), default: o.default })
      required = required.filter((r) => r !== param)
    }
  }
  for (const [param, o] of Object.entries(params)) {
    if (o.rename === undefined || !Object.hasOwn(properties, param)) continue
    setOwn(properties, o.rename, properties[param])
    delete properties[param]
    required = required.map((r) => (r === param ? o.rename! : r))
  }
  const { required: _r, ...rest } = schema
  return { ...rest, properties, ...(required.length > 0 ? { required } : {}) }
}

/**
 * The arguments the tool receives.
 *
 * @since 0.1.0
 */
export const overrideArguments = (
  args: Readonly<Record<string, unknown>>,
  params: Readonly<Record<string, ParameterOverride>>,
): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...args }
  for (const [param, o] of Object.entries(params)) {
    if (o.rename !== undefined) {
      delete out[param]
      if (Object.hasOwn(args, o.rename)) {
        setOwn(out, param, args[o.rename])
        delete out[o.rename]
      }
    }
  }
  for (const [param, o] of Object.entries(params)) {
    if ("value" in o) setOwn(out, param, clone(o.value))
    else if (o.hide === true) delete out[param]
    else if ("default" in o && getOwn(out, param) === undefined) setOwn(out, param, clone(o.default))
  }
  return out
}

/**
 * Checks overrides against the inner tools: every exact key names a tool, no renamed parameter collides
 * with an existing one, and a hidden required parameter gets a value. Fails with `ConfigError`.
 *
 * @since 0.1.0
 */
export const checkArgumentOverrides = (overrides: ArgumentOverrides, tools: readonly Tool[]): void => {
  const rules = compileRules(overrides)
  const ids = new Set(tools.map((t) => t.id))
  for (const pattern of Object.keys(overrides))
    if (!/[*?]/.test(pattern) && !pattern.startsWith("re:") && !ids.has(pattern))
      throw new ConfigError({
        path: `argument_overrides[${JSON.stringify(pattern)}]`,
        reason: `no tool "${pattern}"`,
      })
  for (const tool of tools) {
    const params = overridesFor(rules, tool.id)
    if (!params) continue
    const properties = tool.inputSchema.properties ?? {}
    for (const [param, o] of Object.entries(params)) {
      const at = `argument_overrides(${tool.id}).${param}`
      if (o.rename !== undefined && Object.hasOwn(properties, o.rename) && !Object.hasOwn(params, o.rename))
        throw new ConfigError({
          path: `${at}.rename`,
          reason: `"${tool.id}" already has a parameter "${o.rename}"`,
        })
      if (o.hide === true && !("value" in o) && (tool.inputSchema.required ?? []).includes(param))
        throw new ConfigError({
          path: at,
          reason: `"${param}" is required by "${tool.id}"; give a value to inject`,
        })
    }
  }
}

/**
 * The argument-overrides middleware.
 *
 * @since 0.1.0
 */
export const argumentOverrides = (overrides: ArgumentOverrides, options: ListingOptions = {}): Middleware => {
  const rules = compileRules(overrides)
  const listing = resolveListing(options, "argument_overrides")
  const perTool = new Map<string, Readonly<Record<string, ParameterOverride>> | null>()
  const paramsOf = (id: string) => {
    let p = perTool.get(id)
    if (p === undefined) {
      p = overridesFor(rules, id) ?? null
      if (perTool.size < 10_000) perTool.set(id, p)
    }
    return p
  }
  const listed = memoizeByTool(
    (tool): Tool => ({
      ...tool,
      inputSchema: overrideSchema(tool.inputSchema, paramsOf(tool.id)!),
    }),
  )
  return (next) =>
    listingService({
      next,
      purpose: "compose/argument-overrides/tools/list",
      listing,
      derive: (inner) =>
        inner.map((tool) => {
          return paramsOf(tool.id) ? listed(tool) : tool
        }),
      call: (request) => {
        const params = paramsOf(request.name)
        if (!params) return next.callTool(request)
        return next.callTool({ ...request, arguments: overrideArguments(request.arguments ?? {}, params) })
      },
    })
}
