/**
 * Which era a request belongs to, and the per-request envelope of the stateless one. A request is
 * served statelessly when its `params._meta` names a 2026-07-28 revision (body first; the
 * `MCP-Protocol-Version` header only cross-checks, as the official SDK's classifier does) or when it is
 * `server/discover`; everything else (an `initialize`, a request on a session) is the 2025 era,
 * served with sessions as before.
 *
 * @internal
 */
import { classifyInboundRequest } from "@modelcontextprotocol/server"
import { ModernProtocolError } from "./errors.js"
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isModernVersion,
  LOG_LEVEL_META_KEY,
  ModernErrorCode,
  PROTOCOL_VERSION_META_KEY,
  SERVED_PROTOCOL_VERSIONS,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
} from "./protocol.js"

/** What a stateless request says about its client, read from its `_meta`. */
export interface ModernEnvelope {
  readonly protocolVersion: string
  readonly clientCapabilities: Readonly<Record<string, unknown>>
  readonly clientInfo?: Readonly<Record<string, unknown>>
  /** The lowest log level the client wants on this request's stream; no log messages when absent. */
  readonly logLevel?: string
  readonly traceparent?: string
  readonly tracestate?: string
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The `_meta` of a request's params, when it is an object. */
export const metaOf = (params: unknown): Record<string, unknown> | undefined =>
  isObject(params) && isObject(params._meta) ? params._meta : undefined

/** Whether a parsed message claims the stateless era (over any transport). */
export const claimsModern = (message: unknown): boolean => {
  if (!isObject(message) || typeof message.method !== "string") return false
  if (message.method === "server/discover") return true
  const meta = metaOf(message.params)
  return meta !== undefined && meta[PROTOCOL_VERSION_META_KEY] !== undefined
}

/**
 * The envelope of a stateless request, or the refusal: `-32602` (HTTP 400) when `_meta` or its
 * required keys are missing or malformed, `-32022 UnsupportedProtocolVersion` (HTTP 400) for a
 * revision this server does not serve (`server/discover` too: it is a stateless request like any other).
 */
export const readEnvelope = (params: unknown): ModernEnvelope | ModernProtocolError => {
  const meta = metaOf(params)
  const version = meta?.[PROTOCOL_VERSION_META_KEY]
  const missing: string[] = []
  if (typeof version !== "string") missing.push(PROTOCOL_VERSION_META_KEY)
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY]
  if (!isObject(capabilities)) missing.push(CLIENT_CAPABILITIES_META_KEY)
  if (missing.length > 0)
    return new ModernProtocolError(
      ModernErrorCode.InvalidParams,
      `Invalid params: params._meta must carry ${missing.join(" and ")}`,
      { httpStatus: 400, data: { missing } },
    )
  if (!isModernVersion(version))
    return new ModernProtocolError(
      ModernErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: ${String(version)} (supported: ${SERVED_PROTOCOL_VERSIONS.join(", ")})`,
      { httpStatus: 400, data: { supported: SERVED_PROTOCOL_VERSIONS, requested: version } },
    )
  const info = meta?.[CLIENT_INFO_META_KEY]
  const level = meta?.[LOG_LEVEL_META_KEY]
  const traceparent = meta?.[TRACEPARENT_META_KEY]
  const tracestate = meta?.[TRACESTATE_META_KEY]
  return {
    protocolVersion: version as string,
    clientCapabilities: capabilities as Record<string, unknown>,
    ...(isObject(info) ? { clientInfo: info } : {}),
    ...(typeof level === "string" ? { logLevel: level } : {}),
    ...(typeof traceparent === "string" ? { traceparent } : {}),
    ...(typeof tracestate === "string" ? { tracestate } : {}),
  }
}

/** The era of an HTTP POST, decided once its body is parsed. */
export type HttpEra =
  | { readonly kind: "legacy" }
  | { readonly kind: "modern"; readonly message: Record<string, unknown> }
  | { readonly kind: "reject"; readonly error: ModernProtocolError; readonly id: unknown }

/**
 * Classifies a POST without a session: the official SDK's classifier (body first, header cross-check,
 * batches element-wise), plus `server/discover` without an envelope, which is stateless by definition.
 */
export const classifyPost = (
  body: unknown,
  headers: { readonly protocolVersion?: string; readonly method?: string; readonly name?: string },
): HttpEra => {
  // server/discover exists only in the stateless era: without an envelope it is refused, not a 2025 request.
  if (
    isObject(body) &&
    body.method === "server/discover" &&
    metaOf(body.params)?.[PROTOCOL_VERSION_META_KEY] === undefined
  )
    return { kind: "modern", message: body }
  // The common case decided without the SDK's classifier (it validates the envelope with its schemas): one
  // request object whose _meta names a served stateless revision, the header (if any) agreeing. Anything
  // else (batches, notifications, mismatches, other revisions) goes to the classifier, the authority.
  if (isObject(body) && typeof body.method === "string" && body.id !== undefined) {
    const version = metaOf(body.params)?.[PROTOCOL_VERSION_META_KEY]
    if (
      isModernVersion(version) &&
      (headers.protocolVersion === undefined || headers.protocolVersion.trim() === version)
    )
      return { kind: "modern", message: body }
  }
  const outcome = classifyInboundRequest({
    httpMethod: "POST",
    body,
    ...(headers.protocolVersion !== undefined ? { protocolVersionHeader: headers.protocolVersion } : {}),
    ...(headers.method !== undefined ? { mcpMethodHeader: headers.method } : {}),
    ...(headers.name !== undefined ? { mcpNameHeader: headers.name } : {}),
  })
  if (outcome.kind === "legacy") {
    // A modern protocol header without any envelope: the revision asks for one on every request.
    if (isModernVersion(headers.protocolVersion?.trim()) && isObject(body) && typeof body.method === "string")
      return {
        kind: "reject",
        id: body.id,
        error: new ModernProtocolError(
          ModernErrorCode.InvalidParams,
          `Invalid params: params._meta must carry ${PROTOCOL_VERSION_META_KEY} and ${CLIENT_CAPABILITIES_META_KEY}`,
          { httpStatus: 400 },
        ),
      }
    return { kind: "legacy" }
  }
  if (outcome.kind === "modern")
    return { kind: "modern", message: outcome.message as Record<string, unknown> }
  return {
    kind: "reject",
    id: isObject(body) ? body.id : undefined,
    error: new ModernProtocolError(outcome.code, outcome.message, {
      httpStatus: outcome.httpStatus,
      ...(outcome.data !== undefined ? { data: outcome.data } : {}),
    }),
  }
}
