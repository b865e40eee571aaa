/**
 * Composite tools: virtual tools that fan the same arguments out to several target tools concurrently
 * and return all results in one.
 *
 * Result format (targets in definition order, whatever order they finish in):
 * - `content`: for each target, a text header block `[<target id>]` (`[<target id>] (error)` when it
 *   failed), then the target's own content blocks, or one text block with the error message when the
 *   call was rejected. Every block carries `_meta["toolplane/target"] = "<target id>"`.
 * - `structuredContent`: `{ results: [{ tool, ok, structuredContent?, error? }] }`, `error` being the
 *   JSON form of the typed error (`toolErrorToJson`).
 * - `isError: true` when any target failed (rejected, timed out, or returned `isError`); successful
 *   results are kept.
 *
 * In `gatewayStack` composite tools sit above aliasing (only search mode, when configured, wraps them):
 * their names are not alias-rewritten, and each target call goes through the whole inner chain
 * (aliasing, capability filtering, argument overrides, validation).
 *
 * @since 0.1.0
 */
import {
  type CallToolRequest,
  ConfigError,
  type ContentBlock,
  deriveContext,
  isToolId,
  type JsonSchema,
  type Middleware,
  suggestToolIds,
  Timeout,
  type Tool,
  type ToolError,
  type ToolResult,
  type ToolService,
  text,
  toContext,
  toolErrorToJson,
  toToolError,
} from "@toolplane/foundation"
import { type ListingOptions, listingService, resolveListing } from "../internal/listing.js"

/**
 * A composite tool.
 *
 * @since 0.1.0
 */
export interface CompositeToolDefinition {
  /** `namespace/name`, or a bare name placed in the composite namespace (default `composite`). */
  readonly name: string
  readonly description?: string
  /** Target tool ids, as the layer below composite lists them (aliases included). */
  readonly tools: readonly string[]
  /** Per-target timeout; a slower target is reported as a `Timeout` error and the others are kept. */
  readonly timeoutMs?: number
  /**
   * Listed input schema. Default: the targets' schema when they all share one; else, when every target
   * takes a plain object schema, their properties merged (see {@link compositeInputSchema}); else any
   * object (`{ type: "object", additionalProperties: true }`).
   */
  readonly inputSchema?: JsonSchema
  /** Only `"parallel"` (the default). */
  readonly strategy?: "parallel"
}

/**
 * Options of {@link compositeTools}.
 *
 * @since 0.1.0
 */
export interface CompositeOptions extends ListingOptions {
  /** Namespace of composite tools defined with a bare name. Default `composite`. */
  readonly namespace?: string
}

interface Resolved {
  readonly id: string
  readonly definition: CompositeToolDefinition
}

/** Any object, said explicitly so protocol adapters do not take it for a closed, empty object. */
const ANY_OBJECT: JsonSchema = Object.freeze({ type: "object", additionalProperties: true })
const TARGET_META = "toolplane/target"
/** The structured content every composite call returns (see {@link mergeOutcomes}). */
const COMPOSITE_OUTPUT: JsonSchema = Object.freeze({
  type: "object",
  properties: {
    results: {
      type: "array",
      description: "One entry per target, in definition order",
      items: {
        type: "object",
        properties: {
          tool: { type: "string" },
          ok: { type: "boolean" },
          structuredContent: { type: "object", additionalProperties: true },
          error: {
            type: "object",
            properties: { _tag: { type: "string" }, code: { type: "string" }, message: { type: "string" } },
            additionalProperties: true,
          },
        },
        required: ["tool", "ok"],
      },
    },
  },
  required: ["results"],
})

/**
 * Validates definitions (non-empty unique names, at least one target, valid unique target ids, positive
 * timeouts) and resolves their ids. Fails with `ConfigError` at `composite_tools[i]...`.
 *
 * @since 0.1.0
 */
