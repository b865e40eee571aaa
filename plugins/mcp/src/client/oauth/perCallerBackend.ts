/**
 * An OAuth-protected MCP server reached with each caller's own upstream token: a call from caller X goes
 * over X's own connection, whose every request carries X's access token (from the encrypted store, filled
 * by X's one-time consent, refreshed when it expires). The caller is the one the gateway's own
 * authentication names ({@link authenticatedCaller}: the verified token's client, and user); nothing in a
 * request names it.
 *
 * One connection per caller rather than one shared connection with a per-request header: a 2025 server
 * binds its session (and its GET stream, its requests to the client) to the user who opened it, so a
 * shared session would carry several users; a stateless 2026 server costs one `server/discover` per
 * caller connection. The connections are bounded (`maxCallers`, least recently used closed first) and
 * closed after `idleMs` without calls.
 *
 * @since 0.2.0
 */
import {
  type BackendCall,
  type BackendMetadata,
  type BackendResult,
  BackendUnavailable,
  type ExecutionContext,
  isToolError,
  RateLimited,
  type Tool,
} from "@toolplane/foundation"
import { authenticatedCaller } from "../../server/callerIdentity.js"
import { type McpBackend, type McpBackendOptions, type McpBackendStatus, mcpBackend } from "../backend.js"
import type { McpHttpConfig } from "../connection.js"
import { UpstreamConsentRequired } from "./consentRequired.js"
import { loginCommand, type OAuthLoginRequired } from "./errors.js"
import type { EncryptedTokenStore } from "./tokenStore.js"
import { oauthUpstreamAuth } from "./upstreamAuth.js"

/**
 * A backend reached with each caller's own token.
 *
 * @since 0.2.0
 */
export interface PerCallerMcpBackendConfig {
  /** The backend's name and its tools' namespace. */
  readonly name: string
  readonly description?: string
  /** The MCP server (its `url` is the RFC 8707 `resource` of every token). */
  readonly http: Omit<McpHttpConfig, "auth">
  /** Where callers' tokens are kept (written by {@link authorizationCodeLogin} with `caller`). */
  readonly store: EncryptedTokenStore
  /** The client id the consents used (a pre-registered one, or as stored by dynamic registration). */
  readonly clientId?: string
  readonly clientSecret?: string
  /** The expected issuer; when set, the resource must name it. */
  readonly issuer?: string
  /** Refresh this long before expiry. Default 30 000 ms. */
  readonly refreshSkewMs?: number
  /** At most this many caller connections at once (least recently used closed first). Default 64. */
  readonly maxCallers?: number
  /** A caller connection without calls this long is closed. Default 300 000 ms. */
  readonly idleMs?: number
  /**
   * What a caller without consent is told to do. Default: run
   * `toolplane auth login <backend> --caller <id>` (a gateway that serves a consent page passes its URL here).
   */
  readonly remedy?: (caller: string) => string
}

interface CallerConnection {
  readonly caller: string
  readonly backend: McpBackend
  lastUsed: number
  inFlight: number
  /** Set when a request of this connection found no usable token (never consented, revoked, refresh failed). */
  loginRequired: OAuthLoginRequired | undefined
}

/**
 * A per-caller backend: an {@link McpBackend} that also tells how many caller connections it holds.
 *
 * @since 0.2.0
 */
export interface PerCallerMcpBackend extends McpBackend {
  /** The caller connections open now (at most `maxCallers`). */
  callerConnections(): number
}

/**
 * Creates a backend whose calls each carry their caller's own upstream token. Calls without a caller id
 * (no gateway authentication) and callers without consent fail with {@link UpstreamConsentRequired}; the
 * tool listing is the one a consented caller's connection sees (the server must list the same tools to
 * every user; what a user may do is still the server's decision, on that user's token).
 *
 * @example
 * ```ts
 * const store = new EncryptedTokenStore("toolplane.tokens", parseTokenKey(process.env.TOKEN_KEY!, "TOKEN_KEY"))
 * const crm = perCallerMcpBackend({
 *   name: "crm", http: { url: "https://crm.example.com/mcp" }, store, clientId: "toolplane",
 * })
 * ```
 * @since 0.2.0
 */
