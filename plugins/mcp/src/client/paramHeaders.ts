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

/**
 * One `x-mcp-header` annotation of a tool's input schema.
 *
 * @internal
 * @since 0.2.0
 */
export interface ParamHeaderDeclaration {
  /** The top-level argument. */
  readonly property: string
  /** The header as `node:http` names it: `mcp-param-` and the annotation, lower-case. */
  readonly header: string
  /** The header as the client sends it, for messages. */
  readonly display: string
  readonly type: "string" | "integer" | "number" | "boolean"
}

/**
 * The `x-mcp-header` annotations of `inputSchema`; none when it has none or any of them is invalid (a
 * conforming client refuses such a tool and sends no header for it).
 *
 * @internal
 * @since 0.2.0
 */
export const paramHeaderDeclarations = (inputSchema: unknown): readonly ParamHeaderDeclaration[] => {
  const properties = (inputSchema as { properties?: unknown } | undefined)?.properties
  if (typeof properties !== "object" || properties === null) return []
  if (invalidParamHeader(inputSchema) !== undefined) return []
  const declarations: ParamHeaderDeclaration[] = []
  for (const [property, schema] of Object.entries(properties as Record<string, unknown>)) {
    const name = (schema as Record<string, unknown> | null)?.["x-mcp-header"]
    if (typeof name !== "string") continue
    declarations.push({
      property,
      header: `mcp-param-${name.toLowerCase()}`,
      display: `Mcp-Param-${name}`,
      type: (schema as { type: ParamHeaderDeclaration["type"] }).type,
    })
  }
  return declarations
}

/**
 * A value as an `Mcp-Param-*` field value: sent as it is when every character is visible ASCII or a
 * space (0x20-0x7E), with no leading or trailing whitespace and not itself shaped like the sentinel;
 * otherwise `=?base64?<base64 of its UTF-8>?=`. CR, LF and other control characters therefore never reach
 * the header line as they are.
 *
 * @internal
 * @since 0.2.0
 */
export const encodeParamHeaderValue = (value: string): string => {
  let plain = value === value.trim() && !/^=\?base64\?.*\?=$/s.test(value)
  for (let i = 0; plain && i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c > 0x7e) plain = false
  }
  return plain ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`
}

/**
 * A primitive argument as the text its header stands for (before encoding); `undefined` for null, absent
 * or non-primitive values, which no header carries.
 *
 * @internal
 * @since 0.2.0
 */
export const paramText = (value: unknown): string | undefined => {
  if (typeof value === "string") return value
  if (typeof value === "boolean") return value ? "true" : "false"
  if (typeof value === "number" && Number.isFinite(value)) return String(value)
  return undefined
}

/** A primitive argument as its header's field value; `undefined` when no header carries it. */
const headerText = (value: unknown): string | undefined =>
  typeof value === "string" ? encodeParamHeaderValue(value) : paramText(value)

/**
 * The `x-mcp-header` bindings of the tools a backend listed, by MCP tool name, and the `Mcp-Param-*`
 * header lines of a `tools/call` to one of them. A connection holds one; its listing fills it (only
 * tools whose annotations are valid), its HTTP transport reads it for each modern request.
 *
 * @internal
 * @since 0.2.0
 */
export class ParamHeaderBindings {
  #byTool = new Map<string, readonly ParamHeaderDeclaration[]>()

  /** Replaces the bindings with those of `tools` (a complete listing of valid tools). */
  record(tools: readonly { readonly name: string; readonly inputSchema?: unknown }[]): void {
    const next = new Map<string, readonly ParamHeaderDeclaration[]>()
    for (const tool of tools) {
      const declarations = paramHeaderDeclarations(tool.inputSchema)
      if (declarations.length > 0) next.set(tool.name, declarations)
    }
    this.#byTool = next
  }

  /** The header lines (each ending in CRLF) of `message` when it is a `tools/call` of a bound tool, else `""`. */
  lines(message: unknown): string {
    const m = message as { method?: unknown; params?: { name?: unknown; arguments?: unknown } }
    if (m.method !== "tools/call" || typeof m.params?.name !== "string") return ""
    const bindings = this.#byTool.get(m.params.name)
    const args = m.params.arguments
    if (bindings === undefined || typeof args !== "object" || args === null) return ""
    let lines = ""
    for (const { property, header } of bindings) {
      const text = Object.hasOwn(args, property)
        ? headerText((args as Record<string, unknown>)[property])
        : undefined
      if (text !== undefined) lines += `${header}: ${text}\r\n`
    }
    return lines
  }
}
