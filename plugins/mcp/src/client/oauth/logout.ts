/**
 * Signing a backend's service identity (or one caller) out of an upstream: each stored credential's
 * tokens revoked at the issuer that issued them (RFC 7009: the refresh token, then the access token, with
 * the client authentication of the token endpoint), then the credential deleted from the store. An issuer
 * without a `revocation_endpoint` gets the credential deleted locally and the result says it was not
 * revoked; a failed revocation leaves the credential stored (unless `localOnly`) and is reported typed.
 *
 * @since 0.2.0
 */
import * as oauth from "oauth4webapi"
import { clientAuthFor } from "./clientAuth.js"
import { discoverAuthorizationServer, requestOptions } from "./discovery.js"
import { OAuthRevocationFailed, type OAuthUpstreamError, type RevocableToken } from "./errors.js"
import type { EncryptedTokenStore } from "./tokenStore.js"
import { describeOAuthError } from "./upstreamAuth.js"

/**
 * Options of {@link oauthLogout}.
 *
 * @since 0.2.0
 */
export interface OAuthLogoutOptions {
  readonly backend: string
  /** The gateway caller to sign out (a per-caller backend); absent: the backend's service identity. */
  readonly caller?: string
  readonly store: EncryptedTokenStore
  /** The client secret the token endpoint is authenticated with (the backend's `client_secret_env`). */
  readonly clientSecret?: string
  /**
   * When revocation fails, delete the credential anyway (it stays valid at the issuer until it expires);
   * the failure is still reported. Default false: the credential is kept so that the logout can be retried.
   */
  readonly localOnly?: boolean
  /** Time allowed for each revocation request. Default 30 000 ms. */
  readonly timeoutMs?: number
}

/**
 * What happened to one stored credential: `"revoked"` at `endpoint` and deleted, or `"not_revoked"`
 * (the issuer offers no revocation endpoint) and deleted locally only: its tokens stay valid at the issuer
 * until they expire.
 *
 * @since 0.2.0
 */
export type OAuthLogoutOutcome =
  | {
      readonly status: "revoked"
      readonly issuer: string
      readonly endpoint: string
      /** The tokens the issuer revoked (the access token is left out when the issuer cannot revoke it). */
      readonly revoked: readonly RevocableToken[]
    }
  | { readonly status: "not_revoked"; readonly issuer: string; readonly reason: "no_revocation_endpoint" }

/**
 * What {@link oauthLogout} did: one outcome per credential it removed; none when nothing was stored.
 *
 * @since 0.2.0
 */
export interface OAuthLogoutResult {
  readonly backend: string
  readonly caller?: string
  readonly credentials: readonly OAuthLogoutOutcome[]
}

/** Revocations repeated while a running gateway keeps rotating the stored credential underneath. */
const MAX_ROUNDS = 3

/**
 * Why a revocation request failed: the status and OAuth error, or the network failure. A server's
 * `error_description` that echoes a token gets it blanked out: no token reaches an error.
 */
const revocationFailure = (error: unknown, status: number | undefined, tokens: readonly string[]): string => {
  const code = ((error as Error)?.cause as { code?: unknown } | undefined)?.code
  const reason =
    error instanceof oauth.ResponseBodyError
      ? `HTTP ${error.status}: ${describeOAuthError(error)}`
      : status !== undefined
        ? `HTTP ${status}`
        : `${describeOAuthError(error)}${typeof code === "string" ? ` (${code})` : ""}`
  return tokens.reduce((text, token) => text.replaceAll(token, "[token]"), reason)
}

/**
 * Revokes and forgets the stored tokens of `backend`'s service identity, or of `caller`.
 *
 * @example
 * ```ts
 * const store = new EncryptedTokenStore("toolplane.tokens", parseTokenKey(process.env.TOKEN_KEY!, "TOKEN_KEY"))
 * const { credentials } = await oauthLogout({ backend: "crm", store })
 * ```
 * @throws {@link OAuthRevocationFailed} when an issuer's metadata or revocation endpoint failed; the
 *   credential is still stored unless `localOnly`.
 * @since 0.2.0
 */
export const oauthLogout = async (options: OAuthLogoutOptions): Promise<OAuthLogoutResult> => {
  const { backend, caller, store } = options
  const credentials: OAuthLogoutOutcome[] = []
  for (const issuer of await store.issuers(backend, caller)) {
    const failure = (fields: {
      endpoint?: string
      status?: number
      revoked: readonly RevocableToken[]
      reason: string
    }) =>
      new OAuthRevocationFailed({
        backend,
        ...(caller !== undefined ? { caller } : {}),
        issuer,
        removedLocally: options.localOnly === true,
        ...fields,
      })
    const giveUp = async (error: OAuthRevocationFailed): Promise<never> => {
      if (options.localOnly === true) await store.delete(issuer, backend, caller)
      throw error
    }

    let as: oauth.AuthorizationServer
    try {
      as = await discoverAuthorizationServer(issuer)
    } catch (error) {
      return giveUp(failure({ revoked: [], reason: (error as OAuthUpstreamError).message }))
    }
    const endpoint = as.revocation_endpoint
    if (endpoint === undefined) {
      await store.delete(issuer, backend, caller)
      credentials.push({ status: "not_revoked", issuer, reason: "no_revocation_endpoint" })
      continue
    }

    const revoked = new Set<RevocableToken>()
    let current = await store.get(issuer, backend, caller)
    for (let round = 0; current !== undefined && round < MAX_ROUNDS; round++) {
      const client: oauth.Client = { client_id: current.clientId }
      const tokens: [RevocableToken, string][] = []
      if (current.refreshToken !== undefined) tokens.push(["refresh_token", current.refreshToken])
      tokens.push(["access_token", current.accessToken])
      for (const [kind, token] of tokens) {
        let status: number | undefined
        try {
          const response = await oauth.revocationRequest(
            as,
            client,
            clientAuthFor(as, options.clientSecret),
            token,
            {
              additionalParameters: { token_type_hint: kind },
              signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
              ...requestOptions(new URL(endpoint)),
            },
          )
          status = response.status
          await oauth.processRevocationResponse(response)
          revoked.add(kind)
        } catch (error) {
          // RFC 7009 §2.2.1: a server that cannot revoke access tokens (self-contained ones) says so; the
          // refresh token is the one whose revocation ends the grant.
          if (
            kind === "access_token" &&
            error instanceof oauth.ResponseBodyError &&
            error.error === "unsupported_token_type"
          )
            continue
          return giveUp(
            failure({
              endpoint,
              ...(status !== undefined ? { status } : {}),
              revoked: [...revoked],
              reason: revocationFailure(
                error,
                status,
                tokens.map(([, text]) => text),
              ),
            }),
          )
        }
      }
      // A running gateway may have refreshed (rotated) the credential meanwhile: then what it stored is
      // kept, and revoked in the next round.
      current = await store.deleteIfUnchanged(current)
    }
    if (current !== undefined) await store.delete(issuer, backend, caller)
    credentials.push({ status: "revoked", issuer, endpoint, revoked: [...revoked] })
  }
  return { backend, ...(caller !== undefined ? { caller } : {}), credentials }
}
