/**
 * `callAll`: a client helper that calls a paginated tool and follows its continuation cursors, within a
 * page limit and a byte limit.
 *
 * @since 0.1.0
 */
import {
  type CallToolRequest,
  type ContentBlock,
  InvalidCursor,
  type ToolResult,
  type ToolService,
} from "@toolplane/foundation"

/**
 * Limits of {@link callAll}.
 *
 * @since 0.1.0
 */
export interface CallAllOptions {
  /** Most pages to fetch. Default 100. */
  readonly maxPages?: number
  /** Most bytes (JSON of each page's content and structured content) to keep. Default 10 MiB. */
  readonly maxBytes?: number
}

/**
 * What {@link callAll} gathered.
 *
 * @since 0.1.0
 */
export interface CallAllResult {
  /** Every page kept, in order. */
  readonly pages: readonly ToolResult[]
  /** All pages' content blocks, concatenated. */
  readonly content: readonly ContentBlock[]
  /** Each page's `structuredContent`, for pages that have one. */
  readonly structured: readonly Readonly<Record<string, unknown>>[]
  /** Bytes kept. */
  readonly bytes: number
  /** Whether the last page was reached. */
  readonly complete: boolean
  /** When incomplete: why it stopped. */
  readonly stoppedBy?: "maxPages" | "maxBytes" | "isError"
  /** When incomplete: the cursor that continues after the last page kept. */
  readonly nextCursor?: string
}

const sizeOf = (page: ToolResult): number =>
  Buffer.byteLength(JSON.stringify(page.content)) +
  (page.structuredContent === undefined ? 0 : Buffer.byteLength(JSON.stringify(page.structuredContent)))

/**
 * Calls `request.name` and follows `nextCursor` until the last page, `maxPages` pages, or `maxBytes`
 * bytes (a page that would pass the byte limit is not kept; its cursor is returned as `nextCursor`). A
 * page with `isError` stops the walk. Fails with the service's typed errors, or {@link InvalidCursor}
 * when a service repeats a cursor.
 *
 * @example
 * ```ts
 * const all = await callAll(runner, { name: "logs/search", arguments: { q: "error" } }, { maxPages: 20 })
 * all.structured // every page's rows
 * ```
 * @since 0.1.0
 */
export const callAll = async (
  service: ToolService,
  request: CallToolRequest,
  options: CallAllOptions = {},
): Promise<CallAllResult> => {
  const maxPages = options.maxPages ?? 100
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024
  const pages: ToolResult[] = []
  const content: ContentBlock[] = []
  const structured: Readonly<Record<string, unknown>>[] = []
  let bytes = 0
  let cursor = request.cursor
  const seen = new Set<string>()
  const done = (complete: boolean, stoppedBy?: CallAllResult["stoppedBy"], next?: string): CallAllResult => ({
    pages,
    content,
    structured,
    bytes,
    complete,
    ...(stoppedBy !== undefined ? { stoppedBy } : {}),
    ...(next !== undefined ? { nextCursor: next } : {}),
  })
  for (let n = 0; n < maxPages; n++) {
    const page = await service.callTool(cursor === undefined ? request : { ...request, cursor })
    const size = sizeOf(page)
    if (pages.length > 0 && bytes + size > maxBytes) return done(false, "maxBytes", cursor)
    pages.push(page)
    content.push(...page.content)
    if (page.structuredContent !== undefined) structured.push(page.structuredContent)
    bytes += size
    if (page.isError) return done(false, "isError", page.nextCursor)
    if (page.nextCursor === undefined) return done(true)
    if (seen.has(page.nextCursor))
      throw new InvalidCursor({ reason: "the tool returned the same cursor twice" })
    seen.add(page.nextCursor)
    cursor = page.nextCursor
    if (bytes >= maxBytes) return done(false, "maxBytes", cursor)
  }
  return done(false, "maxPages", cursor)
}
