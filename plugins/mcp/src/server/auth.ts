/**
 * Authentication for `serveHttp`, as an OAuth 2.1 resource server (the MCP authorization spec,
 * 2025-11-25): every request to the endpoint carries `Authorization: Bearer <token>`; a missing or
 * invalid token is answered `401` with `WWW-Authenticate: Bearer resource_metadata="…"`, a token without
 * a required scope `403` with `error="insufficient_scope"`, and the protected-resource metadata document
 * (RFC 9728) is served at `/.well-known/oauth-protected-resource[/<path>]`.
 *
 * Two verifiers: {@link staticTokenAuth} (bearer tokens the operator hands out, e.g. from environment
 * variables) and {@link jwtAuth} (JWT access tokens checked against a JWKS with `jose`: signature,
 * issuer, audience, expiry).
 *
 * @since 0.1.0
 */
import { timingSafeEqual } from "node:crypto"
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JSONWebKeySet,
  type JWTPayload,
  errors as joseErrors,
  jwtVerify,
} from "jose"

/**
 * Who a verified token belongs to.
 *
 * @since 0.1.0
 */
export interface McpCaller {
  /** The client or subject (`client_id`, else `sub`). */
  readonly clientId: string
  readonly scopes: readonly string[]
  /** Epoch seconds. */
  readonly expiresAt?: number
  readonly token: string
  /**
   * The user the token was issued to (a JWT's `sub`), when the verifier knows one: a session is bound to
   * it as well as to the client, so one user of an OAuth client cannot use another user's session.
   *
   * @since 0.1.0
   */
  readonly subject?: string
}

/**
 * Why a token was refused.
 *
 * @since 0.1.0
 */
export interface McpAuthFailure {
  /** `invalid_token` → 401; `insufficient_scope` → 403. */
  readonly error: "invalid_token" | "insufficient_scope"
  readonly description: string
}

/**
 * A bearer-token verifier and what `serveHttp` says about it.
 *
 * @since 0.1.0
 */
export interface McpHttpAuth {
  /** Verifies the token of a request (`undefined` when there is none). */
  verify(token: string | undefined): Promise<McpCaller | McpAuthFailure>
  /** Authorization servers that issue tokens (for the metadata document). */
  readonly authorizationServers?: readonly string[]
  /** Scopes every token must carry (checked after `verify`; 403 when missing). */
  readonly requiredScopes?: readonly string[]
  /** Scopes advertised in the metadata document. */
  readonly scopesSupported?: readonly string[]
}

/**
 * A static token: the secret, who it stands for and its scopes.
 *
 * @since 0.1.0
 */
export interface StaticToken {
  readonly token: string
  readonly clientId: string
  readonly scopes?: readonly string[]
}

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * Accepts exactly the given bearer tokens (compared in constant time).
 *
 * @example
 * ```ts
 * await serveHttp(service, {
 *   host: "0.0.0.0",
 *   auth: staticTokenAuth([{ token: process.env.GATEWAY_TOKEN!, clientId: "ci", scopes: ["math"] }]),
 * })
 * ```
 * @since 0.1.0
 */
export const staticTokenAuth = (
  tokens: readonly StaticToken[],
  options: Pick<McpHttpAuth, "requiredScopes" | "scopesSupported"> = {},
): McpHttpAuth => ({
  ...options,
  verify: async (token) => {
    if (token === undefined) return { error: "invalid_token", description: "no bearer token" }
    const found = tokens.find((t) => sameSecret(t.token, token))
    return found
      ? { clientId: found.clientId, scopes: found.scopes ?? [], token }
      : { error: "invalid_token", description: "unknown token" }
  },
})

/**
 * Options of {@link jwtAuth}.
 *
 * @since 0.1.0
 */
export interface JwtAuthOptions {
  /** A JWKS URL (fetched and cached by `jose`) or a key set (e.g. read from a file). */
  readonly jwks: URL | JSONWebKeySet
  /** Expected `iss`. */
  readonly issuer: string | readonly string[]
  /** Expected `aud` (this server's resource identifier). */
  readonly audience: string | readonly string[]
  readonly requiredScopes?: readonly string[]
  readonly scopesSupported?: readonly string[]
  /** Issuers to list as authorization servers. Default: `issuer`. */
  readonly authorizationServers?: readonly string[]
  /** Allowed clock skew. Default 30 s. */
  readonly clockToleranceSeconds?: number
  /** Accepted algorithms. Default: asymmetric ones (RS*, PS*, ES*, EdDSA). */
  readonly algorithms?: readonly string[]
}

/** The claims `jwtVerify` checks (the only names its claim errors carry into a description). */
const CLAIMS = new Set(["iss", "aud", "exp", "nbf", "iat", "sub", "jti", "typ"])

const scopesOf = (payload: JWTPayload): string[] => {
  const scope = payload.scope ?? payload.scp
  if (typeof scope === "string") return scope.split(" ").filter(Boolean)
  if (Array.isArray(scope)) return scope.filter((s): s is string => typeof s === "string")
  return []
}

