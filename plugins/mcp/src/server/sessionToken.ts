/**
 * Session ids any replica can verify: the session's `initialize` facts (protocol version, client
 * capabilities and info, the authenticated client id) in the id itself, signed with HMAC-SHA256 under
 * a key shared by the replicas. A replica that receives a request for a session it has never seen
 * checks the signature and rebuilds the session from the id; nothing is looked up.
 *
 * An id is accepted only in its canonical spelling (base64url without padding, unused bits zero), so
 * one session has exactly one id: what is remembered of an ended session (its nonce) cannot be
 * sidestepped by a variant that decodes to the same bytes. Ids carry their issue time, so they expire
 * and a replica can refuse ids older than what it knows of ended sessions.
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
  /** When the id was issued, in epoch seconds. */
  readonly t: number
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

/** A signed id's shape: base64url body, a dot, the 22 characters of the 16-byte tag. */
const ID_SHAPE = /^[A-Za-z0-9_-]{1,8000}\.[A-Za-z0-9_-]{22}$/

/** Whether `text` is the canonical base64url of the bytes it decodes to (no other spelling of them). */
const canonical = (text: string, bytes: Buffer): boolean => bytes.toString("base64url") === text

/**
 * The claims of a session id signed with `key`, or `undefined` (forged, altered, malformed, or not in
 * its canonical spelling).
 */
export const verifySessionId = (key: Buffer, id: string): SessionClaims | undefined => {
  if (!ID_SHAPE.test(id)) return undefined
  const dot = id.indexOf(".")
  const body = id.slice(0, dot)
  const tagText = id.slice(dot + 1)
  const tag = Buffer.from(tagText, "base64url")
  if (tag.length !== TAG_BYTES || !canonical(tagText, tag) || !timingSafeEqual(tag, tagOf(key, body)))
    return undefined
  try {
    const bytes = Buffer.from(body, "base64url")
    if (!canonical(body, bytes)) return undefined
    const claims = JSON.parse(bytes.toString("utf8")) as SessionClaims
    return typeof claims === "object" &&
      claims !== null &&
      typeof claims.v === "string" &&
      typeof claims.n === "string" &&
      Number.isSafeInteger(claims.t)
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
