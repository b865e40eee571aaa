/**
 * Errors of the gateway's OAuth client role.
 *
 * @since 0.1.0
 */

/**
 * OAuth to an upstream MCP server failed: discovery, a token request, or a missing/revoked token. The
 * message names what was wrong and, when a person must act, the command to run; it never holds a token.
 *
 * @since 0.1.0
 */
export class OAuthUpstreamError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "OAuthUpstreamError"
  }
}

/**
 * The backend has no usable token (never logged in, or its tokens were revoked or expired without a
 * working refresh): `toolplane auth login <backend>` fixes it.
 *
 * @since 0.1.0
 */
export class OAuthLoginRequired extends OAuthUpstreamError {
  readonly backend: string
  /** The caller whose consent is missing (a per-caller backend). @since 0.2.0 */
  readonly caller?: string
  constructor(backend: string, why: string, caller?: string) {
    super(`${why}; run \`${loginCommand(backend, caller)}\``)
    this.name = "OAuthLoginRequired"
    this.backend = backend
    if (caller !== undefined) this.caller = caller
  }
}

/**
 * A token of a stored credential, as RFC 7009 names it in `token_type_hint`.
 *
 * @since 0.2.0
 */
export type RevocableToken = "refresh_token" | "access_token"

/** What an {@link OAuthRevocationFailed} names besides its message. */
export interface OAuthRevocationFailure {
  readonly backend: string
  readonly caller?: string
  /** The issuer of the credential whose revocation failed. */
  readonly issuer: string
  /** The revocation endpoint, when the issuer's metadata was read. */
  readonly endpoint?: string
  /** The HTTP status the revocation endpoint answered, when it answered. */
  readonly status?: number
  /** The tokens the issuer did revoke before the failure (a retry revokes them again harmlessly). */
  readonly revoked: readonly RevocableToken[]
  /** Whether the credential was deleted from the store anyway (`localOnly`); otherwise it is still stored. */
  readonly removedLocally: boolean
  /** Why: the OAuth error code and description, the HTTP status, or the network failure (never a token). */
  readonly reason: string
}

/**
 * Revoking a stored credential at its issuer (RFC 7009) failed: the metadata could not be read, the
 * revocation endpoint could not be reached, or it refused. Unless the logout was `localOnly`, the
 * credential is still stored so that the logout can be retried.
 *
 * @since 0.2.0
 */
export class OAuthRevocationFailed extends OAuthUpstreamError implements OAuthRevocationFailure {
  readonly backend: string
  readonly caller?: string
  readonly issuer: string
  readonly endpoint?: string
  readonly status?: number
  readonly revoked: readonly RevocableToken[]
  readonly removedLocally: boolean
  readonly reason: string
  constructor(failure: OAuthRevocationFailure) {
    const who = `backend ${failure.backend}${failure.caller !== undefined ? ` (caller ${JSON.stringify(failure.caller)})` : ""}`
    super(
      `revoking the OAuth tokens of ${who} at ${failure.endpoint ?? failure.issuer} failed (${failure.reason}); ${
        failure.removedLocally
          ? "the tokens were removed from the store but stay valid at the issuer until they expire"
          : `the tokens are still stored: retry \`${logoutCommand(failure.backend, failure.caller)}\`, or add --local-only to remove them without revocation`
      }`,
    )
    this.name = "OAuthRevocationFailed"
    this.backend = failure.backend
    if (failure.caller !== undefined) this.caller = failure.caller
    this.issuer = failure.issuer
    if (failure.endpoint !== undefined) this.endpoint = failure.endpoint
    if (failure.status !== undefined) this.status = failure.status
    this.revoked = failure.revoked
    this.removedLocally = failure.removedLocally
    this.reason = failure.reason
  }
}

/** A POSIX shell word: caller ids are arbitrary text (a JWT user is a JSON array). */
const shellWord = (text: string): string =>
  /^[A-Za-z0-9_.:@%+=/-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`

/**
 * The command that signs in to `backend`: its service identity, or `caller`'s own (per-caller backend).
 *
 * @since 0.2.0
 */
export const loginCommand = (backend: string, caller?: string): string =>
  `toolplane auth login ${shellWord(backend)}${caller !== undefined ? ` --caller ${shellWord(caller)}` : ""}`

/**
 * The command that signs `backend`'s service identity (or `caller`) out: revokes and forgets the tokens.
 *
 * @since 0.2.0
 */
export const logoutCommand = (backend: string, caller?: string): string =>
  `toolplane auth logout ${shellWord(backend)}${caller !== undefined ? ` --caller ${shellWord(caller)}` : ""}`
