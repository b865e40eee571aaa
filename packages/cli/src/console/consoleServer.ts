/**
 * The web console of `toolplane serve` (`[console] enabled = true`): a static page and a JSON API on
 * its own listener (`listen`) or under a path of the gateway's HTTP server (`path`). Without `[server.auth]` it binds loopback only and needs no token; with it, reads
 * need `read_scope` and approvals `action_scope`. Every POST needs the CSRF token of `GET api/session`,
 * an HMAC of the caller's bearer token under a per-process key.
 *
 * @since 0.1.0
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { isAbsolute, join, resolve } from "node:path"
import { type SearchableTool, Searcher, ToolIndex } from "@toolplane/discovery"
import { isPostgresStorage, openRunStore, type RunStore } from "@toolplane/durable"
import { ConfigError, listAllTools, makeContext } from "@toolplane/foundation"
import {
  CALLER_SCOPES_KEY,
  checkDnsRebinding,
  dnsRebindingPolicy,
  type HttpRoute,
  isLoopbackHost,
  type McpHttpAuth,
  type McpPendingInputs,
  mcpToolName,
} from "@toolplane/plugin-mcp"
import { loadConfig } from "../config/load.js"
import type { GatewayConfig } from "../config/schema.js"
import { httpAuthFromConfig } from "../httpAuth.js"
import type { LiveGateway, ReloadOutcome } from "../liveGateway.js"
import type { CallFeed } from "./callFeed.js"
import type { HeldApprovals } from "./heldApprovals.js"
import { maskConfig } from "./maskConfig.js"

/**
 * A running console.
 *
 * @since 0.1.0
 */
export interface ConsoleHandle {
  readonly url: string
  /** Records the result of a configuration reload (shown on the page). */
  recordReload(outcome: ReloadOutcome): void
  /**
   * Lists (and lets operators reject) the HTTP server's multi round-trip approvals waiting for their
   * client's retry.
   *
   * @since 0.2.0
   */
  useInputs(inputs: McpPendingInputs): void
  close(): Promise<void>
}

/**
 * The console without a listener of its own: its handler, to mount with {@link consoleRoute}.
 *
 * @since 0.2.0
 */
export interface ConsoleApp extends Omit<ConsoleHandle, "url"> {
  /** Serves a request; `path` is the request's path below the console's root (`/`, `/api/state`, …). */
  serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>
}

/**
 * Options of {@link startConsole} and {@link openConsole}.
 *
 * @since 0.2.0
 */
export interface ConsoleOptions {
  readonly live: LiveGateway
  readonly config: GatewayConfig
  readonly feed: CallFeed
  readonly env: NodeJS.ProcessEnv
  readonly baseDir: string
  readonly file?: string
  /** The approvals held open by `approval = "elicit"` for 2025-era clients (listed, rejectable). */
  readonly held?: HeldApprovals
}

const ASSETS: Record<string, string> = {
  "/": "index.html",
  "/console.js": "console.js",
  "/console.css": "console.css",
}
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
}

/** The assets folder: next to this module (sources) or under src/ (the bundled dist). */
const assetsDir = (): string => {
  const here = import.meta.dirname
  const candidates = [join(here, "assets"), join(here, "..", "src", "console", "assets")]
  return candidates.find((d) => existsSync(join(d, "index.html"))) ?? candidates[0]!
}

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
}

interface Caller {
  readonly clientId?: string
  /** `undefined`: no auth configured (loopback), everything allowed. */
  readonly scopes?: readonly string[]
  readonly token: string
}

/** The listener address of `[console] listen` (default `127.0.0.1:8809`). */
export const CONSOLE_LISTEN = "127.0.0.1:8809"

/**
 * Starts the console's listener.
 *
 * @since 0.1.0
 */
