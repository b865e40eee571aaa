/**
 * `[server.auth]`: the bearer-token verifier of `serve --transport http`, and the per-caller policy its
 * scopes stand for (which tools, prompts and resources a token's holder sees and may call).
 *
 * @since 0.2.0
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { allowIds, type CatalogItemRef } from "@toolplane/compose"
import {
  ConfigError,
  defineMiddleware,
  type ExecutionContext,
  type Middleware,
  makeContext,
  type Tool,
  ToolNotFound,
} from "@toolplane/foundation"
import { callerScopes, jwtAuth, type McpHttpAuth, staticTokenAuth } from "@toolplane/plugin-mcp"
import type { AuthConfig } from "./config/schema.js"

/**
 * The verifier `[server.auth]` describes. Token variables must be set (16+ characters); a JWKS file
 * must hold a key set.
 *
 * @since 0.2.0
 */
export const httpAuthFromConfig = (
  auth: AuthConfig,
  env: NodeJS.ProcessEnv,
  baseDir: string,
  file?: string,
): McpHttpAuth => {
  const fail = (path: string, reason: string) =>
    new ConfigError({ path: `server.auth.${path}`, reason, ...(file ? { file } : {}) })
  const scopesSupported = [...new Set([...auth.required_scopes, ...Object.keys(auth.scopes)])]
  const common = {
    ...(auth.required_scopes.length > 0 ? { requiredScopes: auth.required_scopes } : {}),
    ...(scopesSupported.length > 0 ? { scopesSupported } : {}),
  }
  const tokens = auth.tokens.map((t, i) => {
    const token = env[t.env]
    if (token === undefined) throw fail(`tokens[${i}].env`, `environment variable ${t.env} is not set`)
    if (token.length < 16)
      throw fail(`tokens[${i}].env`, `${t.env} holds ${token.length} characters; use at least 16 random ones`)
    return { token, clientId: t.client, scopes: t.scopes }
  })
  const statics = tokens.length > 0 ? staticTokenAuth(tokens, common) : undefined
  if (auth.jwks_url === undefined && auth.jwks_file === undefined) return statics!
  let jwks: URL | { keys: [] }
  if (auth.jwks_url !== undefined) jwks = new URL(auth.jwks_url)
  else {
    const path = resolve(baseDir, auth.jwks_file!)
    try {
      jwks = JSON.parse(readFileSync(path, "utf8")) as { keys: [] }
    } catch (error) {
      throw fail("jwks_file", `cannot read a JSON key set from ${path}: ${(error as Error).message}`)
    }
    if (!Array.isArray(jwks.keys)) throw fail("jwks_file", `${path} is not a JWKS (no "keys" array)`)
  }
  const jwt = jwtAuth({ jwks, issuer: auth.issuer!, audience: auth.audience!, ...common })
  if (!statics) return jwt
  // Both: a static token is tried first (constant-time compare), then the JWT.
  return {
    ...jwt,
    verify: async (token) => {
      const fixed = await statics.verify(token)
      return "error" in fixed ? jwt.verify(token) : fixed
    },
  }
}

/**
 * What a caller may see, from its token's scopes. Without `[server.auth.scopes]`, or for a caller
 * without a token (loopback without auth), everything.
 *
 * @since 0.2.0
 */
export interface ScopePolicy {
  /** Narrows listings and calls to the tools the caller's scopes grant. */
  readonly middleware: Middleware
  /** Whether the caller sees a resource, resource template or prompt. */
  readonly visible: (item: CatalogItemRef, ctx: ExecutionContext) => boolean
}

/**
 * The policy of `[server.auth.scopes]`, or `undefined` when no scope is mapped.
 *
 * @since 0.2.0
 */
export const scopePolicy = (auth: AuthConfig | undefined): ScopePolicy | undefined => {
  if (!auth || Object.keys(auth.scopes).length === 0) return undefined
  const grants = new Map(
    Object.entries(auth.scopes).map(([scope, grant]) => [
      scope,
      {
        tools: grant.tools.length > 0 ? allowIds(...grant.tools) : () => false,
        prompts: grant.prompts.length > 0 ? allowIds(...grant.prompts) : () => false,
        resources: new Set(grant.resources),
      },
    ]),
  )
  const granted = (
    ctx: ExecutionContext | undefined,
    test: (grant: NonNullable<ReturnType<typeof grants.get>>) => boolean,
  ) => {
    const scopes = ctx ? callerScopes(ctx) : undefined
    if (scopes === undefined) return true
    return scopes.some((scope) => {
      const grant = grants.get(scope)
      return grant !== undefined && test(grant)
    })
  }
  const toolGranted = (ctx: ExecutionContext | undefined, id: string) =>
    granted(ctx, (grant) => grant.tools({ id } as Tool))
  const contextOf = (context: unknown): ExecutionContext | undefined =>
    context === undefined
      ? undefined
      : "callId" in (context as object)
        ? (context as ExecutionContext)
        : makeContext(context as never)
  return {
    middleware: defineMiddleware({
      listTools: async (request, next) => {
        const page = await next.listTools(request)
        const ctx = contextOf(request.context)
        return { ...page, tools: page.tools.filter((tool) => toolGranted(ctx, tool.id)) }
      },
      callTool: async (request, next) => {
        const ctx = contextOf(request.context)
        if (!toolGranted(ctx, request.name)) throw new ToolNotFound({ toolId: request.name, suggestions: [] })
        try {
          return await next.callTool(request)
        } catch (error) {
          // Suggestions name only tools this caller may call.
          if (error instanceof ToolNotFound)
            throw new ToolNotFound({
              toolId: error.toolId,
              suggestions: error.suggestions.filter((id) => toolGranted(ctx, id)),
            })
          throw error
        }
      },
    }),
    visible: (item, ctx) =>
      item.kind === "prompt"
        ? granted(ctx, (grant) => grant.prompts({ id: `${item.source}/${item.name}` } as Tool))
        : granted(ctx, (grant) => grant.resources.has("*") || grant.resources.has(item.source)),
  }
}
