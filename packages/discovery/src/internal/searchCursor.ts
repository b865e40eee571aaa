/**
 * Signed cursors of search results. A search cursor is a foundation cursor (HMAC-signed, with a TTL)
 * whose position is the offset of the next page and whose binding is the query and its filters
 * (through the `args` fingerprint) and, when given, the caller. A cursor that was altered, signed
 * with another key, or presented with another query, other filters or by another caller fails with
 * `InvalidCursor`; an old one with `ExpiredCursor`.
 *
 * @since 0.1.0
 */
import {
  type CursorBinding,
  type CursorCodec,
  InvalidCursor,
  makeCursorCodec,
  randomCursorKey,
} from "@toolplane/foundation"
import { SearchError } from "../searchError.js"

/**
 * Cursor purpose of {@link Searcher.search} (and `searchAsync`) pages.
 *
 * @since 0.1.0
 */
export const SEARCH_CURSOR_PURPOSE = "search"

/**
 * Cursor purpose of {@link Searcher.similar} pages.
 *
 * @since 0.1.0
 */
export const SIMILAR_CURSOR_PURPOSE = "search/similar"

let processCodec: CursorCodec | undefined

/**
 * The codec used when none is configured: a random key made once per process (on first use), so
 * cursors stay valid across searchers of this process but not across processes or restarts.
 *
 * @since 0.1.0
 */
export const defaultSearchCodec = (): CursorCodec => {
  processCodec ??= makeCursorCodec({ keys: [randomCursorKey("search")] })
  return processCodec
}

/**
 * What a search cursor is bound to: the query (or the tool of `similar`), the filters and the caller.
 *
 * @since 0.1.0
 */
export interface SearchCursorScope {
  readonly purpose: string
  /** The query text, or the tool id for `similar`. */
  readonly query: string
  readonly namespace?: string | readonly string[] | undefined
  readonly tags?: readonly string[] | undefined
  readonly category?: string | readonly string[] | undefined
  readonly caller?: string | undefined
}

/**
 * The foundation cursor binding of a search scope.
 *
 * @since 0.1.0
 */
export const searchCursorBinding = (scope: SearchCursorScope): CursorBinding => ({
  purpose: scope.purpose,
  ...(scope.caller !== undefined ? { caller: scope.caller } : {}),
  args: { q: scope.query, ns: scope.namespace, tags: scope.tags, cat: scope.category },
})

/**
 * Verifies a search cursor against its scope and returns the offset it continues from. Fails with
 * `InvalidCursor` (malformed, tampered, foreign key, other query/filters/caller, bad position) or
 * `ExpiredCursor`.
 *
 * @since 0.1.0
 */
export const decodeSearchCursor = (codec: CursorCodec, cursor: string, scope: SearchCursorScope): number => {
  if (typeof cursor !== "string") throw new InvalidCursor({ reason: "cursor must be a string" })
  const claims = codec.decode(cursor, searchCursorBinding(scope))
  const offset = claims.position
  if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 0)
    throw new InvalidCursor({ reason: "search cursor has no valid offset" })
  return offset
}

/**
 * A result page with a `nextCursor` property, encoded on first read and then kept: signing costs a
 * few microseconds (HMAC and a SHA-256 fingerprint), about as much as a whole query at 1k tools, so
 * callers that page by offset (or do not page) never pay for it. The property is own and enumerable,
 * so spreading or serialising the page includes it.
 *
 * @since 0.1.0
 */
export const withNextCursor = <H>(
  page: {
    readonly hits: H[]
    readonly total: number
    readonly offset: number
    readonly limit: number
    readonly nextOffset: number
  },
  codec: CursorCodec,
  scope: SearchCursorScope,
): {
  readonly hits: H[]
  readonly total: number
  readonly offset: number
  readonly limit: number
  readonly nextOffset: number
  readonly nextCursor: string
} => {
  let cached: string | undefined
  const position = page.nextOffset
  return {
    hits: page.hits,
    total: page.total,
    offset: page.offset,
    limit: page.limit,
    nextOffset: position,
    get nextCursor(): string {
      cached ??= codec.encode(searchCursorBinding(scope), position)
      return cached
    },
  }
}

/**
 * Checks that a value can serve as a cursor codec.
 *
 * @since 0.1.0
 */
export const checkCodec = (codec: unknown, name = "codec"): CursorCodec | undefined => {
  if (codec === undefined) return undefined
  const c = codec as Partial<CursorCodec> | null
  if (c === null || typeof c !== "object" || typeof c.encode !== "function" || typeof c.decode !== "function")
    throw new SearchError("InvalidOptions", `${name} must be a CursorCodec (encode and decode methods)`)
  return c as CursorCodec
}
