/**
 * The one test for "a JSON object" that schema walkers, argument checks and result readers share.
 *
 * @since 0.1.0
 */

/**
 * Whether `value` is an object that is neither `null` nor an array: a JSON object, as JSON Schema means
 * `type: "object"` (a schema node, tool arguments, a parsed response body).
 *
 * @example
 * ```ts
 * isJsonObject({ a: 1 }) // true
 * isJsonObject([1]) // false
 * isJsonObject(null) // false
 * ```
 * @since 0.1.0
 */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
