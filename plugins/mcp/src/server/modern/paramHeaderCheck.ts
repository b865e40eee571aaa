/**
 * The `Mcp-Param-*` headers of a 2026-07-28 `tools/call` against its body. A served tool whose input
 * schema annotates a top-level property with `x-mcp-header` has that argument mirrored into
 * `Mcp-Param-<name>` by the client, so that intermediaries may route or authorize on it without reading
 * the body; the server must therefore refuse a request whose header and body disagree, whose header is
 * missing while the body carries the value, whose header carries a value the body does not, or whose
 * Base64 form is broken (`HeaderMismatch`, `-32020`, HTTP 400).
 *
 * @internal
 */
import { invalidParamHeader } from "../../client/paramHeaders.js"
import { ModernProtocolError } from "./errors.js"
import { decodeHeaderValue, type HeaderLookup } from "./headers.js"
import { ModernErrorCode } from "./protocol.js"

/** One annotated property of a tool's input schema. */
export interface ParamHeaderDeclaration {
  /** The top-level argument. */
  readonly property: string
  /** The header as `node:http` names it: `mcp-param-` and the annotation, lower-case. */
  readonly header: string
  /** The header as the client sends it, for messages. */
  readonly display: string
  readonly type: "string" | "integer" | "number" | "boolean"
}

/** The declarations of a tool's input schema; none when it has none or any of them is invalid. */
export const paramHeaderDeclarations = (inputSchema: unknown): readonly ParamHeaderDeclaration[] => {
  const properties = (inputSchema as { properties?: unknown } | undefined)?.properties
  if (typeof properties !== "object" || properties === null) return []
  // A tool with invalid annotations is refused by conforming clients, which then send no header.
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

/** A decimal number written the way a client writes one (no exponent, no leading plus or zeros). */
const CANONICAL_DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/

const mismatch = (header: string, body: string) =>
  new ModernProtocolError(
    ModernErrorCode.HeaderMismatch,
    `Header mismatch: the request headers and body disagree: ${body}`,
    { httpStatus: 400, data: { mismatch: { header, body } } },
  )

/** The text a primitive argument is mirrored as; `undefined` for a value no header carries. */
const bodyText = (value: unknown): string | undefined =>
  typeof value === "string"
    ? value
    : typeof value === "boolean"
      ? String(value)
      : typeof value === "number" && Number.isFinite(value)
        ? String(value)
        : undefined

/**
 * Checks the `Mcp-Param-*` headers of a `tools/call` of a tool with `declarations` against its
 * `args`; the refusal, or `undefined` when they agree.
 */
export const checkParamHeaders = (
  header: HeaderLookup,
  declarations: readonly ParamHeaderDeclaration[],
  args: unknown,
): ModernProtocolError | undefined => {
  const record = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {}
  for (const declaration of declarations) {
    const sent = header(declaration.header)
    const value = Object.hasOwn(record, declaration.property) ? record[declaration.property] : undefined
    const text = bodyText(value)
    if (text === undefined) {
      if (sent !== undefined && (value === undefined || value === null))
        return mismatch(
          declaration.display,
          `the ${declaration.display} header is present but the body carries no ${declaration.property}`,
        )
      continue
    }
    if (sent === undefined)
      return mismatch(
        declaration.display,
        `the body carries ${declaration.property}=${JSON.stringify(value)} but the ${declaration.display} header is absent`,
      )
    const decoded = decodeHeaderValue(sent)
    if (decoded === undefined)
      return mismatch(
        declaration.display,
        `the ${declaration.display} header carries an invalid Base64 value`,
      )
    const agrees =
      typeof value === "number" && CANONICAL_DECIMAL.test(decoded)
        ? Number(decoded) === value
        : decoded === text
    if (!agrees)
      return mismatch(
        declaration.display,
        `the ${declaration.display} header decodes to ${JSON.stringify(decoded)} but the body carries ${declaration.property}=${JSON.stringify(value)}`,
      )
  }
  return undefined
}
