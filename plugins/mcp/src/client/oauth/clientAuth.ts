/**
 * How the gateway authenticates as an OAuth client at a token endpoint, and what it reads from a dynamic
 * client registration.
 *
 * @since 0.2.0
 */
import * as oauth from "oauth4webapi"
import { OAuthUpstreamError } from "./errors.js"

/** The client authentication methods the gateway speaks at a token endpoint. */
type ClientAuthMethod = "client_secret_post" | "client_secret_basic"

/**
 * Client authentication at `as`'s token endpoint: none for a public client (no secret); else the method
 * the registration named, else `client_secret_post` unless the server's `token_endpoint_auth_methods_supported`
 * leaves it out and names `client_secret_basic` (a server offering only Basic refuses a secret in the
 * body).
 */
export const clientAuthFor = (
  as: oauth.AuthorizationServer,
  secret: string | undefined,
  registered?: string,
): oauth.ClientAuth => {
  if (secret === undefined) return oauth.None()
  const offered = as.token_endpoint_auth_methods_supported
  const method: ClientAuthMethod =
    registered === "client_secret_basic" || registered === "client_secret_post"
      ? registered
      : offered !== undefined &&
          !offered.includes("client_secret_post") &&
          offered.includes("client_secret_basic")
        ? "client_secret_basic"
        : "client_secret_post"
  return method === "client_secret_basic" ? secretBasic(secret) : oauth.ClientSecretPost(secret)
}

/** `application/x-www-form-urlencoded` of one value: letters, digits and `*-._` stay as they are. */
const formEncode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2)

/**
 * `client_secret_basic` (RFC 6749 §2.3.1): id and secret form-urlencoded, then HTTP Basic. The library's
 * own also escapes `-`, `.`, `_` and `*`, which servers that compare the header as sent refuse.
 */
const secretBasic =
  (secret: string): oauth.ClientAuth =>
  (_as, client, _body, headers) => {
    const pair = `${formEncode(client.client_id)}:${formEncode(secret)}`
    headers.set("authorization", `Basic ${Buffer.from(pair, "utf8").toString("base64")}`)
  }

/** What a dynamic client registration gave: the client id, and its secret and auth method if any. */
export interface Registration {
  readonly clientId: string
  readonly clientSecret?: string
  readonly tokenEndpointAuthMethod?: string
}

/**
 * Reads a dynamic client registration response (RFC 7591): a 201 (or 200) JSON object with a non-empty
 * `client_id`. Only what the gateway uses is checked, so a server that leaves out fields the gateway
 * never reads (such as `client_secret_expires_at` beside a secret) is still usable.
 *
 * @throws {@link OAuthUpstreamError} naming the registration endpoint and what was wrong.
 */
export const readRegistration = async (response: Response, endpoint: string): Promise<Registration> => {
  const text = await response.text().catch(() => "")
  if (response.status !== 201 && response.status !== 200) {
    let reason = `HTTP ${response.status}`
    try {
      const body = JSON.parse(text) as { error?: unknown; error_description?: unknown }
      if (typeof body.error === "string")
        reason += `: ${body.error}${typeof body.error_description === "string" ? `: ${body.error_description}` : ""}`
    } catch {
      // Not JSON: the status says enough.
    }
    throw new OAuthUpstreamError(`dynamic client registration at ${endpoint} failed (${reason})`)
  }
  let body: Record<string, unknown>
  try {
    body = JSON.parse(text) as Record<string, unknown>
  } catch {
    throw new OAuthUpstreamError(`dynamic client registration at ${endpoint} did not answer JSON`)
  }
  if (
    typeof body !== "object" ||
    body === null ||
    typeof body.client_id !== "string" ||
    body.client_id === ""
  )
    throw new OAuthUpstreamError(`dynamic client registration at ${endpoint} answered without a client_id`)
  return {
    clientId: body.client_id,
    ...(typeof body.client_secret === "string" ? { clientSecret: body.client_secret } : {}),
    ...(typeof body.token_endpoint_auth_method === "string"
      ? { tokenEndpointAuthMethod: body.token_endpoint_auth_method }
      : {}),
  }
}
