/**
 * The standard request headers of Streamable HTTP in 2026-07-28: `MCP-Protocol-Version` and
 * `Mcp-Method` on every request, `Mcp-Name` on the methods that name something (a tool, a prompt, a
 * resource, a task). Each must agree with the body; a disagreement is `HeaderMismatch` (`-32020`, HTTP
 * 400). Names are matched case-insensitively (Node lower-cases them), values exactly after trimming
 * optional whitespace; a value may be sent Base64-encoded as `=?base64?…?=` (for non-ASCII names).
 *
 * @internal
 */
import { ModernProtocolError } from "./errors.js"
import { ModernErrorCode } from "./protocol.js"

/** The headers the check reads (lower-case names, as `node:http` gives them). */
export type HeaderLookup = (name: string) => string | undefined

const SENTINEL = /^=\?base64\?(.*)\?=$/s
/** Base64 as RFC 4648 §4 writes it: the standard alphabet, padded to a multiple of four characters. */
const PADDED_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * A header value as sent, or its decoded form when Base64-encoded; `undefined` for a bad encoding (a
 * character outside the alphabet, missing padding, or bytes that are not UTF-8). Node's decoder would
 * accept all of those leniently, so the form is checked first.
 */
export const decodeHeaderValue = (value: string): string | undefined => {
  const trimmed = value.trim()
  const match = SENTINEL.exec(trimmed)
  if (!match) return trimmed
  if (!PADDED_BASE64.test(match[1]!)) return undefined
  const text = Buffer.from(match[1]!, "base64").toString("utf8")
  return text.includes("\uFFFD") ? undefined : text
}

/** The body field `Mcp-Name` mirrors, per method. */
const nameSource = (method: string): "name" | "uri" | "taskId" | undefined => {
  if (method === "tools/call" || method === "prompts/get") return "name"
  if (method === "resources/read") return "uri"
  // the task methods of the tasks extension (not the removed tasks/result and tasks/list: unknown methods)
  if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel") return "taskId"
  return undefined
}

const mismatch = (message: string) =>
  new ModernProtocolError(ModernErrorCode.HeaderMismatch, `Header mismatch: ${message}`, { httpStatus: 400 })

/**
 * Checks a modern request's standard headers against its body; the refusal, or `undefined` when they
 * agree. `version` is the body's protocol version.
 */
export const checkStandardHeaders = (
  header: HeaderLookup,
  method: string,
  params: Readonly<Record<string, unknown>> | undefined,
  version: string,
): ModernProtocolError | undefined => {
  const versionHeader = header("mcp-protocol-version")
  if (versionHeader === undefined) return mismatch("the MCP-Protocol-Version header is required")
  if (versionHeader.trim() !== version)
    return mismatch(
      `the MCP-Protocol-Version header says ${JSON.stringify(versionHeader.trim())}, the body's _meta ${JSON.stringify(version)}`,
    )
  const methodHeader = header("mcp-method")
  if (methodHeader === undefined) return mismatch("the Mcp-Method header is required")
  if (methodHeader.trim() !== method)
    return mismatch(
      `the Mcp-Method header says ${JSON.stringify(methodHeader.trim())}, the body's method is ${JSON.stringify(method)}`,
    )
  const source = nameSource(method)
  if (source === undefined) return undefined
  const bodyName = params?.[source]
  const nameHeader = header("mcp-name")
  if (nameHeader === undefined) {
    if (typeof bodyName === "string") return mismatch(`the Mcp-Name header is required for ${method}`)
    return undefined
  }
  const decoded = decodeHeaderValue(nameHeader)
  if (decoded === undefined) return mismatch("the Mcp-Name header carries an invalid Base64 value")
  if (decoded !== bodyName)
    return mismatch(
      `the Mcp-Name header says ${JSON.stringify(decoded)}, the body's params.${source} is ${JSON.stringify(bodyName)}`,
    )
  return undefined
}
