/**
 * The one-time browser consent of a backend's service identity: the authorization code grant with PKCE
 * on a loopback redirect (`http://127.0.0.1:<port>/callback`), `state` and the RFC 9207 `iss` checked,
 * the code exchanged with the verifier, the tokens stored encrypted by issuer and backend.
 *
 * @since 0.1.0
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as oauth from "oauth4webapi"
import { clientAuthFor, readRegistration } from "./clientAuth.js"
import { discoverOAuth, requestOptions, resourceMetadataUrl } from "./discovery.js"
import { OAuthUpstreamError } from "./errors.js"
import type { EncryptedTokenStore, StoredTokens } from "./tokenStore.js"
import { describeOAuthError, toStored } from "./upstreamAuth.js"

/**
 * Options of {@link authorizationCodeLogin}.
 *
 * @since 0.1.0
 */
export interface AuthorizationCodeLoginOptions {
  readonly backend: string
  /**
   * The gateway caller consenting for themselves (a per-caller backend): the tokens are stored for this
   * caller only. Absent: the backend's one service identity.
   *
   * @since 0.2.0
   */
  readonly caller?: string
  /** The MCP server URL (RFC 8707 `resource`). */
  readonly resource: string | URL
  readonly store: EncryptedTokenStore
  /** A pre-registered client id or a Client ID Metadata Document URL; else dynamic registration. */
  readonly clientId?: string
  readonly clientSecret?: string
  readonly scopes?: readonly string[]
  readonly issuer?: string
  /** The loopback port of the redirect; default 0 (any free port). */
  readonly port?: number
  /** Receives the URL to open in a browser. */
  readonly onAuthorizationUrl: (url: URL) => void
  /** Time allowed for the consent. Default 5 minutes. */
  readonly timeoutMs?: number
  readonly signal?: AbortSignal
}

const listen = (server: Server, port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })

/** How long the login waits for the MCP server's 401 before it tries the well-known URLs. */
const CHALLENGE_TIMEOUT_MS = 30_000

/**
 * The `WWW-Authenticate` of the MCP server's 401 to a request without a token (a JSON-RPC `ping`), when
 * it names protected-resource metadata; `undefined` otherwise (no 401, no such parameter, unreachable:
 * discovery then tries the well-known URL and reports what it found).
 */
const unauthorizedChallenge = async (resource: string, signal?: AbortSignal): Promise<string | undefined> => {
  try {
    const response = await fetch(resource, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      redirect: "manual",
      signal:
        signal !== undefined
          ? AbortSignal.any([signal, AbortSignal.timeout(CHALLENGE_TIMEOUT_MS)])
          : AbortSignal.timeout(CHALLENGE_TIMEOUT_MS),
    })
    await response.body?.cancel()
    const challenge = response.headers.get("www-authenticate") ?? undefined
    return response.status === 401 && resourceMetadataUrl(challenge) !== undefined ? challenge : undefined
  } catch {
    return undefined
  }
}

/**
 * Runs the consent and stores the tokens; resolves with what was stored (tokens included: do not log it).
 *
 * @throws {@link OAuthUpstreamError} on a wrong `state` or `iss`, a refused consent or a failed exchange.
 * @since 0.1.0
 */
export const authorizationCodeLogin = async (
  options: AuthorizationCodeLoginOptions,
): Promise<StoredTokens> => {
  const resource = new URL(options.resource).href
  // The metadata a 401 names comes first (MCP authorization); the well-known URL is the fallback.
  const challenge = await unauthorizedChallenge(resource, options.signal)
  const { authorizationServer: as } = await discoverOAuth(resource, {
    ...(challenge !== undefined ? { challenge } : {}),
    ...(options.issuer !== undefined ? { issuer: options.issuer } : {}),
  })
  if (as.authorization_endpoint === undefined)
    throw new OAuthUpstreamError(`authorization server ${as.issuer} has no authorization_endpoint`)
  const server = createServer()
  const port = await listen(server, options.port ?? 0)
  const redirectUri = `http://127.0.0.1:${port}/callback`
  try {
    let clientId = options.clientId
    let clientSecret = options.clientSecret
    let registeredAuth: string | undefined
    if (clientId === undefined) {
      if (as.registration_endpoint === undefined)
        throw new OAuthUpstreamError(
          `backend ${options.backend}: no client_id configured and ${as.issuer} offers no dynamic registration`,
        )
      const response = await oauth.dynamicClientRegistrationRequest(
        as,
        {
          redirect_uris: [redirectUri],
          application_type: "native",
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          client_name: `toolplane (${options.backend})`,
        },
        requestOptions(new URL(as.registration_endpoint)),
      )
      const registered = await readRegistration(response, as.registration_endpoint)
      clientId = registered.clientId
      clientSecret = registered.clientSecret
      registeredAuth = registered.tokenEndpointAuthMethod
    }
    const client: oauth.Client = { client_id: clientId }
    const verifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const url = new URL(as.authorization_endpoint)
    url.searchParams.set("response_type", "code")
    url.searchParams.set("client_id", clientId)
    url.searchParams.set("redirect_uri", redirectUri)
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier))
    url.searchParams.set("code_challenge_method", "S256")
    url.searchParams.set("state", state)
    url.searchParams.set("resource", resource)
    if (options.scopes?.length) url.searchParams.set("scope", options.scopes.join(" "))

    const callback = await new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new OAuthUpstreamError(`no authorization response within ${options.timeoutMs ?? 300_000} ms`),
          ),
        options.timeoutMs ?? 300_000,
      )
      options.signal?.addEventListener("abort", () => reject(options.signal!.reason), { once: true })
      server.on("request", (req, res) => {
        const received = new URL(req.url ?? "/", redirectUri)
        if (received.pathname !== "/callback") {
          res.writeHead(404).end()
          return
        }
        clearTimeout(timer)
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8", connection: "close" })
        res.end("Toolplane: authorization received; you can close this window.\n")
        resolve(received)
      })
      options.onAuthorizationUrl(url)
    })

    let parameters: URLSearchParams
    try {
      // Checks `state`, an `error` response, and the RFC 9207 `iss` against the discovered issuer.
      parameters = oauth.validateAuthResponse(as, client, callback, state)
    } catch (error) {
      throw new OAuthUpstreamError(`authorization response refused: ${describeOAuthError(error)}`)
    }
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuthFor(as, clientSecret, registeredAuth),
        parameters,
        redirectUri,
        verifier,
        { additionalParameters: { resource }, ...requestOptions(new URL(as.token_endpoint ?? as.issuer)) },
      )
      const result = await oauth.processAuthorizationCodeResponse(as, client, response)
      const tokens = toStored(result, {
        issuer: as.issuer,
        backend: options.backend,
        ...(options.caller !== undefined ? { caller: options.caller } : {}),
        resource,
        clientId,
      })
      await options.store.set(tokens)
      return tokens
    } catch (error) {
      throw new OAuthUpstreamError(`code exchange at ${as.issuer} failed: ${describeOAuthError(error)}`)
    }
  } finally {
    server.closeAllConnections()
    server.close()
  }
}
