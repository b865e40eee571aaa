/**
 * Request validation at the edge of the gateway: the arguments must be a JSON object no larger than a
 * cap, and must match the tool's input schema as the inner service lists it. A rejected call never
 * reaches the inner service.
 *
 * @since 0.1.0
 */
import {
  type CallToolRequest,
  ConfigError,
  compileJsonSchema,
  InvalidArguments,
  type InvalidArguments as InvalidArgumentsType,
  isJsonObject,
  type Middleware,
  suggestToolIds,
  type Tool,
  ToolNotFound,
  type ToolResult,
  type ToolService,
  type ValidationResult,
  type Validator,
} from "@toolplane/foundation"
import {
  FULL_LISTING,
  fullListing,
  ListingCache,
  type ListingOptions,
  type ListingService,
  lookup,
  resolveListing,
  snapshotOf,
} from "../internal/listing.js"
import { memoizeByTool } from "../internal/memo.js"

/**
 * Options of {@link requestValidation}.
 *
 * @since 0.1.0
 */
export interface ValidationOptions extends Pick<ListingOptions, "listingTtlMs" | "changes"> {
  /** Largest accepted argument object, in bytes of its JSON (UTF-8). Default 1 MiB. */
  readonly maxArgumentBytes?: number
  /** Check arguments against the listed input schema. Default true. */
  readonly validateSchema?: boolean
}

/** {@link sizeUpperBound} with an explicit stack, for values nested deeper than the recursion allows. */
const sizeUpperBoundDeep = (value: unknown, budget: number): number => {
  let total = 0
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === "string") total += v.length * 6 + 2
    else if (typeof v === "number" || typeof v === "bigint") total += 25
    else if (v === null || typeof v === "boolean" || v === undefined) total += 5
    else if (Array.isArray(v)) {
      total += 2 + v.length
      for (const x of v) stack.push(x)
    } else if (typeof v === "object") {
      for (const k in v) {
        total += k.length * 6 + 4
        stack.push((v as Record<string, unknown>)[k])
      }
      total += 2
    }
    if (total > budget) return Number.POSITIVE_INFINITY
  }
  return total
}

/**
 * An upper bound of the JSON byte size, or `Infinity` once it passes `budget`. Recursive and
 * allocation-free (the common argument object, a few short primitives, costs one pass over its keys);
 * below 32 levels it hands over to the explicit-stack version.
 */
const sizeUpperBound = (value: unknown, budget: number, depth = 0): number => {
  if (typeof value === "string") return value.length * 6 + 2
  if (typeof value === "number" || typeof value === "bigint") return 25
  if (value === null || typeof value !== "object") return 5
  if (depth > 32) return sizeUpperBoundDeep(value, budget)
  let total = 2
  if (Array.isArray(value)) {
    total += value.length
    for (let i = 0; i < value.length && total <= budget; i++)
      total += sizeUpperBound(value[i], budget - total, depth + 1)
  } else {
    for (const k in value) {
      total +=
        k.length * 6 + 4 + sizeUpperBound((value as Record<string, unknown>)[k], budget - total, depth + 1)
      if (total > budget) break
    }
  }
  return total > budget ? Number.POSITIVE_INFINITY : total
}

/**
 * The exact UTF-8 size of the JSON of `value`.
 *
 * @since 0.1.0
 */
export const jsonByteLength = (value: unknown): number =>
  Buffer.byteLength(JSON.stringify(value) ?? "", "utf8")

const tooBig = (toolId: string, size: number, max: number): InvalidArgumentsType =>
  new InvalidArguments({
    toolId,
    issues: [
      { path: "", rule: "maxBytes", message: `arguments are ${size} bytes of JSON; the limit is ${max}` },
    ],
  })

/**
 * Validates every call's arguments before passing it on: a JSON object (`type`), at most
 * `maxArgumentBytes` (`maxBytes`), matching the tool's input schema (the schema's rules, with JSON
 * pointers). A tool the inner service does not list is `ToolNotFound`. Listing passes through.
 *
 * @since 0.1.0
 */
export const requestValidation = (options: ValidationOptions = {}): Middleware => {
  const max = options.maxArgumentBytes ?? 1024 * 1024
  if (!(max > 0))
    throw new ConfigError({ path: "validation.maxArgumentBytes", reason: `must be positive, got ${max}` })
  const checkSchema = options.validateSchema !== false
  const { ttlMs, changes } = resolveListing(
    {
      ...(options.listingTtlMs !== undefined ? { listingTtlMs: options.listingTtlMs } : {}),
      ...(options.changes !== undefined ? { changes: options.changes } : {}),
    },
    "validation",
  )
  const validatorOf = memoizeByTool((tool): Validator => compileJsonSchema(tool.inputSchema, tool.id))
  return (next: ToolService): ListingService => {
    const cache = new ListingCache(
      async (context) => snapshotOf(await fullListing(next, context)),
      ttlMs,
      changes,
    )
    const problemOf = (
      tool: Tool | undefined,
      request: CallToolRequest,
      args: Record<string, unknown>,
    ): InvalidArgumentsType | ToolNotFound | undefined => {
      if (!tool) {
        const known = cache.peek(request.context)?.byId.keys() ?? []
        return new ToolNotFound({ toolId: request.name, suggestions: suggestToolIds(request.name, known) })
      }
      const result = validatorOf(tool).validate(args) as ValidationResult
      return result.ok ? undefined : new InvalidArguments({ toolId: request.name, issues: result.issues })
    }
    return {
      listTools: (request) => next.listTools(request),
      callTool: (request): Promise<ToolResult> => {
        const args = request.arguments ?? {}
        if (!isJsonObject(args))
          return Promise.reject(
            new InvalidArguments({
              toolId: request.name,
              issues: [{ path: "", rule: "type", message: "arguments must be a JSON object" }],
            }),
          )
        if (sizeUpperBound(args, max) > max) {
          const size = jsonByteLength(args)
          if (size > max) return Promise.reject(tooBig(request.name, size, max))
        }
        if (!checkSchema) return next.callTool(request)
        const found = lookup(cache, request.context, request.name)
        if (found instanceof Promise)
          return found.then((tool) => {
            const problem = problemOf(tool, request, args)
            return problem ? Promise.reject(problem) : next.callTool(request)
          })
        const problem = problemOf(found, request, args)
        return problem ? Promise.reject(problem) : next.callTool(request)
      },
      [FULL_LISTING]: (context) => cache.get(context).then((s) => s.tools),
    }
  }
}
