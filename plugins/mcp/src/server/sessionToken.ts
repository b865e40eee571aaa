/**
 * Session ids any replica can verify: the session's `initialize` facts (protocol version, client
 * capabilities and info, the authenticated client id) in the id itself, signed with HMAC-SHA256 under
 * a key shared by the replicas. A replica that receives a request for a session it has never seen
 * checks the signature and rebuilds the session from the id; nothing is looked up.
 *
 * @internal
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

/** What a session id carries. */
export interface SessionClaims {
  /** The protocol version the client asked for in `initialize`. */
  readonly v: string
  /** The client's capabilities. */
  readonly c: Readonly<Record<string, unknown>>
  /** The client's `clientInfo` (name, version, title). */
  readonly i: Readonly<Record<string, unknown>>
  /** The authenticated client id, when the gateway authenticates. */
  readonly u?: string
  /** A random nonce: two sessions of one client never share an id. */
  readonly n: string
}

/** Bytes of the truncated HMAC (128 bits). */
const TAG_BYTES = 16

/** The key sessions are signed with, derived from a shared secret (or random for one process). */
export const sessionKey = (secret: string | Uint8Array | undefined): Buffer =>
  createHmac("sha256", secret === undefined ? randomBytes(32) : Buffer.from(secret))
    .update("toolplane session id v1")
    .digest()

const tagOf = (key: Buffer, body: string) =>
  createHmac("sha256", key).update(body).digest().subarray(0, TAG_BYTES)

/** A signed session id (visible ASCII: base64url and one dot). */
export const signSessionId = (key: Buffer, claims: SessionClaims): string => {
  const body = Buffer.from(JSON.stringify(claims)).toString("base64url")
  return `${body}.${tagOf(key, body).toString("base64url")}`
}

/** The claims of a session id signed with `key`, or `undefined` (forged, altered or malformed). */
export const verifySessionId = (key: Buffer, id: string): SessionClaims | undefined => {
  const dot = id.indexOf(".")
  if (dot <= 0 || id.length > 8192) return undefined
  const body = id.slice(0, dot)
  const tag = Buffer.from(id.slice(dot + 1), "base64url")
  if (tag.length !== TAG_BYTES || !timingSafeEqual(tag, tagOf(key, body))) return undefined
  try {
    const claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as SessionClaims
    return typeof claims === "object" &&
      claims !== null &&
      typeof claims.v === "string" &&
      typeof claims.n === "string"
      ? claims
      : undefined
  } catch {
    return undefined
  }
}

/** The client info worth carrying (a client may send icons and URLs; the id stays small). */
export const compactClientInfo = (info: unknown): Record<string, unknown> => {
  const i = (typeof info === "object" && info !== null ? info : {}) as Record<string, unknown>
  return {
    name: typeof i.name === "string" ? i.name.slice(0, 200) : "unknown",
    version: typeof i.version === "string" ? i.version.slice(0, 100) : "0",
    ...(typeof i.title === "string" ? { title: i.title.slice(0, 200) } : {}),
  }
}

/** A fresh nonce. */
export const sessionNonce = (): string => randomBytes(9).toString("base64url")
