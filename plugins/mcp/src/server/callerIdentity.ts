/**
 * Who an authenticated request comes from: the caller id that per-caller state is kept by, and the owner a
 * session (or a stateless request in flight) is bound to.
 */

/** What these read of a verified token (the edge's `AuthInfo`). */
interface CallerAuth {
  readonly clientId: string
  readonly scopes: readonly string[]
  readonly extra?: Record<string, unknown>
}

/**
 * The caller id of an authenticated request: its client, qualified by the token's user (a JWT's `sub`)
 * when the token names one other than the client, so that two users of one OAuth client keep apart
 * whatever is kept per caller (listings, prefetches, learned patterns, code-mode quotas).
 */
export const callerIdOf = (authInfo: CallerAuth): string => {
  const subject = authInfo.extra?.subject
  return typeof subject === "string" && subject !== authInfo.clientId
    ? JSON.stringify([authInfo.clientId, subject])
    : authInfo.clientId
}

/**
 * Who a session belongs to: the client, the token's user (when known) and its scopes, so that another
 * user of the same client, or another token of it holding other scopes (which would see other resources,
 * and get their updates on the GET stream), cannot use it. `undefined` without authentication.
 */
export const sessionOwner = (authInfo: CallerAuth | undefined): string | undefined => {
  if (authInfo === undefined) return undefined
  const subject = authInfo.extra?.subject
  return JSON.stringify([
    authInfo.clientId,
    typeof subject === "string" ? subject : null,
    [...authInfo.scopes].sort(),
  ])
}

/**
 * The context metadata key under which a call or listing made with a validated token carries its caller
 * id ({@link callerIdOf}) as authentication gave it: unlike `ctx.callerId`, which layers may qualify (by
 * scopes), it names the caller alone. Set by the server from the verified token only.
 *
 * @since 0.2.0
 */
export const AUTHENTICATED_CALLER_KEY = "toolplane.dev/caller"

/**
 * Who a call comes from, for state that belongs to the person (their own upstream tokens): the caller id
 * authentication gave (see {@link AUTHENTICATED_CALLER_KEY}), else the context's `callerId`, else
 * `undefined` (no authenticated caller).
 *
 * @since 0.2.0
 */
export const authenticatedCaller = (ctx: {
  readonly callerId?: string
  readonly metadata: Readonly<Record<string, unknown>>
}): string | undefined => {
  const caller = ctx.metadata[AUTHENTICATED_CALLER_KEY]
  return typeof caller === "string" ? caller : ctx.callerId
}
