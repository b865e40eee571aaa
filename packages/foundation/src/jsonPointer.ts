/**
 * JSON Pointer (RFC 6901) segments: how a property name is written into a pointer such as the `path` of a
 * validation issue or a `$ref`, and read back.
 *
 * @since 0.1.0
 */
import { isJsonObject } from "./jsonObject.js"
import { getOwn } from "./ownProperty.js"

/**
 * Escapes one pointer segment: `~` becomes `~0`, `/` becomes `~1`.
 *
 * @example
 * ```ts
 * `/properties/${escapeJsonPointer("a/b")}` // "/properties/a~1b"
 * ```
 * @since 0.1.0
 */
export const escapeJsonPointer = (segment: string): string => segment.replace(/~/g, "~0").replace(/\//g, "~1")

/**
 * Reads one escaped pointer segment back: `~1` becomes `/`, `~0` becomes `~`.
 *
 * @example
 * ```ts
 * unescapeJsonPointer("a~1b~0c") // "a/b~c"
 * ```
 * @since 0.1.0
 */
export const unescapeJsonPointer = (segment: string): string =>
  segment.replace(/~1/g, "/").replace(/~0/g, "~")

/**
 * The node a local reference (`#`, `#/$defs/a`) names inside `root`, or `undefined`: each segment is
 * unescaped and read as an own property of a JSON object (a `#/$defs/constructor` is never found on
 * `Object.prototype`; arrays are not entered). Remote references give `undefined`.
 *
 * @example
 * ```ts
 * resolveLocalRef({ $defs: { "a/b": { type: "string" } } }, "#/$defs/a~1b") // { type: "string" }
 * resolveLocalRef({}, "#/$defs/constructor") // undefined
 * ```
 * @since 0.1.0
 */
export const resolveLocalRef = (root: Readonly<Record<string, unknown>>, ref: string): unknown => {
  if (ref === "#") return root
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = root
  for (const segment of ref.slice(2).split("/").map(unescapeJsonPointer)) {
    if (!isJsonObject(node)) return undefined
    node = getOwn(node, segment)
  }
  return node
}