export const perCallerMcpBackend = (
  config: PerCallerMcpBackendConfig,
  options: McpBackendOptions = {},
): PerCallerMcpBackend => {
  const { name } = config
  const resource = new URL(config.http.url).href
  const maxCallers = Math.max(1, config.maxCallers ?? 64)
  const idleMs = config.idleMs ?? 300_000
  const remedy = config.remedy ?? ((caller: string) => `run \`${loginCommand(name, caller)}\``)
  const pool = new Map<string, CallerConnection>()
  const toolListeners = new Set<() => void>()
  const statusListeners = new Set<(status: McpBackendStatus) => void>()
  let tools: readonly Tool[] = []
  let signature = ""
  let listedBy: CallerConnection | undefined
  let lastError: string | undefined
  let closed = false

  const status = (): McpBackendStatus => ({
    ...(listedBy?.backend.status() ?? { attempts: 0, connections: 0 }),
    state: closed ? "closed" : tools.length > 0 || listedBy !== undefined ? "connected" : "failed",
    ...(lastError !== undefined && listedBy === undefined ? { lastError } : {}),
    name,
    kind: "mcp-http",
    tools: tools.length,
    warnings: listedBy?.backend.status().warnings ?? [],
  })
  const emitStatus = () => {
    const snapshot = status()
    for (const listener of [...statusListeners]) listener(snapshot)
  }

  const consentRequired = (caller: string | undefined, reason: string, toolId?: string) =>
    new UpstreamConsentRequired({
      backend: name,
      ...(toolId !== undefined ? { toolId } : {}),
      reason,
      remedy:
        caller === undefined
          ? "serve the gateway with authentication (`[server.auth]`) so that each call names its caller"
          : remedy(caller),
    })

  const drop = (entry: CallerConnection) => {
    if (pool.get(entry.caller) === entry) pool.delete(entry.caller)
    if (listedBy === entry) listedBy = undefined
    entry.backend.close().catch(() => {})
  }

  const sweep = setInterval(
    () => {
      const now = Date.now()
      for (const entry of [...pool.values()])
        if (entry.inFlight === 0 && now - entry.lastUsed >= idleMs) drop(entry)
    },
    Math.max(1000, Math.min(idleMs, 60_000)),
  )
  sweep.unref()

  const learnTools = async (entry: CallerConnection) => {
    const next = await entry.backend.toolSchemas()
    listedBy = entry
    lastError = undefined
    const nextSignature = JSON.stringify(next)
    if (nextSignature === signature) return
    const changed = signature !== ""
    tools = next
    signature = nextSignature
    if (changed) for (const listener of [...toolListeners]) listener()
    emitStatus()
  }

  /** The caller's own connection (made on first use; the least recently used idle one goes when full). */
  const connectionOf = (caller: string): CallerConnection => {
    const held = pool.get(caller)
    if (held !== undefined) {
      pool.delete(caller)
      pool.set(caller, held)
      return held
    }
    if (pool.size >= maxCallers) {
      const idle = [...pool.values()].find((e) => e.inFlight === 0)
      if (idle === undefined)
        throw new RateLimited({ key: `${name}: ${maxCallers} callers' connections busy`, retryAfterMs: 1000 })
      drop(idle)
    }
    const entry: CallerConnection = {
      caller,
      lastUsed: Date.now(),
      inFlight: 0,
      loginRequired: undefined,
      backend: undefined as unknown as McpBackend,
    }
    const auth = oauthUpstreamAuth({
      backend: name,
      resource,
      grant: "authorization_code",
      caller,
      store: config.store,
      ...(config.clientId !== undefined ? { clientId: config.clientId } : {}),
      ...(config.clientSecret !== undefined ? { clientSecret: config.clientSecret } : {}),
      ...(config.issuer !== undefined ? { issuer: config.issuer } : {}),
      ...(config.refreshSkewMs !== undefined ? { refreshSkewMs: config.refreshSkewMs } : {}),
      onLoginRequired: (error) => {
        entry.loginRequired = error
      },
    })
    ;(entry as { backend: McpBackend }).backend = mcpBackend(
      {
        name,
        ...(config.description !== undefined ? { description: config.description } : {}),
        http: { ...config.http, auth },
      },
      // A connection that fails is dropped and made again on the caller's next call.
      { ...options, reconnect: false },
    )
    entry.backend.onToolsChanged(() => {
      if (listedBy === entry) learnTools(entry).catch(() => {})
    })
    pool.set(caller, entry)
    return entry
  }

  /** Whether `caller` has stored tokens for this backend and resource (none read or returned). */
  const consented = async (caller: string): Promise<boolean> =>
    (await config.store.callers(name, resource)).includes(caller)

  const execute = async (call: BackendCall, ctx: ExecutionContext): Promise<BackendResult> => {
    if (closed) throw new BackendUnavailable({ backend: name, toolId: call.toolId, reason: "backend closed" })
    // The gateway's authentication names the caller (unqualified by scopes: the consent is the person's);
    // a call without one has nobody's token to use.
    const caller = authenticatedCaller(ctx)
    if (caller === undefined)
      throw consentRequired(undefined, "the call names no authenticated caller", call.toolId)
    if (!pool.has(caller) && !(await consented(caller)))
      throw consentRequired(caller, "this caller has not consented yet", call.toolId)
    const entry = connectionOf(caller)
    entry.inFlight++
    entry.lastUsed = Date.now()
    try {
      const result = await entry.backend.execute(call, ctx)
      entry.loginRequired = undefined
      if (listedBy === undefined) learnTools(entry).catch(() => {})
      return result
    } catch (error) {
      const login = entry.loginRequired
      if (login !== undefined) {
        drop(entry)
        throw consentRequired(caller, login.message.replace(/; run `[^`]*`$/, ""), call.toolId)
      }
      // A connection that went down is made again on the next call (a tool's own failure keeps it).
      if (isToolError(error) && error._tag === "BackendUnavailable") drop(entry)
      throw error
    } finally {
      entry.inFlight--
      entry.lastUsed = Date.now()
    }
  }

  /** Lists the tools through a consented caller's connection (the most recently consented first). */
  const connect = async (): Promise<void> => {
    if (listedBy !== undefined) return
    const callers = [...pool.keys(), ...[...(await config.store.callers(name, resource))].reverse()]
    for (const caller of new Set(callers)) {
      const entry = connectionOf(caller)
      try {
        await learnTools(entry)
        return
      } catch (error) {
        drop(entry)
        lastError = error instanceof Error ? error.message : String(error)
      }
    }
    lastError ??= "no caller has consented yet"
    emitStatus()
    throw new BackendUnavailable({
      backend: name,
      reason: `${lastError} (the tools are listed through a consenting caller's connection; run \`${loginCommand(name, "<caller id>")}\`)`,
    })
  }

  const ensureTools = async (): Promise<readonly Tool[]> => {
    if (listedBy === undefined && tools.length === 0) await connect()
    return tools
  }

  return {
    name,
    execute,
    toolSchemas: ensureTools,
    supportedTools: async () => (await ensureTools()).map((t) => t.id),
    metadata: (): BackendMetadata => ({
      name,
      kind: "mcp-http",
      ...(config.description !== undefined ? { description: config.description } : {}),
      transport: "streamable-http",
      perCaller: true,
    }),
    healthCheck: async () => (listedBy !== undefined ? listedBy.backend.healthCheck() : false),
    requiresApproval: async (toolId) => {
      const policy = options.requiresApproval ?? true
      if (typeof policy === "boolean") return policy
      const tool = tools.find((t) => t.id === toolId)
      return tool ? policy(tool) : true
    },
    onToolsChanged: (listener) => {
      toolListeners.add(listener)
      return () => {
        toolListeners.delete(listener)
      }
    },
    close: async () => {
      if (closed) return
      closed = true
      clearInterval(sweep)
      toolListeners.clear()
      const entries = [...pool.values()]
      pool.clear()
      listedBy = undefined
      await Promise.all(entries.map((e) => e.backend.close().catch(() => {})))
      statusListeners.clear()
    },
    connect,
    status,
    callerConnections: () => pool.size,
    onStatusChange: (listener) => {
      statusListeners.add(listener)
      return () => {
        statusListeners.delete(listener)
      }
    },
    refresh: async () => {
      if (listedBy !== undefined) await learnTools(listedBy)
      else await connect()
      return tools
    },
  }
}