/**
 * Validates JWT access tokens against a JWKS: signature, `iss`, `aud`, `exp` / `nbf`.
 *
 * @example
 * ```ts
 * const auth = jwtAuth({
 *   jwks: new URL("https://auth.example.com/.well-known/jwks.json"),
 *   issuer: "https://auth.example.com",
 *   audience: "https://gateway.example.com/mcp",
 * })
 * await serveHttp(service, { host: "0.0.0.0", auth })
 * ```
 * @since 0.1.0
 */
export const jwtAuth = (options: JwtAuthOptions): McpHttpAuth => {
  const keys =
    options.jwks instanceof URL ? createRemoteJWKSet(options.jwks) : createLocalJWKSet(options.jwks)
  const issuers = typeof options.issuer === "string" ? [options.issuer] : [...options.issuer]
  return {
    authorizationServers: options.authorizationServers ?? issuers,
    ...(options.requiredScopes ? { requiredScopes: options.requiredScopes } : {}),
    ...(options.scopesSupported ? { scopesSupported: options.scopesSupported } : {}),
    verify: async (token) => {
      if (token === undefined) return { error: "invalid_token", description: "no bearer token" }
      try {
        const { payload } = await jwtVerify(token, keys, {
          issuer: issuers,
          audience: typeof options.audience === "string" ? options.audience : [...options.audience],
          clockTolerance: options.clockToleranceSeconds ?? 30,
          algorithms: [
            ...(options.algorithms ?? [
              "RS256",
              "RS384",
              "RS512",
              "PS256",
              "PS384",
              "PS512",
              "ES256",
              "ES384",
              "ES512",
              "EdDSA",
            ]),
          ],
          requiredClaims: ["exp"],
        })
        const clientId =
          typeof payload.client_id === "string"
            ? payload.client_id
            : typeof payload.sub === "string"
              ? payload.sub
              : ""
        if (clientId === "") return { error: "invalid_token", description: "token names no client_id or sub" }
        return {
          clientId,
          ...(typeof payload.sub === "string" ? { subject: payload.sub } : {}),
          scopes: scopesOf(payload),
          ...(payload.exp !== undefined ? { expiresAt: payload.exp } : {}),
          token,
        }
      } catch (error) {
        // Fixed text only: a library's message can quote the token (a header parameter's name, say),
        // and the description ends up in a response header.
        const description =
          error instanceof joseErrors.JWTExpired
            ? "token expired"
            : error instanceof joseErrors.JWTClaimValidationFailed
              ? `claim ${CLAIMS.has(error.claim) ? error.claim : "?"} invalid`
              : error instanceof joseErrors.JWSSignatureVerificationFailed
                ? "signature verification failed"
                : error instanceof joseErrors.JOSEError && /^ERR_[A-Z_]{1,60}$/.test(error.code)
                  ? `token could not be verified (${error.code})`
                  : "token could not be verified"
        return { error: "invalid_token", description }
      }
    },
  }
}

/**
 * `text` as the content of a `WWW-Authenticate` quoted string: the characters RFC 6750 allows in
 * `error_description` and `scope` (printable ASCII without the double quote and backslash), anything else (CR, LF, NUL,
 * quotes, non-ASCII) replaced by `?`, at most 200 characters. A verifier's description, whoever wrote
 * it, never reaches the header as it is.
 *
 * @internal
 * @since 0.1.0
 */
export const challengeText = (text: string): string =>
  text.slice(0, 200).replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, "?")

/**
 * Checks a request's `Authorization` header; the caller, or the status, headers and body to answer.
 *
 * @internal
 * @since 0.1.0
 */
export const authenticate = async (
  auth: McpHttpAuth,
  header: string | undefined,
  metadataUrl: string,
): Promise<
  | { readonly ok: true; readonly caller: McpCaller }
  | { readonly ok: false; readonly status: 401 | 403; readonly challenge: string; readonly message: string }
> => {
  const match = header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)
  const result = await auth.verify(match?.[1])
  if ("error" in result) {
    const challenge =
      match === undefined || match === null
        ? `Bearer resource_metadata="${metadataUrl}"`
        : `Bearer error="invalid_token", error_description="${challengeText(result.description)}", resource_metadata="${challengeText(metadataUrl)}"`
    return {
      ok: false,
      status: 401,
      challenge,
      message: `Unauthorized: ${challengeText(result.description)}`,
    }
  }
  const missing = (auth.requiredScopes ?? []).filter((s) => !result.scopes.includes(s))
  if (missing.length > 0)
    return {
      ok: false,
      status: 403,
      challenge: `Bearer error="insufficient_scope", scope="${challengeText((auth.requiredScopes ?? []).join(" "))}", resource_metadata="${challengeText(metadataUrl)}"`,
      message: `Forbidden: token lacks scope ${missing.map((s) => `"${challengeText(s)}"`).join(", ")}`,
    }
  return { ok: true, caller: result }
}