export const resolveComposites = (
  definitions: readonly CompositeToolDefinition[],
  namespace = "composite",
): readonly Resolved[] => {
  if (!Array.isArray(definitions))
    throw new ConfigError({ path: "composite_tools", reason: "must be an array" })
  const ids = new Map<string, number>()
  const out = definitions.map((definition, i): Resolved => {
    const at = `composite_tools[${i}]`
    if (typeof definition !== "object" || definition === null)
      throw new ConfigError({ path: at, reason: "a composite tool must be an object" })
    const name = definition.name
    if (typeof name !== "string" || name.trim() === "")
      throw new ConfigError({ path: `${at}.name`, reason: "a composite tool needs a non-empty name" })
    const id = name.includes("/") ? name : `${namespace}/${name}`
    if (!isToolId(id)) throw new ConfigError({ path: `${at}.name`, reason: `"${id}" is not a valid tool id` })
    const previous = ids.get(id)
    if (previous !== undefined)
      throw new ConfigError({
        path: `${at}.name`,
        reason: `"${id}" is also defined by composite_tools[${previous}]`,
      })
    ids.set(id, i)
    if (!Array.isArray(definition.tools) || definition.tools.length === 0)
      throw new ConfigError({
        path: `${at}.tools`,
        reason: "a composite tool needs at least one target tool",
      })
    const seen = new Set<string>()
    ;(definition.tools as readonly string[]).forEach((target: string, j: number) => {
      if (!isToolId(target))
        throw new ConfigError({
          path: `${at}.tools[${j}]`,
          reason: `${JSON.stringify(target)} is not a "namespace/name" tool id`,
        })
      if (seen.has(target))
        throw new ConfigError({ path: `${at}.tools[${j}]`, reason: `"${target}" is listed twice` })
      seen.add(target)
    })
    if (
      definition.timeoutMs !== undefined &&
      !(definition.timeoutMs > 0 && Number.isFinite(definition.timeoutMs))
    )
      throw new ConfigError({
        path: `${at}.timeoutMs`,
        reason: `must be a positive number of milliseconds, got ${definition.timeoutMs}`,
      })
    if (definition.strategy !== undefined && definition.strategy !== "parallel")
      throw new ConfigError({
        path: `${at}.strategy`,
        reason: `unknown strategy "${definition.strategy}" (only "parallel")`,
      })
    return { id, definition }
  })
  for (const [i, { definition }] of out.entries())
    for (const [j, target] of definition.tools.entries())
      if (ids.has(target))
        throw new ConfigError({
          path: `composite_tools[${i}].tools[${j}]`,
          reason: `"${target}" is a composite tool; targets must be tools of the inner service`,
        })
  return out
}

/**
 * Checks every target exists among `tools` (the listing below the composite layer) and no composite
 * shadows a tool. `hint(id)` may explain a missing target (e.g. "hidden by capability filtering").
 * Fails with `ConfigError` at `composite_tools[i].tools[j]`.
 *
 * @since 0.1.0
 */
