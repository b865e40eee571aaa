/**
 * The gateway as an OAuth 2.1 client of a protected MCP server: an {@link McpUpstreamAuth} that attaches a
 * bearer token for this backend's resource and issuer to every request, obtains it by the client
 * credentials grant or from the encrypted store (filled by `toolplane auth login`), refreshes it before
 * it expires, and on a 401 refreshes once and otherwise reports what to run.
 *
 * @since 0.1.0
 */
import { BackendUnavailable } from "@toolplane/foundation"
import * as oauth from "oauth4webapi"
import type { McpUpstreamAuth } from "../connection.js"
import { clientAuthFor } from "./clientAuth.js"
import { discoverOAuth, type OAuthDiscovery, requestOptions, resourceMetadataUrl } from "./discovery.js"
import { OAuthLoginRequired, OAuthUpstreamError } from "./errors.js"
import type { EncryptedTokenStore, StoredTokens } from "./tokenStore.js"

/**
 * How a backend gets its upstream token.
 *
 * @since 0.1.0
 */
export interface OAuthUpstreamConfig {
  /** The backend's name (keys stored tokens, and names the login command in errors). */
  readonly backend: string
  /** The MCP server URL: the RFC 8707 `resource` of every token request. */
  readonly resource: string | URL
  /**
   * `"client_credentials"`: machine to machine, with `clientSecret`. `"authorization_code"`: one
   * service identity whose consent `toolplane auth login` obtained; tokens come from `store`.
   */
  readonly grant: "client_credentials" | "authorization_code"
  /** A pre-registered client id, or the https URL of a Client ID Metadata Document. */
  readonly clientId?: string
  readonly clientSecret?: string
  readonly scopes?: readonly string[]
  /** The expected issuer; when set, the resource must name it and nothing else is used. */
  readonly issuer?: string
  /** Where authorization-code tokens are kept (required for that grant). */
  readonly store?: EncryptedTokenStore
  /** Refresh this long before expiry. Default 30 000 ms. */
  readonly refreshSkewMs?: number
  /**
   * The gateway caller whose own tokens these are (authorization code only): the store is read and
   * written for this caller alone, and errors name `toolplane auth login <backend> --caller <id>`.
   *
   * @since 0.2.0
   */
  readonly caller?: string
  /**
   * Told when a request fails for want of a usable token (the failure itself still rejects).
   *
   * @since 0.2.0
   */
  readonly onLoginRequired?: (error: OAuthLoginRequired) => void
}

/**
 * An {@link McpUpstreamAuth} with discovery exposed.
 *
 * @since 0.1.0
 */
export interface OAuthUpstreamAuth extends McpUpstreamAuth {
  /** Discovers (once; again after a 401 names other metadata) the authorization server. */
  discover(challenge?: string): Promise<OAuthDiscovery>
}

/** Token request options: the `resource` indicator, and plain http only to loopback. */
const tokenOptions = (as: oauth.AuthorizationServer, resource: string) => ({
  additionalParameters: { resource },
  ...requestOptions(new URL(as.token_endpoint ?? as.issuer)),
})

/** Stored tokens from a token endpoint response. */
export const toStored = (
  response: oauth.TokenEndpointResponse,
  base: Omit<StoredTokens, "accessToken" | "refreshToken" | "expiresAt" | "scope">,
  previousRefresh?: string,
): StoredTokens => {
  const refreshToken = response.refresh_token ?? previousRefresh
  return {
    ...base,
    accessToken: response.access_token,
    ...(refreshToken !== undefined ? { refreshToken } : {}),
    ...(response.expires_in !== undefined ? { expiresAt: Date.now() + response.expires_in * 1000 } : {}),
    ...(response.scope !== undefined ? { scope: response.scope } : {}),
  }
}

