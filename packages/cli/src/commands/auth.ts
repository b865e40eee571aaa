/**
 * `toolplane auth login <backend>`: the one-time browser consent of a backend's service identity (OAuth
 * authorization code with PKCE on a loopback redirect). Prints the URL to open, waits for the redirect,
 * and stores the tokens encrypted beside the configuration. Tokens are never printed. For a backend with
 * `mode = "per_caller"`, `--caller ID` stores the consent as that gateway caller's own (the caller id the
 * gateway's authentication gives: a static token's client id, or `["client","sub"]` for a JWT user).
 *
 * `toolplane auth logout <backend>` revokes the stored tokens at their issuer (RFC 7009) and deletes them;
 * `--local-only` deletes them even when the revocation fails.
 *
 * @since 0.1.0
 */
import { dirname } from "node:path"
import {
  authorizationCodeLogin,
  type OAuthLogoutOutcome,
  OAuthRevocationFailed,
  OAuthUpstreamError,
  oauthLogout,
} from "@toolplane/plugin-mcp"
import { defineCommand, EXIT, UsageError } from "../command.js"
import { didYouMean } from "../didYouMean.js"
import { json } from "../output.js"
import { upstreamClientSecret, upstreamTokenStore } from "../upstreamAuth.js"

const ACTIONS = ["login", "logout"] as const

const who = (name: string, caller: string | undefined): string =>
  `"${name}"${caller !== undefined ? ` as caller ${JSON.stringify(caller)}` : ""}`

/** One line per credential a logout removed. */
const logoutLine = (outcome: OAuthLogoutOutcome, subject: string, store: string): string =>
  outcome.status === "revoked"
    ? `Revoked the tokens of ${subject} at ${outcome.issuer} (${outcome.revoked.map((t) => t.replace("_", " ")).join(", ")}) and removed them from ${store}.\n`
    : `Removed the tokens of ${subject} from ${store} locally only: ${outcome.issuer} offers no revocation endpoint, so they stay valid there until they expire.\n`

/** @since 0.1.0 */
export const authCommand = defineCommand({
  name: "auth",
  synopsis: "login|logout BACKEND [--caller ID]",
  summary:
    "sign the gateway in to, or out of, an OAuth-protected MCP backend [--port N] [--local-only] [--json]\nlogin: browser consent (authorization code + PKCE); logout: RFC 7009 revocation, then the stored tokens deleted",
  maxPositionals: 2,
  flags: { port: "string", caller: "string", "local-only": "boolean", json: "boolean" },
  flagHelp: {
    port: "N  login: the loopback port of the redirect (default: any free port)",
    caller: "ID  a per_caller backend: the gateway caller who consents (login) or is signed out (logout)",
    "local-only":
      "logout: remove the stored tokens even when revoking them at the issuer fails (they stay valid there until they expire)",
    json: "logout: print { ok, backend, credentials } (or the error) as JSON",
  },
  examples: [
    "auth login crm",
    "auth login crm --caller alice-app",
    "auth logout crm",
    "auth logout crm --local-only --json",
  ],
  run: async (ctx) => {
    const [action, name] = ctx.invocation.positionals
    if (action === undefined || !(ACTIONS as readonly string[]).includes(action))
      throw new UsageError(
        action === undefined
          ? "usage: toolplane auth login|logout BACKEND"
          : `unknown action "${action}" (login or logout)${didYouMean(action, ACTIONS)}`,
      )
    if (name === undefined) throw new UsageError(`usage: toolplane auth ${action} BACKEND`)
    const index = ctx.config.backends.findIndex((b) => b.name === name)
    const backend = ctx.config.backends[index]
    if (backend === undefined)
      throw new UsageError(
        `"${name}" is not a configured backend${didYouMean(
          name,
          ctx.config.backends.map((b) => b.name),
        )}`,
      )
    const auth = backend.auth
    if (auth === undefined || backend.mcp === undefined || "command" in backend.mcp)
      throw new UsageError(`backend "${name}" has no OAuth "auth"`)
    if (auth.grant !== "authorization_code")
      throw new UsageError(
        `backend "${name}" uses the ${auth.grant} grant: there is nothing to log ${action === "login" ? "in to" : "out of"} (its tokens live only in the gateway's memory)`,
      )
    const caller = ctx.invocation.values.caller as string | undefined
    if (auth.mode === "per_caller" && (caller === undefined || caller === ""))
      throw new UsageError(
        `backend "${name}" uses each caller's own token: name the caller with --caller ID (the id the gateway's authentication gives)`,
      )
    if (auth.mode !== "per_caller" && caller !== undefined)
      throw new UsageError(
        `backend "${name}" has one service identity: --caller applies to mode = "per_caller"`,
      )
    const values = ctx.invocation.values
    const misplaced = (action === "login" ? (["local-only", "json"] as const) : (["port"] as const)).find(
      (flag) => values[flag] !== undefined,
    )
    if (misplaced !== undefined)
      throw new UsageError(`--${misplaced} applies to auth ${action === "login" ? "logout" : "login"}`)
    if (action === "logout") {
      const store = upstreamTokenStore(auth, index, dirname(ctx.file), ctx.io.env)
      const secret = upstreamClientSecret(auth, index, ctx.io.env)
      const subject = who(name, caller)
      const asJson = values.json === true
      try {
        const result = await oauthLogout({
          backend: name,
          ...(caller !== undefined ? { caller } : {}),
          store,
          ...(secret !== undefined ? { clientSecret: secret } : {}),
          localOnly: values["local-only"] === true,
        })
        if (asJson) ctx.io.stdout(json({ ok: true, ...result, store: store.path }))
        else if (result.credentials.length === 0)
          ctx.io.stdout(`No tokens stored for ${subject} in ${store.path}: nothing to sign out.\n`)
        else for (const outcome of result.credentials) ctx.io.stdout(logoutLine(outcome, subject, store.path))
        return EXIT.ok
      } catch (error) {
        if (!(error instanceof OAuthUpstreamError)) throw error
        const detail =
          error instanceof OAuthRevocationFailed
            ? {
                issuer: error.issuer,
                ...(error.endpoint !== undefined ? { endpoint: error.endpoint } : {}),
                ...(error.status !== undefined ? { status: error.status } : {}),
                revoked: error.revoked,
                removedLocally: error.removedLocally,
              }
            : {}
        if (asJson)
          ctx.io.stdout(
            json({
              ok: false,
              backend: name,
              ...(caller !== undefined ? { caller } : {}),
              store: store.path,
              error: { type: error.name, message: error.message, ...detail },
            }),
          )
        ctx.io.stderr(`toolplane: ${error.name}: ${error.message}\n`)
        return EXIT.toolError
      }
    }
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