export const checkCompositeTargets = (
  definitions: readonly CompositeToolDefinition[],
  tools: readonly Tool[],
  options: { readonly namespace?: string; readonly hint?: (id: string) => string | undefined } = {},
): void => {
  const ids = new Set(tools.map((t) => t.id))
  resolveComposites(definitions, options.namespace).forEach(({ id, definition }, i) => {
    if (ids.has(id))
      throw new ConfigError({
        path: `composite_tools[${i}].name`,
        reason: `"${id}" collides with an existing tool`,
      })
    definition.tools.forEach((target, j) => {
      if (ids.has(target)) return
      const extra = options.hint?.(target)
      const suggestions = suggestToolIds(target, ids)
      throw new ConfigError({
        path: `composite_tools[${i}].tools[${j}]`,
        reason: `target "${target}" does not exist${extra ? ` (${extra})` : ""}${suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(", ")}?` : ""}`,
      })
    })
  })
}

const sameSchema = (schemas: readonly JsonSchema[]): boolean => {
  const first = JSON.stringify(schemas[0])
  return schemas.every((s) => s === schemas[0] || JSON.stringify(s) === first)
}

/** Keywords that describe a schema without constraining it. */
const ANNOTATIONS = new Set(["title", "description", "examples", "default", "$comment", "deprecated"])
/** Keywords of an object schema whose properties can be merged; anything else is left alone. */
const MERGEABLE = new Set([
  ...ANNOTATIONS,
  "$schema",
  "type",
  "properties",
  "required",
  "additionalProperties",
])

/** JSON with sorted keys, annotations dropped at the top level. */
const canonical = (value: unknown, top = true): string => {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, false)).join(",")}]`
  if (typeof value !== "object" || value === null) return JSON.stringify(value)
  const keys = Object.keys(value)
    .filter((k) => !(top && ANNOTATIONS.has(k)))
    .sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k], false)}`).join(",")}}`
}

const isMergeableObject = (schema: JsonSchema): boolean =>
  schema.type === "object" &&
  Object.keys(schema).every((k) => MERGEABLE.has(k)) &&
  (schema.properties === undefined || (typeof schema.properties === "object" && schema.properties !== null))

/** One property shared by several targets: the same schema (annotations aside), or the same `type`. */
const mergeProperty = (schemas: readonly JsonSchema[]): JsonSchema | undefined => {
  const first = schemas[0]!
  const key = canonical(first)
  if (schemas.every((s) => canonical(s) === key)) return first
  const type = canonical(first.type)
  if (first.type === undefined || !schemas.every((s) => canonical(s.type) === type)) return undefined
  return {
    type: first.type,
    ...(typeof first.description === "string" ? { description: first.description } : {}),
  } as JsonSchema
}

/**
 * The input schema listed for a composite whose targets have these schemas: the shared schema when
 * they are all equal; else, when every one is a plain object schema (`type: "object"`, `properties`,
 * `required`, `additionalProperties` and annotations only) and every property they share has the same
 * schema or at least the same `type`, an object schema with every target's properties (a shared one
 * from the first target that has it, or reduced to its `type` when their constraints differ) and
 * `required` the properties every target requires (`additionalProperties: false` only when every
 * target says so); else any object, `{ type: "object", additionalProperties: true }`. Each target
 * still checks the arguments against its own schema.
 *
 * @since 0.1.0
 */
export const compositeInputSchema = (schemas: readonly JsonSchema[]): JsonSchema => {
  if (schemas.length === 0) return ANY_OBJECT
  if (sameSchema(schemas)) return schemas[0]!
  if (!schemas.every(isMergeableObject)) return ANY_OBJECT
  const byName = new Map<string, JsonSchema[]>()
  for (const schema of schemas)
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const list = byName.get(name)
      if (list) list.push(property as JsonSchema)
      else byName.set(name, [property as JsonSchema])
    }
  const properties: Record<string, JsonSchema> = {}
  for (const [name, list] of byName) {
    const merged = mergeProperty(list)
    if (merged === undefined) return ANY_OBJECT
    properties[name] = merged
  }
  const requiredBy = (s: JsonSchema): readonly string[] => (Array.isArray(s.required) ? s.required : [])
  const required = requiredBy(schemas[0]!).filter((name) =>
    schemas.every((s) => requiredBy(s).includes(name)),
  )
  const closed = schemas.every((s) => s.additionalProperties === false)
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(closed ? { additionalProperties: false } : {}),
  } as JsonSchema
}

const listedTool = (resolved: Resolved, inner: ReadonlyMap<string, Tool>): Tool => {
  const { id, definition } = resolved
  const targets = definition.tools.map((t) => inner.get(t))
  const present = targets.every((t) => t !== undefined) ? (targets as Tool[]) : undefined
  const inputSchema =
    definition.inputSchema ?? (present ? compositeInputSchema(present.map((t) => t.inputSchema)) : ANY_OBJECT)
  const readOnly = present?.every((t) => t.annotations?.readOnlyHint === true) === true
  const slash = id.indexOf("/")
  return {
    id,
    namespace: id.slice(0, slash),
    name: id.slice(slash + 1),
    description:
      definition.description ??
      `Calls ${definition.tools.join(", ")} with the same arguments and returns every result`,
    inputSchema,
    outputSchema: COMPOSITE_OUTPUT,
    ...(readOnly ? { annotations: { readOnlyHint: true } } : {}),
    metadata: { composite: { tools: [...definition.tools] } },
  }
}

