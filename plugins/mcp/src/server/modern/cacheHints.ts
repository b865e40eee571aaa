/**
 * Cache hints of 2026-07-28 (`ttlMs`, `cacheScope`) on cacheable results: listings and resource reads.
 * A result is `private` when it depends on who asked: on an authenticating server the caller's scopes
 * filter what it sees, so its listing must not be shared with other callers.
 *
 * @internal
 */
import { CACHEABLE_METHODS } from "./protocol.js"

/**
 * Cache hints put on cacheable results for 2026-07-28 clients.
 *
 * @since 0.1.0
 */
export interface McpCacheHints {
  /** How long a listing (tools, prompts, resources, templates) may be reused, in ms. Default 30 000. */
  readonly listTtlMs?: number
  /** How long a resource read may be reused, in ms. Default 0 (read again every time). */
  readonly readTtlMs?: number
  /**
   * `"auto"` (default): `private` when the request was authenticated (its caller's scopes may filter the
   * result), `public` otherwise. `"private"` / `"public"` force one scope.
   */
  readonly scope?: "auto" | "public" | "private"
}

const nonNegativeInteger = (value: number | undefined, fallback: number) =>
  value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : fallback

/** The `ttlMs` / `cacheScope` for a result of `method`, or `undefined` when it is not cacheable. */
export const cacheHintFor = (
  method: string,
  hints: McpCacheHints | undefined,
  authenticated: boolean,
): { readonly ttlMs: number; readonly cacheScope: "public" | "private" } | undefined => {
  if (!CACHEABLE_METHODS.has(method)) return undefined
  const ttlMs =
    method === "resources/read"
      ? nonNegativeInteger(hints?.readTtlMs, 0)
      : nonNegativeInteger(hints?.listTtlMs, 30_000)
  const scope = hints?.scope ?? "auto"
  return { ttlMs, cacheScope: scope === "auto" ? (authenticated ? "private" : "public") : scope }
}
