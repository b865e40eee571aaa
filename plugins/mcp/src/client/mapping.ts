/**
 * Client-side mapping between MCP messages and Toolplane values: listed tools, call results and
 * progress.
 *
 * @since 0.1.0
 */
import type { Client } from "@modelcontextprotocol/client"
import {
  type CallToolResult,
  type ListToolsResult,
  type Progress as McpProgress,
  SdkError,
  SdkErrorCode,
  specTypeSchemas,
} from "@modelcontextprotocol/server"
import {
  type BackendResult,
  byId,
  type ContentBlock,
  type Conversion,
  type FeatureLossWarning,
  InvalidCursor,
  type Progress,
  type Tool,
} from "@toolplane/foundation"
import { z } from "zod"
import { fromMcpTool, type McpTool, NEXT_CURSOR_META_KEY } from "../adapter.js"
import { invalidParamHeader, type ParamHeaderBindings } from "./paramHeaders.js"

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

/** A `tools/list` result without the `null` fields some servers send (`annotations: null`, `title: null`, ...). */
const withoutNullFields = (result: unknown): unknown => {
  if (!isRecord(result) || !Array.isArray(result.tools)) return result
  return {
    ...result,
    tools: result.tools.map((tool) => {
      if (!isRecord(tool)) return tool
      const out = Object.fromEntries(Object.entries(tool).filter(([, v]) => v !== null))
      if (isRecord(out.annotations))
        out.annotations = Object.fromEntries(Object.entries(out.annotations).filter(([, v]) => v !== null))
      return out
    }),
  }
}

/** SDK v2's `tools/list` result schema (a zod schema, typed as a Standard Schema). */
const ListToolsResultSchema = specTypeSchemas.ListToolsResult as unknown as z.ZodType<ListToolsResult>
/** The SDK's `tools/list` result schema, after the null fields are dropped. */
const LenientListToolsResultSchema = z.preprocess(withoutNullFields, ListToolsResultSchema)

/**
 * One `tools/list` page. A server whose listing the SDK's schema rejects only because of `null` fields
 * (a whole server lost to one tool's `annotations: null`) is asked again and read without them; the
 * SDK then skips its output-schema cache for that page, the runner's own output check still applies.
 */
const listPage = async (client: Client, cursor: string | undefined, timeout: number) => {
  const params = cursor === undefined ? {} : { cursor }
  try {
    // One page per request (the client's own listTools follows every page and caches).
    return await client.request({ method: "tools/list", params }, ListToolsResultSchema, { timeout })
  } catch (error) {
    if (!(error instanceof SdkError) || error.code !== SdkErrorCode.InvalidResult) throw error
    return await client.request({ method: "tools/list", params }, LenientListToolsResultSchema, { timeout })
  }
}

/**
 * A tool served by an MCP server: its canonical form and the name the server knows it by.
 *
 * @since 0.1.0
 */
export interface RemoteTool {
  readonly tool: Tool
  readonly mcpName: string
}

/**
 * Follows `tools/list` cursors to the end and converts every tool into `namespace`. Tools that cannot
 * be converted (unusable schemas) and duplicate names are skipped, each with a warning.
 *
 * @since 0.1.0
 */
export const listRemoteTools = async (
  client: Client,
  namespace: string,
  options: {
    readonly maxPages: number
    readonly timeoutMs: number
    /**
     * Conversions of the previous listing, by the tool's JSON: an unchanged tool is not converted again
     * (conversion compiles its schemas, milliseconds per tool). Left holding this listing's.
     */
    readonly memo?: Map<string, Conversion<Tool>>
    /** Left holding the `x-mcp-header` bindings of the tools this listing keeps (for `Mcp-Param-*`). */
    readonly paramHeaders?: ParamHeaderBindings
  },
): Promise<{ tools: RemoteTool[]; warnings: FeatureLossWarning[]; cache?: CacheHint }> => {
  const natives: McpTool[] = []
  let cursor: string | undefined
  let cache: CacheHint | undefined
  for (let page = 0; ; page++) {
    if (page >= options.maxPages)
      throw new InvalidCursor({ reason: `tools/list did not finish within ${options.maxPages} pages` })
    const result = await listPage(client, cursor, options.timeoutMs)
    // The SDK v1 engine types schemas loosely (`object`); a listed tool is JSON, as MCP's `Tool` says.
    natives.push(...(result.tools as readonly McpTool[]))
    cache = mergeCacheHint(cache, result, page === 0)
    if (result.nextCursor === undefined || result.nextCursor === "") break
    if (result.nextCursor === cursor)
      throw new InvalidCursor({ reason: "server returned the same tools/list cursor twice" })
    cursor = result.nextCursor
  }
  const warnings: FeatureLossWarning[] = []
  const seen = new Set<string>()
  const tools: RemoteTool[] = []
  const previous = options.memo
  const next = previous === undefined ? undefined : new Map<string, Conversion<Tool>>()
  const annotated: McpTool[] = []
  for (const native of natives) {
    const badHeader = invalidParamHeader(native.inputSchema)
    if (badHeader !== undefined) {
      warnings.push({
        feature: "x-mcp-header",
        path: badHeader.path,
        from: "mcp",
        to: "canonical",
        toolId: `${namespace}/${native.name}`,
        message: `MCP tool ${JSON.stringify(native.name)} skipped: its x-mcp-header ${badHeader.reason}`,
      })
      continue
    }
    annotated.push(native)
    try {
      const key = next === undefined ? "" : JSON.stringify(native)
      const converted = previous?.get(key) ?? fromMcpTool(native, namespace)
      next?.set(key, converted)
      const { value, warnings: w } = converted
      warnings.push(...w)
      if (seen.has(value.id)) {
        warnings.push({
          feature: "toolName",
          path: "/name",
          from: "mcp",
          to: "canonical",
          toolId: value.id,
          message: `MCP tool ${JSON.stringify(native.name)} duplicates "${value.id}"; skipped`,
        })
        continue
      }
      seen.add(value.id)
      tools.push({ tool: value, mcpName: native.name })
    } catch (error) {
      warnings.push({
        feature: "tool",
        path: "",
        from: "mcp",
        to: "canonical",
        toolId: `${namespace}/${native.name}`,
        message: `MCP tool ${JSON.stringify(native.name)} skipped: ${(error as Error).message}`,
      })
    }
  }
  if (previous !== undefined && next !== undefined) {
    previous.clear()
    for (const [key, converted] of next) previous.set(key, converted)
  }
  tools.sort((a, b) => byId(a.tool, b.tool))
  options.paramHeaders?.record(annotated)
  return cache === undefined ? { tools, warnings } : { tools, warnings, cache }
}