export const startConsole = async (options: ConsoleOptions): Promise<ConsoleHandle> => {
  const match = /^(.*):(\d{1,5})$/.exec(options.config.console.listen ?? CONSOLE_LISTEN)!
  const host = match[1]!.replace(/^\[(.*)\]$/, "$1")
  const port = Number(match[2])
  if (!options.config.server.auth && !isLoopbackHost(host))
    throw new ConfigError({
      path: "console.listen",
      reason: `${host} is not a loopback address: the console needs [server.auth] to listen there`,
      ...(options.file ? { file: options.file } : {}),
    })
  const app = await openConsole(options)
  // Host and Origin checked as on the MCP endpoint (DNS rebinding); the policy learns the bound port.
  let policy = dnsRebindingPolicy(host, {}, port || undefined)
  const server: Server = createServer((req, res) => {
    const rebound = checkDnsRebinding(req.headers, policy)
    if (rebound !== undefined) {
      res.writeHead(403, { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" })
      res.end(JSON.stringify({ error: "forbidden", description: rebound }))
      return
    }
    void app.serve(req, res, new URL(req.url ?? "/", "http://console").pathname)
  })
  await new Promise<void>((ok, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => ok())
  }).catch(async (error) => {
    await app.close()
    throw error
  })
  const address = server.address() as AddressInfo
  policy = dnsRebindingPolicy(host, {}, address.port)
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address
  return {
    url: `http://${shown}:${address.port}/`,
    recordReload: app.recordReload,
    useInputs: app.useInputs,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
      await app.close()
    },
  }
}

/**
 * The console as a route of the gateway's HTTP server (`[console] path`): `path` redirects to `path/`,
 * everything below it is the console. `serveHttp` checks `Host` and `Origin` before it; the console
 * checks the bearer token, scopes and CSRF token itself.
 *
 * @since 0.2.0
 */
export const consoleRoute = (app: ConsoleApp, path: string): HttpRoute => ({
  path,
  handle: (req, res) => {
    const url = req.url ?? "/"
    const query = url.indexOf("?")
    const below = (query < 0 ? url : url.slice(0, query)).slice(path.length)
    if (below === "") {
      res.writeHead(308, { location: `${path}/${query < 0 ? "" : url.slice(query)}`, ...SECURITY_HEADERS })
      res.end()
      return
    }
    return app.serve(req, res, below)
  },
})

/**
 * The console's handler, without a listener (see {@link startConsole} and {@link consoleRoute}).
 *
 * @since 0.2.0
 */
