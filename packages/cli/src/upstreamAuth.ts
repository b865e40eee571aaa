/**
 * The `auth` of an HTTP backend in the configuration turned into the plugin's OAuth client: the client
 * secret and the token-store key read from the environment variables the configuration names, the token
 * store beside the configuration file.
 *
 * @since 0.1.0
 */
import { resolve } from "node:path"
import { ConfigError } from "@toolplane/foundation"
import {
  EncryptedTokenStore,
  type McpBackend,
  type McpBackendOptions,
  type McpUpstreamAuth,
  oauthUpstreamAuth,
  parseTokenKey,
  perCallerMcpBackend,
} from "@toolplane/plugin-mcp"
import type { BackendConfig, UpstreamAuthConfig } from "./config/schema.js"

/**
 * The client secret of a backend's `auth`, from the variable `client_secret_env` names.
 *
 * @throws ConfigError when that variable is unset.
 * @since 0.1.0
 */
export const upstreamClientSecret = (
  auth: UpstreamAuthConfig,
  index: number,
  env: NodeJS.ProcessEnv,
): string | undefined => {
  if (auth.client_secret_env === undefined) return undefined
  const secret = env[auth.client_secret_env]
  if (secret === undefined || secret === "")
    throw new ConfigError({
      path: `backends.${index}.auth.client_secret_env`,
      reason: `${auth.client_secret_env} is not set`,
    })
  return secret
}

/**
 * The encrypted token store of a backend's `auth`.
 *
 * @throws ConfigError when the key variable is unset or not a 32-byte key.
 * @since 0.1.0
 */
export const upstreamTokenStore = (
  auth: UpstreamAuthConfig,
  index: number,
  baseDir: string,
  env: NodeJS.ProcessEnv,
): EncryptedTokenStore => {
  const text = env[auth.token_key_env]
  if (text === undefined || text === "")
    throw new ConfigError({
      path: `backends.${index}.auth.token_key_env`,
      reason: `${auth.token_key_env} is not set (32 random bytes as base64: \`openssl rand -base64 32\`)`,
    })
  let key: Buffer
  try {
    key = parseTokenKey(text, auth.token_key_env)
  } catch (error) {
    throw new ConfigError({ path: `backends.${index}.auth.token_key_env`, reason: (error as Error).message })
  }
  return new EncryptedTokenStore(resolve(baseDir, auth.token_store), key)
}

/**
 * The OAuth client of an HTTP backend with `auth`, or `undefined` without.
 *
 * @since 0.1.0
 */
export const upstreamAuthOf = (
  config: BackendConfig,
  index: number,
  baseDir: string,
  env: NodeJS.ProcessEnv,
): McpUpstreamAuth | undefined => {
  const auth = config.auth
  if (auth === undefined || config.mcp === undefined || "command" in config.mcp) return undefined
  if (auth.mode === "per_caller") return undefined
  const secret = upstreamClientSecret(auth, index, env)
  return oauthUpstreamAuth({
    backend: config.name,
    resource: config.mcp.url,
    grant: auth.grant,
    ...(auth.client_id !== undefined ? { clientId: auth.client_id } : {}),
    ...(secret !== undefined ? { clientSecret: secret } : {}),
    scopes: auth.scopes,
    ...(auth.issuer !== undefined ? { issuer: auth.issuer } : {}),
    ...(auth.grant === "authorization_code" ? { store: upstreamTokenStore(auth, index, baseDir, env) } : {}),
  })
}

/**
 * The backend of an HTTP backend whose `auth` has `mode = "per_caller"` (each caller's own token), or
 * `undefined` for any other backend.
 *
 * @since 0.2.0
 */
export const perCallerBackendOf = (
  config: BackendConfig,
  index: number,
  baseDir: string,
  env: NodeJS.ProcessEnv,
  options: McpBackendOptions,
): McpBackend | undefined => {
  const auth = config.auth
  if (auth?.mode !== "per_caller" || config.mcp === undefined || "command" in config.mcp) return undefined
  const secret = upstreamClientSecret(auth, index, env)
  return perCallerMcpBackend(
    {
      name: config.name,
      http: { url: config.mcp.url, ...(config.mcp.headers ? { headers: config.mcp.headers } : {}) },
      store: upstreamTokenStore(auth, index, baseDir, env),
      ...(auth.client_id !== undefined ? { clientId: auth.client_id } : {}),
      ...(secret !== undefined ? { clientSecret: secret } : {}),
      ...(auth.issuer !== undefined ? { issuer: auth.issuer } : {}),
      ...(auth.max_callers !== undefined ? { maxCallers: auth.max_callers } : {}),
    },
    options,
  )
}