type Outcome = { readonly target: string; readonly result?: ToolResult; readonly error?: ToolError }

const callTarget = async (
  next: ToolService,
  request: CallToolRequest,
  target: string,
  timeoutMs: number | undefined,
): Promise<Outcome> => {
  if (timeoutMs === undefined) {
    try {
      return {
        target,
        result: await next.callTool({
          name: target,
          arguments: request.arguments ?? {},
          ...(request.context ? { context: request.context } : {}),
        }),
      }
    } catch (error) {
      return { target, error: toToolError(error, target) }
    }
  }
  const ctx = toContext(request.context)
  const controller = new AbortController()
  const timeout = new Timeout({ toolId: target, timeoutMs })
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(timeout)
      reject(timeout)
    }, timeoutMs)
  })
  const deadline = Date.now() + timeoutMs
  const context = deriveContext(ctx, {
    signal: AbortSignal.any([ctx.signal, controller.signal]),
    deadline: ctx.deadline === undefined ? deadline : Math.min(ctx.deadline, deadline),
  })
  try {
    const result = await Promise.race([
      next.callTool({ name: target, arguments: request.arguments ?? {}, context }),
      expired,
    ])
    return { target, result }
  } catch (error) {
    return { target, error: toToolError(error, target) }
  } finally {
    clearTimeout(timer)
  }
}

const tag = (block: ContentBlock, target: string): ContentBlock => ({
  ...block,
  _meta: { ...block._meta, [TARGET_META]: target },
})

/**
 * Merges target outcomes into one result (the format in this module's documentation).
 *
 * @since 0.1.0
 */
export const mergeOutcomes = (outcomes: readonly Outcome[]): ToolResult => {
  const content: ContentBlock[] = []
  const results: Record<string, unknown>[] = []
  let failed = false
  for (const o of outcomes) {
    const ok = o.error === undefined && o.result?.isError !== true
    if (!ok) failed = true
    content.push(tag(text(ok ? `[${o.target}]` : `[${o.target}] (error)`), o.target))
    if (o.error) {
      content.push(tag(text(o.error.message), o.target))
      results.push({ tool: o.target, ok: false, error: toolErrorToJson(o.error) })
    } else {
      for (const block of o.result!.content) content.push(tag(block, o.target))
      results.push({
        tool: o.target,
        ok,
        ...(o.result!.structuredContent !== undefined
          ? { structuredContent: o.result!.structuredContent }
          : {}),
      })
    }
  }
  return { content, structuredContent: { results }, ...(failed ? { isError: true } : {}) }
}

/**
 * The composite-tools middleware: lists composite tools with the inner tools and fans calls out.
 *
 * @example
 * ```ts
 * compositeTools([{ name: "search_all", tools: ["github/search", "docs/search"], timeoutMs: 5000 }])
 * ```
 * @since 0.1.0
 */
export const compositeTools = (
  definitions: readonly CompositeToolDefinition[],
  options: CompositeOptions = {},
): Middleware => {
  const resolved = resolveComposites(definitions, options.namespace)
  const byId = new Map(resolved.map((r) => [r.id, r]))
  const listing = resolveListing(options, "composite_tools")
  return (next) =>
    listingService({
      next,
      purpose: "compose/composite/tools/list",
      listing,
      derive: (inner) => {
        const map = new Map(inner.map((t) => [t.id, t]))
        return [...inner.filter((t) => !byId.has(t.id)), ...resolved.map((r) => listedTool(r, map))]
      },
      call: (request) => {
        const composite = byId.get(request.name)
        if (!composite) return next.callTool(request)
        const { tools, timeoutMs } = composite.definition
        return Promise.all(tools.map((t) => callTarget(next, request, t, timeoutMs))).then(mergeOutcomes)
      },
    })
}