export const openConsole = async (options: ConsoleOptions): Promise<ConsoleApp> => {
  const { live, feed, held } = options
  const settings = options.config.console
  const naming = options.config.server.tool_names
  let inputs: McpPendingInputs | undefined
  const authConfig = options.config.server.auth
  const auth: McpHttpAuth | undefined =
    live.auth ??
    (authConfig ? httpAuthFromConfig(authConfig, options.env, options.baseDir, options.file) : undefined)
  const csrfKey = randomBytes(32)
  const csrfOf = (caller: Caller) => createHmac("sha256", csrfKey).update(caller.token).digest("base64url")
  let store: RunStore | undefined
  // The configured durable skills' store when `[console] runs` does not name another.
  const runs = settings.runs ?? (options.config.skills.length > 0 ? options.config.durable.store : undefined)
  if (runs !== undefined)
    store = await openRunStore(
      isPostgresStorage(runs) || isAbsolute(runs) ? runs : resolve(options.baseDir, runs),
    )
  let lastReload: unknown = null
  /** The configuration being served (the `[console]` and auth settings themselves apply from the start). */
  let active = options.config
  const dir = assetsDir()

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" })
    res.end(JSON.stringify(body))
  }

  /** The caller, or a response already sent (401/403). */
  const authenticate = async (
    req: IncomingMessage,
    res: ServerResponse,
    scope: string,
  ): Promise<Caller | undefined> => {
    const header = req.headers.authorization
    const token = header?.startsWith("Bearer ") ? header.slice(7).trim() : undefined
    if (!auth) return { token: token ?? "loopback" }
    const verdict = await auth.verify(token)
    if ("error" in verdict) {
      res.setHeader("www-authenticate", `Bearer error="${verdict.error}"`)
      send(res, token === undefined || verdict.error === "invalid_token" ? 401 : 403, {
        error: verdict.error,
        description: verdict.description,
      })
      return undefined
    }
    if (!verdict.scopes.includes(scope)) {
      send(res, 403, { error: "insufficient_scope", description: `the console needs the scope "${scope}"` })
      return undefined
    }
    return { clientId: verdict.clientId, scopes: verdict.scopes, token: verdict.token }
  }

  const contextOf = (caller: Caller) =>
    makeContext({
      ...(caller.clientId !== undefined ? { callerId: caller.clientId } : {}),
      ...(caller.scopes !== undefined ? { metadata: { [CALLER_SCOPES_KEY]: caller.scopes } } : {}),
    })

  /** The last errors of each backend (connection lost, failed reconnection attempts), newest last. */
  const recentErrors = new Map<string, { at: string; error: string }[]>()
  const watched = new WeakSet<object>()
  const watchBackends = () => {
    for (const [name, entry] of live.current().backends()) {
      const backend = (entry as { backend?: unknown }).backend as
        | { onStatusChange?: (listener: (status: { lastError?: string }) => void) => () => void }
        | undefined
      if (!backend || typeof backend.onStatusChange !== "function" || watched.has(backend)) continue
      watched.add(backend)
      let last: string | undefined
      backend.onStatusChange((status) => {
        if (status.lastError === undefined || status.lastError === last) return
        last = status.lastError
        const list = recentErrors.get(name) ?? []
        list.push({ at: new Date().toISOString(), error: status.lastError })
        if (list.length > 10) list.shift()
        recentErrors.set(name, list)
      })
    }
  }
  watchBackends()

  const backends = async () => {
    watchBackends()
    const gateway = live.current()
    const health = await gateway.health()
    const connected = gateway.backends()
    // Backends down since the start are not in backends() yet; health() reports them.
    const names = [...new Set([...active.backends.map((b) => b.name), ...connected.keys()])]
    return names.map((name) => {
      const backend = (connected.get(name) as { backend?: unknown } | undefined)?.backend as
        | { status?: () => Record<string, unknown> }
        | undefined
      const status = typeof backend?.status === "function" ? backend.status() : undefined
      const info = status?.serverInfo as { name?: string; version?: string } | undefined
      const h = health[name]
      return {
        name,
        healthy: h?.healthy ?? false,
        tools: h?.tools ?? 0,
        ...(h?.error !== undefined ? { reason: h.error } : {}),
        recentErrors: recentErrors.get(name) ?? [],
        ...(status
          ? {
              state: status.state,
              attempts: status.attempts,
              connections: status.connections,
              ...(status.pid !== undefined ? { pid: status.pid } : {}),
              ...(status.lastError !== undefined ? { lastError: status.lastError } : {}),
              ...(status.protocolVersion !== undefined ? { protocol: status.protocolVersion } : {}),
              ...(info ? { server: `${info.name ?? "?"} ${info.version ?? ""}`.trim() } : {}),
            }
          : { state: connected.has(name) ? "in-process" : "not connected" }),
      }
    })
  }

  const approvals = async () => {
    if (!store) return { configured: false, pending: [] }
    const runs = await store.list()
    const pending = runs.flatMap((run) =>
      run.steps
        .filter((s) => s.status === "awaiting_approval")
        .map((s) => ({
          runId: run.runId,
          skill: run.skill,
          stepId: s.stepId,
          tool: s.tool,
          arguments: s.arguments,
        })),
    )
    return { configured: true, pending }
  }

  /**
   * Approvals in flight that the caller's scopes let it see: those held for a 2025 client's answer, and
   * the 2026-07-28 requests waiting for their retry (by the tool's MCP name).
   */
  const inflight = (tools: readonly { id: string; namespace: string; name: string }[]) => {
    const visible = new Set(tools.map((t) => t.id))
    const byName = new Map(tools.map((t) => [mcpToolName(t, naming), t.id]))
    const now = Date.now()
    const rows: {
      id: string
      kind: "elicitation" | "input_required"
      tool: string
      caller: string | null
      arguments: unknown
      message?: string
      since: string
      ageMs: number
      expiresAt?: string
    }[] = []
    for (const h of held?.list() ?? [])
      if (visible.has(h.toolId))
        rows.push({
          id: `held:${h.id}`,
          kind: "elicitation",
          tool: h.toolId,
          caller: h.caller ?? null,
          arguments: h.arguments,
          since: new Date(h.since).toISOString(),
          ageMs: now - h.since,
        })
    for (const p of inputs?.list() ?? []) {
      const approval = p.inputRequests.approval
      const tool = byName.get(p.name)
      if (approval === undefined || tool === undefined) continue
      const message = (approval.params as { message?: unknown } | undefined)?.message
      rows.push({
        id: `input:${p.id}`,
        kind: "input_required",
        tool,
        caller: p.clientId ?? null,
        arguments: p.arguments,
        ...(typeof message === "string" ? { message } : {}),
        since: new Date(p.issuedAt).toISOString(),
        ageMs: now - p.issuedAt,
        expiresAt: new Date(p.expiresAt).toISOString(),
      })
    }
    return rows
  }

  const state = async (caller: Caller) => {
    const tools = await listAllTools(live.service, { context: contextOf(caller) })
    const visible = new Set(tools.map((t) => t.id))
    return {
      backends: await backends(),
      tools: tools.map((t) => ({ id: t.id, description: t.description ?? "" })),
      feed: feed.since().filter((e) => visible.has(e.tool)),
      approvals: { ...(await approvals()), inflight: inflight(tools) },
      config: maskConfig(active),
      lastReload,
      canAct: caller.scopes === undefined || caller.scopes.includes(settings.action_scope),
    }
  }

  const search = async (caller: Caller, query: string) => {
    const tools = await listAllTools(live.service, { context: contextOf(caller) })
    const index = new ToolIndex(tools as unknown as SearchableTool[])
    const searcher = new Searcher(index)
    const words = query
      .toLowerCase()
      .split(/\W+/)
      .filter((w) => w.length > 1)
    return searcher.search(query, { limit: 20 }).hits.map((hit) => {
      const tool = index.get(hit.id)!
      const fields = (
        [
          ["name", tool.name],
          ["description", tool.description ?? ""],
          ["parameters", JSON.stringify(tool.inputSchema ?? {})],
        ] as const
      )
        .filter(([, text]) => words.some((w) => text.toLowerCase().includes(w)))
        .map(([field]) => field)
      return { id: hit.id, score: Number(hit.score.toFixed(3)), fields }
    })
  }

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolveBody, reject) => {
      let text = ""
      req.setEncoding("utf8")
      req.on("data", (chunk: string) => {
        text += chunk
        if (text.length > 65_536) req.destroy(new Error("body too large"))
      })
      req.on("end", () => resolveBody(text))
      req.on("error", reject)
    })

  const csrfValid = (req: IncomingMessage, caller: Caller) => {
    const given = Buffer.from(String(req.headers["x-csrf-token"] ?? ""))
    const expected = Buffer.from(csrfOf(caller))
    return given.length === expected.length && timingSafeEqual(given, expected)
  }

  const handle = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    const url = new URL(req.url ?? "/", "http://console")
    if (req.method === "GET" && ASSETS[path] !== undefined) {
      const name = ASSETS[path]!
      res.writeHead(200, { ...SECURITY_HEADERS, "content-type": TYPES[name.split(".").pop()!]! })
      res.end(readFileSync(join(dir, name)))
      return
    }
    if (req.method === "GET" && path.startsWith("/api/")) {
      const caller = await authenticate(req, res, settings.read_scope)
      if (!caller) return
      if (path === "/api/session")
        return send(res, 200, { csrf: csrfOf(caller), client: caller.clientId ?? null })
      if (path === "/api/state") return send(res, 200, await state(caller))
      if (path === "/api/search")
        return send(res, 200, { hits: await search(caller, url.searchParams.get("q") ?? "") })
      return send(res, 404, { error: "not_found" })
    }
    const reject = /^\/api\/inflight\/([^/]{1,200})\/reject$/.exec(path)
    if (req.method === "POST" && reject) {
      const caller = await authenticate(req, res, settings.action_scope)
      if (!caller) return
      if (!csrfValid(req, caller))
        return send(res, 403, {
          error: "csrf",
          description: "missing or wrong X-CSRF-Token (GET api/session)",
        })
      // Only what this caller may see can be rejected by it.
      const tools = await listAllTools(live.service, { context: contextOf(caller) })
      let id = ""
      try {
        id = decodeURIComponent(reject[1]!)
      } catch {}
      if (!/^(held|input):[A-Za-z0-9_-]{1,64}$/.test(id)) return send(res, 400, { error: "bad_id" })
      const entry = inflight(tools).find((row) => row.id === id)
      if (entry === undefined)
        return send(res, 404, {
          error: "not_pending",
          description: "no such approval waiting here (answered, expired, or held by another replica)",
        })
      const by = caller.clientId ?? "console (loopback)"
      const done = id.startsWith("held:")
        ? (held?.reject(id.slice(5), `rejected in the console by ${by}`) ?? false)
        : (inputs?.reject(id.slice(6)) ?? false)
      if (!done) return send(res, 404, { error: "not_pending", description: "it was answered meanwhile" })
      return send(res, 200, { ok: true, id, kind: entry.kind, tool: entry.tool })
    }
    const action = /^\/api\/approvals\/([^/]+)\/([^/]+)\/(approve|reject)$/.exec(path)
    if (req.method === "POST" && action) {
      const caller = await authenticate(req, res, settings.action_scope)
      if (!caller) return
      if (!csrfValid(req, caller))
        return send(res, 403, {
          error: "csrf",
          description: "missing or wrong X-CSRF-Token (GET api/session)",
        })
      if (!store) return send(res, 404, { error: "no_run_store", description: "set [console] runs" })
      const body = await readBody(req)
      let parsed: { reason?: string } = {}
      try {
        parsed = body === "" ? {} : (JSON.parse(body) as { reason?: string })
      } catch {
        return send(res, 400, { error: "bad_json" })
      }
      const [, runId, stepId, verb] = action.map(decodeURIComponent) as [string, string, string, string]
      const by = caller.clientId ?? "console (loopback)"
      const step =
        verb === "approve"
          ? await store.approve(runId, stepId, { channel: "console" })
          : await store.reject(runId, stepId, {
              reason: parsed.reason ?? `rejected in the console by ${by}`,
              channel: "console",
            })
      return send(res, 200, { ok: true, step: { stepId: step.stepId, status: step.status } })
    }
    send(res, 404, { error: "not_found" })
  }

  return {
    serve: (req, res, path) =>
      handle(req, res, path).catch((error: unknown) => {
        if (!res.headersSent) send(res, 500, { error: "internal", description: (error as Error).message })
        else res.end()
      }),
    useInputs: (pending) => {
      inputs = pending
    },
    recordReload: (outcome) => {
      if (outcome.ok && options.file !== undefined)
        loadConfig(options.file).then(
          (config) => {
            active = config
          },
          () => {},
        )
      lastReload = outcome.ok
        ? {
            at: new Date().toISOString(),
            ok: true,
            added: outcome.added,
            removed: outcome.removed,
            changed: outcome.changed,
            tools: outcome.tools,
          }
        : {
            at: new Date().toISOString(),
            ok: false,
            error: (outcome.error as Error)?.message ?? String(outcome.error),
          }
    },
    close: async () => {
      await store?.close()
    },
  }
}
