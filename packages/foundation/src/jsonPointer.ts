/**
 * JSON Pointer (RFC 6901) segments: how a property name is written into a pointer such as the `path` of a
 * validation issue or a `$ref`, and read back.
 *
 * @since 0.2.0
 */

/**
 * Escapes one pointer segment: `~` becomes `~0`, `/` becomes `~1`.
 *
 * @example
 * ```ts
 * `/properties/${escapeJsonPointer("a/b")}` // "/properties/a~1b"
 * ```
 * @since 0.2.0
 */
export const escapeJsonPointer = (segment: string): string => segment.replace(/~/g, "~0").replace(/\//g, "~1")

/**
 * Reads one escaped pointer segment back: `~1` becomes `/`, `~0` becomes `~`.
 *
 * @example
 * ```ts
 * unescapeJsonPointer("a~1b~0c") // "a/b~c"
 * ```
 * @since 0.2.0
 */
export const unescapeJsonPointer = (segment: string): string =>
  segment.replace(/~1/g, "/").replace(/~0/g, "~")