/**
 * Creates the OAuth credentials of one HTTP backend; pass it as `http.auth` of the backend.
 *
 * @example
 * ```ts
 * const url = "https://mcp.example.com/mcp"
 * const auth = oauthUpstreamAuth({
 *   backend: "crm", resource: url, grant: "client_credentials",
 *   clientId: "gateway", clientSecret: process.env.CRM_SECRET, scopes: ["tools"],
 * })
 * const backend = mcpBackend({ name: "crm", http: { url, auth } })
 * ```
 * @since 0.1.0
 */
export const oauthUpstreamAuth = (config: OAuthUpstreamConfig): OAuthUpstreamAuth => {
  const resource = new URL(config.resource).href
  const skew = config.refreshSkewMs ?? 30_000
  let discovery: Promise<OAuthDiscovery> | undefined
  let tokens: StoredTokens | undefined
  let pending: Promise<StoredTokens> | undefined
  /** Whether a 401 arrived (after which discovery failures are reported, not retried bare). */
  let challenged = false

  const caller = config.caller
  if (caller !== undefined && config.grant !== "authorization_code")
    throw new OAuthUpstreamError(
      `backend ${config.backend}: per-caller tokens need the authorization_code grant`,
    )
  if (config.grant === "authorization_code" && config.store === undefined)
    throw new OAuthUpstreamError(
      `backend ${config.backend}: the authorization_code grant needs a token store`,
    )
  if (
    config.grant === "client_credentials" &&
    (config.clientId === undefined || config.clientSecret === undefined)
  )
    throw new OAuthUpstreamError(
      `backend ${config.backend}: the client_credentials grant needs a client id and secret`,
    )

  // The first issuer found stays the only one: a backend whose metadata later names another authorization
  // server gets no client secret or token sent there (it is reported until reconfigured).
  let pinnedIssuer = config.issuer
  const discover = (challenge?: string): Promise<OAuthDiscovery> => {
    if (discovery === undefined || challenge !== undefined) {
      const next = discoverOAuth(resource, {
        ...(challenge !== undefined ? { challenge } : {}),
        ...(pinnedIssuer !== undefined ? { issuer: pinnedIssuer } : {}),
      })
      next.then(
        (found) => {
          pinnedIssuer ??= found.authorizationServer.issuer
        },
        () => {},
      )
      next.catch(() => {
        if (discovery === next) discovery = undefined
      })
      discovery = next
    }
    return discovery
  }

  const clientCredentials = async (): Promise<StoredTokens> => {
    const { authorizationServer: as } = await discover()
    const client: oauth.Client = { client_id: config.clientId! }
    const parameters: Record<string, string> = { resource }
    if (config.scopes?.length) parameters.scope = config.scopes.join(" ")
    try {
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        clientAuthFor(as, config.clientSecret),
        parameters,
        requestOptions(new URL(as.token_endpoint ?? as.issuer)),
      )
      const result = await oauth.processClientCredentialsResponse(as, client, response)
      return toStored(result, {
        issuer: as.issuer,
        backend: config.backend,
        resource,
        clientId: client.client_id,
      })
    } catch (error) {
      throw new OAuthUpstreamError(
        `backend ${config.backend}: client credentials grant at ${as.issuer} failed: ${describeOAuthError(error)}`,
      )
    }
  }

  const stored = async (forceRefresh: boolean): Promise<StoredTokens> => {
    const { authorizationServer: as } = await discover()
    const noToken = () =>
      new OAuthLoginRequired(
        config.backend,
        `backend ${config.backend} has no OAuth token from ${as.issuer}${caller !== undefined ? " for this caller" : ""}`,
        caller,
      )
    const current = await config.store!.get(as.issuer, config.backend, caller)
    // A token stored for another resource (the backend's URL changed) is never sent here.
    if (current === undefined || current.resource !== resource) throw noToken()
    if (!forceRefresh && !expiring(current)) return current
    // Refreshed early when it can be; without a refresh token it serves until it really expires (a
    // lifetime shorter than the skew would otherwise be unusable from the start).
    if (!forceRefresh && current.refreshToken === undefined && current.expiresAt! > Date.now()) return current
    if (current.refreshToken === undefined)
      throw new OAuthLoginRequired(
        config.backend,
        `the OAuth token of backend ${config.backend} expired`,
        caller,
      )
    const refreshAtIssuer = async (held: StoredTokens): Promise<StoredTokens> => {
      const client: oauth.Client = { client_id: held.clientId }
      try {
        const response = await oauth.refreshTokenGrantRequest(
          as,
          client,
          clientAuthFor(as, config.clientSecret),
          held.refreshToken!,
          tokenOptions(as, resource),
        )
        const result = await oauth.processRefreshTokenResponse(as, client, response)
        return toStored(
          result,
          {
            issuer: as.issuer,
            backend: config.backend,
            ...(caller !== undefined ? { caller } : {}),
            resource,
            clientId: held.clientId,
          },
          held.refreshToken,
        )
      } catch (error) {
        throw new OAuthLoginRequired(
          config.backend,
          `the OAuth token of backend ${config.backend} could not be refreshed at ${as.issuer} (${describeOAuthError(error)})`,
          caller,
        )
      }
    }
    // Another process sharing the store may have refreshed it first: then its tokens are the ones to use
    // (for this resource only, as above).
    const next = await config.store!.refresh(current, refreshAtIssuer)
    if (next === undefined || next.resource !== resource) throw noToken()
    return next
  }

  const expiring = (t: StoredTokens): boolean => t.expiresAt !== undefined && t.expiresAt - skew <= Date.now()

  const obtain = (forceRefresh: boolean): Promise<StoredTokens> => {
    if (pending === undefined) {
      pending = (config.grant === "client_credentials" ? clientCredentials() : stored(forceRefresh)).finally(
        () => {
          pending = undefined
        },
      )
    }
    return pending
  }

  /** A backend without a usable token is unavailable, like one that is down (the reason says what to run). */
  const unavailable = (error: unknown): BackendUnavailable => {
    if (error instanceof OAuthLoginRequired) config.onLoginRequired?.(error)
    return new BackendUnavailable({
      backend: config.backend,
      reason: error instanceof Error ? error.message : String(error),
    })
  }

  return {
    discover,
    async authorization() {
      // Metadata only a 401 points to (not at the well-known URL): send the first request bare to get it.
      if (tokens === undefined && !challenged) {
        try {
          await discover()
        } catch {
          return undefined
        }
      }
      try {
        if (tokens === undefined || expiring(tokens)) tokens = await obtain(false)
      } catch (error) {
        throw unavailable(error)
      }
      return `Bearer ${tokens.accessToken}`
    },
    onUnauthorized: (challenge) =>
      onUnauthorized(challenge).catch((error) => Promise.reject(unavailable(error))),
  }

  async function onUnauthorized(challenge: string | undefined): Promise<void> {
    challenged = true
    const held = tokens
    tokens = undefined
    // The challenge may name other protected-resource metadata: re-discover, and never send a token of
    // one issuer to a resource that now names another (discovery fails, or keys the store differently).
    await (resourceMetadataUrl(challenge) !== undefined ? discover(challenge) : discover())
    try {
      tokens = await obtain(true)
    } catch (error) {
      throw error instanceof OAuthUpstreamError
        ? error
        : new OAuthUpstreamError(`backend ${config.backend}: ${describeOAuthError(error)}`)
    }
    if (held !== undefined && tokens.accessToken === held.accessToken)
      throw new OAuthLoginRequired(
        config.backend,
        `backend ${config.backend} refused its OAuth token from ${tokens.issuer} (revoked?)`,
        caller,
      )
  }
}

/** An OAuth error's code and description, never a token. */
export const describeOAuthError = (error: unknown): string => {
  if (error instanceof oauth.ResponseBodyError)
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ""}`
  return error instanceof Error ? error.message : String(error)
}
