/**
 * The vocabulary of MCP 2026-07-28 (the stateless revision) this server speaks: the versions it serves
 * statelessly, the reserved `_meta` keys and the error codes, taken from the official SDK v2
 * (`@modelcontextprotocol/server`) where it exports them, so the names cannot drift from the spec.
 *
 * @internal
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
} from "@modelcontextprotocol/server"

export {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
}

/** The stateless revisions served per request (no `initialize`, no session). */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ["2026-07-28"]

/** The dated revisions served with `initialize` and sessions (the 2025 era). */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS

/** Every revision this server speaks, newest first (what `server/discover` and `-32022` list). */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...LEGACY_PROTOCOL_VERSIONS,
]

/** Whether `version` is a revision of the stateless era this server serves. */
export const isModernVersion = (version: unknown): version is string =>
  typeof version === "string" && MODERN_PROTOCOL_VERSIONS.includes(version)

/** JSON-RPC error codes of the 2026-07-28 revision (and the base ones it keeps). */
export const ModernErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** A standard request header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) disagrees with the body. */
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: ProtocolErrorCode.MissingRequiredClientCapability as number,
  UnsupportedProtocolVersion: ProtocolErrorCode.UnsupportedProtocolVersion as number,
} as const

/** Methods of the 2025 era that 2026-07-28 removed: answered as unknown methods (HTTP 404, `-32601`). */
export const REMOVED_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
])

/** Methods whose results are cacheable (`ttlMs` / `cacheScope`). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
])
