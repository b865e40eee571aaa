/**
 * JSON pointers (RFC 6901) into results, for declared links and learned argument sources.
 *
 * @since 0.1.0
 */

/**
 * Resolves a JSON pointer (RFC 6901) in a value; `undefined` when it leads nowhere.
 *
 * @since 0.1.0
 */
export const resolvePointer = (value: unknown, pointer: string): unknown => {
  if (pointer === "") return value
  if (!pointer.startsWith("/")) return undefined
  let current: unknown = value
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (current === null || typeof current !== "object") return undefined
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(key)) return undefined
      current = current[Number(key)]
    } else {
      if (!Object.hasOwn(current, key)) return undefined
      current = (current as Record<string, unknown>)[key]
    }
  }
  return current
}
