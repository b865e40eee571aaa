/**
 * Own-property reads and writes for JSON whose keys come from outside (schemas, arguments): a key named
 * `__proto__`, `constructor` or `hasOwnProperty` stays data, never the prototype's.
 *
 * @since 0.1.0
 */

/**
 * `node[key]` when `key` is an own property of `node`, else `undefined`: a `$ref`, `required` name or
 * property named `constructor` is never found on `Object.prototype`.
 *
 * @example
 * ```ts
 * getOwn({ a: 1 }, "a") // 1
 * getOwn({}, "constructor") // undefined (not Object)
 * ```
 * @since 0.1.0
 */
export const getOwn = (node: Record<string, unknown>, key: string): unknown =>
  Object.hasOwn(node, key) ? node[key] : undefined

/**
 * Sets `key` as an own enumerable data property of `target`, also when it is `__proto__` (an assignment
 * would set the prototype instead, and the key would be lost from the JSON).
 *
 * @example
 * ```ts
 * const properties: Record<string, unknown> = {}
 * setOwn(properties, "__proto__", { type: "string" })
 * JSON.stringify(properties) // '{"__proto__":{"type":"string"}}'
 * ```
 * @since 0.1.0
 */
export const setOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}
