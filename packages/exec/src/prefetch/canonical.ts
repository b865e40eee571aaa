/**
 * Canonical JSON of call arguments (keys sorted at every level), the cache key of a prefetch.
 *
 * @since 0.1.0
 */

const canonicalValue = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonicalValue)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key]
      if (v !== undefined) out[key] = canonicalValue(v)
    }
    return out
  }
  return value
}

/**
 * The canonical JSON text of a value: object keys sorted, `undefined` members dropped.
 *
 * @since 0.1.0
 */
export const canonicalJson = (value: unknown): string =>
  (value === null || typeof value !== "object"
    ? JSON.stringify(value)
    : JSON.stringify(canonicalValue(value))) ?? "null"
