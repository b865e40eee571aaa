/**
 * Who an authenticated request comes from, as the caller id that per-caller state is kept by.
 */
import type { AuthInfo } from "./nodeSessions.js"

/**
 * The caller id of an authenticated request: its client, qualified by the token's user (a JWT's `sub`)
 * when the token names one other than the client, so that two users of one OAuth client keep apart
 * whatever is kept per caller (listings, prefetches, learned patterns, code-mode quotas).
 */
export const callerIdOf = (authInfo: AuthInfo): string => {
  const subject = authInfo.extra?.subject
  return typeof subject === "string" && subject !== authInfo.clientId
    ? JSON.stringify([authInfo.clientId, subject])
    : authInfo.clientId
}
