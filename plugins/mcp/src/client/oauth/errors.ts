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
