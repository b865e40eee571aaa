/**
 * SEP-2243 `x-mcp-header` annotations of a tool's input schema: a top-level property of type string,
 * integer or boolean may name the HTTP header (`Mcp-Param-<name>`) its value is mirrored into. A tool
 * whose annotations are invalid is refused by clients (its server mis-declared it), so it is left out
 * of the listing.
 *
 * @since 0.2.0
 */

/** RFC 9110 `token` characters: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** The property types a header may mirror. */
const HEADER_TYPES = new Set(["string", "integer", "boolean"])

/**
 * Why the `x-mcp-header` annotations of `inputSchema` are invalid (with the JSON pointer of the first
 * invalid one), or `undefined` when they are all valid or there are none.
 *
 * @internal
 */
export const invalidParamHeader = (inputSchema: unknown): { path: string; reason: string } | undefined => {
  const properties = (inputSchema as { properties?: unknown } | undefined)?.properties
  if (typeof properties !== "object" || properties === null) return undefined
  const names = new Set<string>()
  for (const [property, schema] of Object.entries(properties as Record<string, unknown>)) {
    if (typeof schema !== "object" || schema === null || !Object.hasOwn(schema, "x-mcp-header")) continue
    const header = (schema as Record<string, unknown>)["x-mcp-header"]
    const path = `/inputSchema/properties/${property.replace(/~/g, "~0").replace(/\//g, "~1")}/x-mcp-header`
    if (typeof header !== "string" || header === "") return { path, reason: "must be a non-empty string" }
    if (!TOKEN.test(header))
      return {
        path,
        reason: `${JSON.stringify(header)} is not a header name (RFC 9110 token characters only)`,
      }
    const type = (schema as { type?: unknown }).type
    if (typeof type !== "string" || !HEADER_TYPES.has(type))
      return {
        path,
        reason: `only string, integer and boolean properties may be mirrored (${JSON.stringify(type)})`,
      }
    const key = header.toLowerCase()
    if (names.has(key))
      return { path, reason: `${JSON.stringify(header)} names a header twice (case-insensitively)` }
    names.add(key)
  }
  return undefined
}
