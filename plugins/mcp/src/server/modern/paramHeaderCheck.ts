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
import { type ParamHeaderDeclaration, paramText } from "../../client/paramHeaders.js"
import { ModernProtocolError } from "./errors.js"
import { decodeHeaderValue, type HeaderLookup } from "./headers.js"
import { ModernErrorCode } from "./protocol.js"

/** A decimal number written the way a client writes one (no exponent, no leading plus or zeros). */
const CANONICAL_DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/

const mismatch = (header: string, body: string) =>
  new ModernProtocolError(
    ModernErrorCode.HeaderMismatch,
    `Header mismatch: the request headers and body disagree: ${body}`,
    { httpStatus: 400, data: { mismatch: { header, body } } },
  )

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
    const text = paramText(value)
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
