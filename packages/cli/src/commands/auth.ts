/**
 * `toolplane auth login <backend>`: the one-time browser consent of a backend's service identity (OAuth
 * authorization code with PKCE on a loopback redirect). Prints the URL to open, waits for the redirect,
 * and stores the tokens encrypted beside the configuration. Tokens are never printed. For a backend with
 * `mode = "per_caller"`, `--caller ID` stores the consent as that gateway caller's own (the caller id the
 * gateway's authentication gives: a static token's client id, or `["client","sub"]` for a JWT user).
 *
 * @since 0.1.0
 */
import { dirname } from "node:path"
import { authorizationCodeLogin } from "@toolplane/plugin-mcp"
import { defineCommand, EXIT, UsageError } from "../command.js"
import { upstreamClientSecret, upstreamTokenStore } from "../upstreamAuth.js"

/** @since 0.1.0 */
export const authCommand = defineCommand({
  name: "auth",
  synopsis: "login BACKEND [--caller ID]",
  summary:
    "sign the gateway in to an OAuth-protected MCP backend (authorization code + PKCE)\n--port N: the loopback port of the redirect (default: any free port)\n--caller ID: a per_caller backend: consent as this gateway caller (their own upstream token)",
  maxPositionals: 2,
  flags: { port: "string", caller: "string" },
  run: async (ctx) => {
    const [action, name] = ctx.invocation.positionals
    if (action !== "login" || name === undefined) throw new UsageError("usage: toolplane auth login BACKEND")
    const index = ctx.config.backends.findIndex((b) => b.name === name)
    const backend = ctx.config.backends[index]
    if (backend === undefined) throw new UsageError(`"${name}" is not a configured backend`)
    const auth = backend.auth
    if (auth === undefined || backend.mcp === undefined || "command" in backend.mcp)
      throw new UsageError(`backend "${name}" has no OAuth "auth"`)
    if (auth.grant !== "authorization_code")
      throw new UsageError(`backend "${name}" uses the ${auth.grant} grant: there is nothing to log in to`)
    const caller = ctx.invocation.values.caller as string | undefined
    if (auth.mode === "per_caller" && (caller === undefined || caller === ""))
      throw new UsageError(
        `backend "${name}" uses each caller's own token: name the caller with --caller ID (the id the gateway's authentication gives)`,
      )
    if (auth.mode !== "per_caller" && caller !== undefined)
      throw new UsageError(
        `backend "${name}" has one service identity: --caller applies to mode = "per_caller"`,
      )
    const port = ctx.invocation.values.port === undefined ? 0 : Number(ctx.invocation.values.port)
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError("--port must be a port number")
    const store = upstreamTokenStore(auth, index, dirname(ctx.file), ctx.io.env)
    const secret = upstreamClientSecret(auth, index, ctx.io.env)
    const tokens = await authorizationCodeLogin({
      backend: name,
      ...(caller !== undefined ? { caller } : {}),
      resource: backend.mcp.url,
      store,
      ...(auth.client_id !== undefined ? { clientId: auth.client_id } : {}),
      ...(secret !== undefined ? { clientSecret: secret } : {}),
      scopes: auth.scopes,
      ...(auth.issuer !== undefined ? { issuer: auth.issuer } : {}),
      port,
      onAuthorizationUrl: (url) =>
        ctx.io.stdout(
          `Open this URL in a browser to authorize the gateway for "${name}"${caller !== undefined ? ` as caller ${JSON.stringify(caller)}` : ""}:\n\n  ${url.href}\n\n`,
        ),
    })
    ctx.io.stdout(
      `Signed in to ${tokens.issuer} for "${name}"${caller !== undefined ? ` as caller ${JSON.stringify(caller)}` : ""}; tokens stored encrypted in ${store.path}${
        tokens.expiresAt !== undefined
          ? ` (access token valid until ${new Date(tokens.expiresAt).toISOString()})`
          : ""
      }.\n`,
    )
    return EXIT.ok
  },
})
