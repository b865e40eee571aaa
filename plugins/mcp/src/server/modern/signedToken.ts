/**
 * The one shape of the signed tokens stateless serving hands out (request states, task handles):
 * `<base64url of the claims' JSON>.<base64url of an HMAC over that text>`, opened in one place so every
 * kind checks its tag the same way (canonical spelling, then constant time) before reading any claim.
 *
 * @internal
 */
import { timingSafeEqual } from "node:crypto"

/** Why a token was refused before its claims were read. */
export type SignedTokenRefusal = { readonly ok: false; readonly reason: "malformed" | "signature" }

/**
 * The claims of `text` once its tag (`tagBytes` long) equals `tagOf(body)`, compared in constant time;
 * else why not. The claims are parsed JSON, not yet checked for their shape.
 */
export const openSignedToken = (
  text: string,
  tagBytes: number,
  tagOf: (body: string) => Buffer,
): { readonly ok: true; readonly claims: unknown } | SignedTokenRefusal => {
  const dot = text.indexOf(".")
  if (dot <= 0 || text.indexOf(".", dot + 1) >= 0) return { ok: false, reason: "malformed" }
  const body = text.slice(0, dot)
  const tagText = text.slice(dot + 1)
  const tag = Buffer.from(tagText, "base64url")
  // base64url decoding ignores stray characters: require the canonical spelling, so one changed byte anywhere is refused
  if (tag.length !== tagBytes || tag.toString("base64url") !== tagText)
    return { ok: false, reason: "signature" }
  if (!timingSafeEqual(tag, tagOf(body))) return { ok: false, reason: "signature" }
  try {
    return { ok: true, claims: JSON.parse(Buffer.from(body, "base64url").toString("utf8")) }
  } catch {
    return { ok: false, reason: "malformed" }
  }
}
