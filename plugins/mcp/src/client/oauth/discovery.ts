/**
 * Authorization-server discovery for a protected MCP server: its protected-resource metadata (RFC 9728,
 * from a 401's `WWW-Authenticate: Bearer resource_metadata="…"` or the well-known URL of the MCP URL),
 * then the authorization server's metadata (RFC 8414, falling back to OpenID Connect discovery), with
 * the `resource` and `issuer` of each document checked against what was asked for.
 *
 * @since 0.1.0
 */
import * as oauth from "oauth4webapi"
import { OAuthUpstreamError } from "./errors.js"

/**
 * What discovery found for one MCP server.
 *
 * @since 0.1.0
 */
export interface OAuthDiscovery {
  /** The MCP server URL, the RFC 8707 `resource` of every token request. */
  readonly resource: string
  /** The authorization server chosen (its metadata, `issuer` checked). */
  readonly authorizationServer: oauth.AuthorizationServer
  /** Scopes the protected resource advertises (`scopes_supported`), if any. */
  readonly scopesSupported?: readonly string[]
}

/** Options of {@link discoverOAuth}. @since 0.1.0 */
export interface DiscoverOAuthOptions {
  /** The `WWW-Authenticate` header of a 401 from the MCP server, if one arrived. */
  readonly challenge?: string
  /** The issuer the configuration expects; discovery fails when the resource does not name it. */
  readonly issuer?: string
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"])

const isLoopbackHttp = (url: URL): boolean => url.protocol === "http:" && LOOPBACK.has(url.hostname)

/** Plain `http:` only to loopback hosts (tests, local servers); everything else must be `https:`. */
export const requestOptions = (url: URL): { [oauth.allowInsecureRequests]?: boolean } =>
  isLoopbackHttp(url) ? { [oauth.allowInsecureRequests]: true } : {}

/**
 * The `resource_metadata` parameter of a `Bearer` challenge, if there is one.
 *
 * @since 0.1.0
 */
export const resourceMetadataUrl = (challenge: string | undefined): string | undefined => {
  if (challenge === undefined) return undefined
  const match = /(?:^|[\s,])resource_metadata\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/i.exec(challenge)
  if (!/^\s*bearer\b/i.test(challenge) && !/,\s*bearer\b/i.test(challenge)) return undefined
  return match ? (match[1]?.replace(/\\(.)/g, "$1") ?? match[2]) : undefined
}

const fetchResourceMetadata = async (resource: URL, challenge: string | undefined) => {
  const fromChallenge = resourceMetadataUrl(challenge)
  let response: Response
  if (fromChallenge !== undefined) {
    const url = new URL(fromChallenge)
    if (url.protocol !== "https:" && !isLoopbackHttp(url))
      throw new OAuthUpstreamError(`resource_metadata ${url.href} is not https`)
    response = await fetch(url, { headers: { accept: "application/json" }, redirect: "manual" })
  } else {
    response = await oauth.resourceDiscoveryRequest(resource, requestOptions(resource))
    // The path-inserted document first, then the root one (RFC 9728 §3.1; MCP authorization); the
    // root document must still name this resource.
    if (response.status === 404 && resource.pathname !== "/") {
      await response.body?.cancel()
      response = await fetch(new URL("/.well-known/oauth-protected-resource", resource), {
        headers: { accept: "application/json" },
        redirect: "manual",
      })
    }
  }
  return oauth.processResourceDiscoveryResponse(resource, response)
}

const fetchServerMetadata = async (issuer: URL): Promise<oauth.AuthorizationServer> => {
  let lastError: unknown
  for (const algorithm of ["oauth2", "oidc"] as const) {
    try {
      const response = await oauth.discoveryRequest(issuer, { algorithm, ...requestOptions(issuer) })
      return await oauth.processDiscoveryResponse(issuer, response)
    } catch (error) {
      lastError = error
    }
  }
  throw lastError
}

/**
 * The metadata of the authorization server `issuer` (RFC 8414, falling back to OpenID Connect discovery),
 * its `issuer` checked: for a credential whose issuer is already known (a logout revokes at the issuer
 * that issued the tokens, whatever the resource names now).
 *
 * @throws {@link OAuthUpstreamError} naming the issuer and what was wrong.
 * @since 0.2.0
 */
export const discoverAuthorizationServer = async (
  issuer: string | URL,
): Promise<oauth.AuthorizationServer> => {
  try {
    return await fetchServerMetadata(new URL(issuer))
  } catch (error) {
    throw new OAuthUpstreamError(
      `no valid metadata for authorization server ${issuer}: ${(error as Error).message}`,
    )
  }
}

/**
 * Discovers the authorization server of the MCP server at `resource`.
 *
 * @throws {@link OAuthUpstreamError} naming the document that was missing or wrong.
 * @since 0.1.0
 */
export const discoverOAuth = async (
  resource: string | URL,
  options: DiscoverOAuthOptions = {},
): Promise<OAuthDiscovery> => {
  const resourceUrl = new URL(resource)
  let metadata: oauth.ResourceServer
  try {
    metadata = await fetchResourceMetadata(resourceUrl, options.challenge)
  } catch (error) {
    throw new OAuthUpstreamError(
      `no valid protected-resource metadata for ${resourceUrl.href}: ${(error as Error).message}`,
    )
  }
  const servers = metadata.authorization_servers ?? []
  if (servers.length === 0)
    throw new OAuthUpstreamError(
      `the protected-resource metadata of ${resourceUrl.href} names no authorization server`,
    )
  let issuer = servers[0]!
  if (options.issuer !== undefined) {
    if (!servers.includes(options.issuer))
      throw new OAuthUpstreamError(
        `${resourceUrl.href} names authorization servers ${servers.join(", ")}, not the configured issuer ${options.issuer}`,
      )
    issuer = options.issuer
  }
  let authorizationServer: oauth.AuthorizationServer
  try {
    authorizationServer = await fetchServerMetadata(new URL(issuer))
  } catch (error) {
    throw new OAuthUpstreamError(
      `no valid metadata for authorization server ${issuer}: ${(error as Error).message}`,
    )
  }
  return {
    resource: metadata.resource,
    authorizationServer,
    ...(metadata.scopes_supported ? { scopesSupported: metadata.scopes_supported } : {}),
  }
}