/**
 * A modern server's cache hint for a result (2026-07-28 `CacheableResult`): how long it stays fresh and
 * whether it may be shared between callers (`public`) or is the requester's own (`private`).
 *
 * @since 0.1.0
 */
export interface CacheHint {
  readonly ttlMs: number
  readonly cacheScope: "public" | "private"
}

/**
 * The hint of a listing of several pages: the shortest freshness, and `private` if any page is. A page
 * without a valid hint (a 2025 server) makes the whole listing hintless.
 */
const mergeCacheHint = (so: CacheHint | undefined, page: unknown, first: boolean): CacheHint | undefined => {
  const { ttlMs, cacheScope } = page as { ttlMs?: unknown; cacheScope?: unknown }
  if (typeof ttlMs !== "number" || !Number.isSafeInteger(ttlMs) || ttlMs < 0) return undefined
  if (cacheScope !== "public" && cacheScope !== "private") return undefined
  if (first) return { ttlMs, cacheScope }
  if (so === undefined) return undefined
  return {
    ttlMs: Math.min(so.ttlMs, ttlMs),
    cacheScope: so.cacheScope === "private" || cacheScope === "private" ? "private" : "public",
  }
}

const isBlock = (value: unknown): boolean => {
  if (!isRecord(value)) return false
  switch (value.type) {
    case "text":
      return typeof value.text === "string"
    case "image":
    case "audio":
      return typeof value.data === "string" && typeof value.mimeType === "string"
    case "resource":
      return isRecord(value.resource) && typeof value.resource.uri === "string"
    case "resource_link":
      return typeof value.uri === "string" && typeof value.name === "string"
    default:
      return false
  }
}

/**
 * Whether a `tools/call` result has the shape of an MCP `CallToolResult`: `content` an array of known
 * blocks with their required fields, `structuredContent` and `_meta` objects, `isError` a boolean. What
 * the SDK's zod schema checks besides (optional fields' types, annotations) is left to it when this fails.
 *
 * @since 0.1.0
 */
export const isCallToolResult = (value: unknown): value is CallToolResult => {
  if (!isRecord(value)) return false
  const content = value.content
  if (!Array.isArray(content)) return false
  for (let i = 0; i < content.length; i++) if (!isBlock(content[i])) return false
  if (value.structuredContent !== undefined && !isRecord(value.structuredContent)) return false
  if (value.isError !== undefined && typeof value.isError !== "boolean") return false
  if (value._meta !== undefined && !isRecord(value._meta)) return false
  return true
}

/**
 * An MCP `tools/call` result as a backend result. A continuation cursor a Toolplane server put in
 * `_meta["toolplane.dev/nextCursor"]` becomes the result's `continuation`.
 *
 * @since 0.1.0
 */
export const toBackendResult = (result: CallToolResult): BackendResult => {
  const meta = result._meta as Record<string, unknown> | undefined
  const next = meta?.[NEXT_CURSOR_META_KEY]
  // Assigned in this order (the key order of the result as encoded); no spread of a literal per field.
  const out: { -readonly [K in keyof BackendResult]: BackendResult[K] } = {
    content: (result.content ?? []) as unknown as ContentBlock[],
  }
  // Kept as the upstream sent it (SDK v2 types admit `null` here; the SDK v1 engine's schema refuses it).
  if (result.structuredContent !== undefined)
    out.structuredContent = result.structuredContent as Readonly<Record<string, unknown>>
  if (result.isError) out.isError = true
  if (meta !== undefined) out._meta = meta
  if (typeof next === "string") out.continuation = next
  return out
}

/**
 * An MCP progress notification as a Toolplane progress report.
 *
 * @since 0.1.0
 */
export const toProgress = (progress: McpProgress): Progress => ({
  progress: progress.progress,
  ...(progress.total !== undefined ? { total: progress.total } : {}),
  ...(progress.message !== undefined ? { message: progress.message } : {}),
})
