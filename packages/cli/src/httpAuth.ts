/**
 * `[server.auth]`: the bearer-token verifier of `serve --transport http`, and the per-caller policy its
 * scopes stand for (which tools, prompts and resources a token's holder sees and may call).
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { allowIds, type CatalogItemRef } from "@toolplane/compose"
import {
  ConfigError,
  defineMiddleware,
  deriveContext,
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
 * @since 0.1.0
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
 * What a caller may see and run, from its token's scopes. Without `[server.auth.scopes]` there is no
 * policy (every valid token sees everything). With it, a caller without a token (stdio, loopback without
 * auth) sees everything, a caller with a token sees what its scopes grant, and a call that names a caller
 * but carries no scopes (which only a bug could produce) is granted nothing.
 *
 * Grants name tools by the id the caller sees: an alias grants the tool it renames (and the original id
 * grants nothing while it is aliased), a composite's name grants the composite but not its targets, which
 * need grants of their own, and the meta-tools of search and code mode are tools like any other.
 *
 * @since 0.1.0
 */
export interface ScopePolicy {
  /**
   * The outermost layer: narrows listings and calls to the tools the caller's scopes grant (the
   * meta-tools of search and code mode included), and qualifies the caller id by the scopes, so that
   * whatever is cached per caller below (listings, search mode's view, code mode's declaration,
   * prefetches) is never shared between two tokens of one client that hold different scopes. (The caller
   * id already names a JWT's user as well as its client, so two users of one client are kept apart too.)
   */
  readonly middleware: Middleware
  /**
   * The same narrowing without the caller qualification, for the place right below search mode or code
   * mode: what they search, describe, declare and call is what the caller may call.
   *
   * @since 0.1.0
   */
  readonly tools: Middleware
  /**
   * The runner's check (`createRunner({ authorize })`): whether the caller may run a backend tool, by
   * the id it is served under (its alias, when it has one). Every path to a tool ends in the runner.
   *
   * @since 0.1.0
   */
  readonly authorize: (toolId: string, ctx: ExecutionContext) => boolean
  /** Whether the caller sees a resource, resource template or prompt. */
  readonly visible: (item: CatalogItemRef, ctx: ExecutionContext) => boolean
}

/**
 * Options of {@link scopePolicy}.
 *
 * @since 0.1.0
 */
export interface ScopePolicyOptions {
  /** `[aliases]` (original id → served id): the runner sees originals, grants name served ids. */
  readonly aliases?: Readonly<Record<string, string>>
}

/**
 * The policy of `[server.auth.scopes]`, or `undefined` when no scope is mapped.
 *
 * @since 0.1.0
 */
export const scopePolicy = (
  auth: AuthConfig | undefined,
  options: ScopePolicyOptions = {},
): ScopePolicy | undefined => {
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
  const servedAs = new Map(Object.entries(options.aliases ?? {}))
  const granted = (
    ctx: ExecutionContext | undefined,
    test: (grant: NonNullable<ReturnType<typeof grants.get>>) => boolean,
  ) => {
    if (ctx === undefined) return true
    const scopes = callerScopes(ctx)
    // No token: a local caller (stdio, loopback without auth). A named caller without scopes: nothing.
    if (scopes === undefined) return ctx.callerId === undefined
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
  /** The caller id qualified by the token's scopes (see `ScopePolicy.middleware`). */
  const qualified = (ctx: ExecutionContext | undefined): ExecutionContext | undefined => {
    if (ctx === undefined || ctx.callerId === undefined) return ctx
    const scopes = callerScopes(ctx)
    if (scopes === undefined) return ctx
    return deriveContext(ctx, { callerId: JSON.stringify([ctx.callerId, [...scopes].sort()]) })
  }
  const narrowing = (qualify: boolean): Middleware =>
    defineMiddleware({
      listTools: async (request, next) => {
        let ctx = contextOf(request.context)
        if (qualify) ctx = qualified(ctx)
        const page = await next.listTools(ctx === undefined ? request : { ...request, context: ctx })
        return { ...page, tools: page.tools.filter((tool) => toolGranted(ctx, tool.id)) }
      },
      callTool: async (request, next) => {
        let ctx = contextOf(request.context)
        if (qualify) ctx = qualified(ctx)
        if (!toolGranted(ctx, request.name)) throw new ToolNotFound({ toolId: request.name, suggestions: [] })
        try {
          return await next.callTool(ctx === undefined ? request : { ...request, context: ctx })
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
    })
  return {
    middleware: narrowing(true),
    tools: narrowing(false),
    authorize: (toolId, ctx) => toolGranted(ctx, servedAs.get(toolId) ?? toolId),
    visible: (item, ctx) =>
      item.kind === "prompt"
        ? granted(ctx, (grant) => grant.prompts({ id: `${item.source}/${item.name}` } as Tool))
        : granted(ctx, (grant) => grant.resources.has("*") || grant.resources.has(item.source)),
  }
}
