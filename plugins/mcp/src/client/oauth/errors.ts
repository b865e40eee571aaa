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
  constructor(backend: string, why: string) {
    super(`${why}; run \`toolplane auth login ${backend}\``)
    this.name = "OAuthLoginRequired"
    this.backend = backend
  }
}
