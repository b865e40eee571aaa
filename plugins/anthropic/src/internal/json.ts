/** Small JSON helpers shared by this plugin's modules. */

/** A JSON object (not null, not an array). */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

/** Escapes one JSON pointer segment. */
export const esc = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1")

/** `node[key]` when it is an own property, else `undefined` (never a prototype's `constructor`). */
export const own = (node: Record<string, unknown>, key: string): unknown =>
  Object.hasOwn(node, key) ? node[key] : undefined

/**
 * Sets an own enumerable property, also one named `__proto__` (plain assignment would set the prototype
 * instead, and the property would be lost).
 */
export const put = (target: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}
