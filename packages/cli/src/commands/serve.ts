/**
 * `toolplane serve`: serves the composed gateway over MCP (stdio or Streamable HTTP) until interrupted
 * (SIGINT/SIGTERM) or, on stdio, until the client closes the stream.
 *
 * @since 0.1.0
 */
import { type FSWatcher, watch as watchFs } from "node:fs"
import { basename, dirname } from "node:path"
import { ConfigError, listAllTools } from "@toolplane/foundation"
import type { serveHttp } from "@toolplane/plugin-mcp"
import { type CommandContext, defineCommand, EXIT, UsageError } from "../command.js"
import { loadConfig } from "../config/load.js"
import type { GatewayConfig } from "../config/schema.js"
import { callFeed } from "../console/callFeed.js"
import {
  type ConsoleApp,
  type ConsoleHandle,
  consoleRoute,
  openConsole,
  startConsole,
} from "../console/consoleServer.js"
import { heldApprovals } from "../console/heldApprovals.js"
import type { OpenGatewayOptions } from "../gateway.js"
import type { LiveGateway, ReloadOutcome } from "../liveGateway.js"
import { createLogger, LOG_LEVELS, type Logger, type LogLevel } from "../ops/logger.js"
import { listenMetrics, metricsRoute } from "../ops/metricsEndpoint.js"
import { openServeOperations, type ServeOperations } from "../ops/serveOperations.js"
import type { PinStore } from "../pinStore.js"
import type { ClosableReplicaBus } from "../postgresBus.js"

/**
 * Reloads the configuration when its file changes (debounced) or on SIGHUP; prints what changed, or
 * why the new configuration was rejected. Returns a function that stops watching.
 */
const watchConfig = (
  ctx: CommandContext,
  live: LiveGateway,
  pins: PinStore,
  ops: ServeOperations,
  log: Logger,
  onReload?: (outcome: ReloadOutcome) => void,
): (() => void) => {
  const file = ctx.file
  const reload = (why: string) => {
    live
      .reload(() => loadConfig(file))
      .then((outcome) => {
        onReload?.(outcome)
        ops.operations.reloaded(file, why, outcome)
      })
  }
  let timer: ReturnType<typeof setTimeout> | undefined
  let watcher: FSWatcher | undefined
  try {
    // The directory, not the file: editors replace files (a rename), which ends a watch on the file.
    watcher = watchFs(dirname(file), (_event, name) => {
      if (name !== null && name !== basename(file)) return
      clearTimeout(timer)
      timer = setTimeout(() => reload("file changed"), 150)
    })
    watcher.on("error", () => {})
  } catch {
    log.warn("config.watch_failed", { file, msg: `warning: cannot watch ${file}; reload with SIGHUP` })
  }
  const onHup = () => reload("SIGHUP")
  process.on("SIGHUP", onHup)
  // An accepted pin (toolplane lock --accept) reloads: held tools and the aliases that need them return.
  const stopWatchingLock = pins.watch(() => reload("lock file changed"))
  return () => {
    stopWatchingLock()
    clearTimeout(timer)
    watcher?.close()
    process.off("SIGHUP", onHup)
  }
}

/**
 * Resolves with the first SIGINT/SIGTERM. The handlers stay installed until the process exits: Ctrl+C
 * under `pnpm start` delivers SIGINT several times (the terminal's process group, then relays by pnpm
 * and tsx), and a repeat arriving during the shutdown must not kill the process by signal (which pnpm
 * reports as a failed command). A third signal forces the exit.
 */
/** `server.held_calls` as `serveHttp`'s `heldCalls`. */
const heldCallOptions = (held: NonNullable<GatewayConfig["server"]["held_calls"]>) => ({
  ...(held.timeout_ms !== undefined ? { timeoutMs: held.timeout_ms } : {}),
  ...(held.max_per_caller !== undefined ? { maxPerCaller: held.max_per_caller } : {}),
  ...(held.max !== undefined ? { max: held.max } : {}),
  ...(held.forward_timeout_ms !== undefined ? { forwardTimeoutMs: held.forward_timeout_ms } : {}),
})

const untilSignal = (): Promise<string> =>
  new Promise((resolve) => {
    let received = 0
    const onSignal = (signal: string) => {
      received++
      if (received === 1) resolve(signal)
      else if (received >= 3) process.exit(130)
    }
    process.on("SIGINT", onSignal)
    process.on("SIGTERM", onSignal)
  })

/** @since 0.1.0 */
export const serveCommand = defineCommand({
  name: "serve",
  summary:
    "serve the configured gateway over MCP\n[--transport stdio|http] [--host 127.0.0.1] [--port N] [--http-transport raw|node|sdk] [--require-all-backends]\n[--log-format text|json] [--log-level debug|info|warn|error] [--log-calls]",
  maxPositionals: 0,
  flags: {
    transport: "string",
    host: "string",
    port: "string",
    "http-transport": "string",
    "require-all-backends": "boolean",
    "log-format": "string",
    "log-level": "string",
    "log-calls": "boolean",
  },
  flagHelp: {
    transport: "stdio|http  how clients connect (default: server.transport, else stdio)",
    host: "HOST  address to listen on over http (default 127.0.0.1)",
    port: "N  port to listen on over http (default 8808; 0 picks a free one)",
    "http-transport": "raw|node|sdk  the Streamable HTTP implementation (default raw)",
    "require-all-backends": "fail the start when a backend cannot connect (default: serve without it)",
  },
  examples: [
    "serve                                   # stdio, for an MCP client that spawns the gateway",
    "serve --transport http --port 8808      # Streamable HTTP at http://127.0.0.1:8808/mcp",
    "serve -c ./gateway.toml --require-all-backends",
  ],
  run: async (ctx) => {
    // Loaded when serving, so other commands (and --help) do not load the servers and the replica bus.
    const [
      { isLoopbackHost, serveHttp, serveStdio, upstreamTasksOf },
      { openGateway },
      { liveGateway },
      { postgresReplicaBus },
      { pinStore },
    ] = await Promise.all([
      import("@toolplane/plugin-mcp"),
      import("../gateway.js"),
      import("../liveGateway.js"),
      import("../postgresBus.js"),
      import("../pinStore.js"),
    ])
    const { values } = ctx.invocation
    const transport = values.transport ?? ctx.config.server.transport
    if (transport !== "stdio" && transport !== "http")
      throw new UsageError(`--transport must be "stdio" or "http", got "${transport}"`)
    const host = values.host ?? ctx.config.server.host
    const port =
      values.port === undefined
        ? ctx.config.server.port
        : /^\d{1,5}$/.test(values.port)
          ? Number(values.port)
          : -1
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`--port must be an integer from 0 to 65535, got "${values.port}"`)
    const httpTransport = values["http-transport"] ?? ctx.config.server.http_transport
    if (httpTransport !== "raw" && httpTransport !== "node" && httpTransport !== "sdk")
      throw new UsageError(`--http-transport must be "raw", "node" or "sdk", got "${httpTransport}"`)
    if (ctx.invocation.positionals.length > 0)
      throw new UsageError(`unexpected argument "${ctx.invocation.positionals[0]}"`)
    const logFormat = values["log-format"] ?? ctx.config.log.format
    if (logFormat !== "text" && logFormat !== "json")
      throw new UsageError(`--log-format must be "text" or "json", got "${logFormat}"`)
    const logLevel = values["log-level"] ?? ctx.config.log.level
    if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
      throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`)
    const log = createLogger({ format: logFormat, level: logLevel as LogLevel, write: ctx.io.stderr })

    // The console lists (and may reject) approvals held open for 2025-era clients.
    const held = ctx.config.console.enabled ? heldApprovals() : undefined
    const consolePath = ctx.config.console.enabled ? ctx.config.console.path : undefined
    if (consolePath !== undefined && ctx.config.console.listen !== undefined)
      throw new ConfigError({ path: "console", reason: "set listen or path, not both", file: ctx.file })
    if (consolePath !== undefined && transport !== "http")
      throw new ConfigError({
        path: "console.path",
        reason: `the console can be mounted on the HTTP server only (transport is ${transport}): set console.listen instead`,
        file: ctx.file,
      })
    const authConfig = ctx.config.server.auth
    if (transport === "http" && !authConfig && !isLoopbackHost(host))
      throw new ConfigError({
        path: "server.auth",
        reason: `refusing to serve ${host} (not a loopback address) without authentication: add [server.auth] with tokens = [{ env = "TOOLPLANE_TOKEN", client = "me" }] (static bearer tokens) or jwks_url / jwks_file + issuer + audience (OAuth JWT validation), or bind 127.0.0.1`,
        file: ctx.file,
      })
    const baseDir = dirname(ctx.file)
    const ops = await openServeOperations(ctx.config, {
      log,
      logCalls: values["log-calls"] === true || ctx.config.log.calls,
      env: ctx.io.env,
      baseDir,
      file: ctx.file,
    })
    const reconnect = values["require-all-backends"] !== true
    const pins = pinStore({ record: true })
    const openWith = (config: GatewayConfig, extra: Partial<OpenGatewayOptions>) =>
      openGateway(config, {
        file: ctx.file,
        baseDir,
        env: ctx.io.env,
        onEvent: ops.operations.onEvent,
        ...(ops.observesCalls || held
          ? {
              observer: held
                ? held.observe(ops.observesCalls ? ops.operations.observer : undefined)
                : ops.operations.observer,
            }
          : {}),
        warnRandomCursorKey: true,
        singleClient: transport === "stdio",
        // A backend down at start is served without (and reconnected) unless --require-all-backends.
        reconnect,
        pins,
        resumeRuns: true,
        ...(config.limits.connect_timeout_ms !== undefined
          ? { connectTimeoutMs: config.limits.connect_timeout_ms }
          : {}),
        ...(config.limits.reconnect_max_delay_ms !== undefined
          ? { reconnectDelayMs: { max: config.limits.reconnect_max_delay_ms } }
          : {}),
        ...extra,
      })
    let live: LiveGateway
    try {
      live = await liveGateway(ctx.config, {
        open: openWith,
        transport,
        env: ctx.io.env,
        baseDir,
        file: ctx.file,
      })
    } catch (error) {
      await ops.close()
      throw error
    }
    const observed = ops.observesCalls ? ops.operations.service(live.service) : live.service
    // The web console's live call feed (its own listener; loopback unless [server.auth]).
    const feed = ctx.config.console.enabled ? callFeed() : undefined
    const service = feed ? feed.wrap(observed) : observed
    const auth = live.auth ? ops.operations.auth(live.auth) : undefined
    let webConsole: ConsoleHandle | undefined
    /** The console mounted at `[console] path` of the HTTP server. */
    let mountedConsole: ConsoleApp | undefined
    if (feed) {
      try {
        const consoleOptions = {
          live,
          config: ctx.config,
          feed,
          env: ctx.io.env,
          baseDir,
          file: ctx.file,
          ...(held ? { held } : {}),
        }
        if (consolePath !== undefined) mountedConsole = await openConsole(consoleOptions)
        else webConsole = await startConsole(consoleOptions)
      } catch (error) {
        await live.close()
        await ops.close()
        throw error
      }
      if (webConsole)
        log.info("console.listening", { url: webConsole.url, msg: `web console at ${webConsole.url}` })
    }
    ops.metrics?.prefetchSource(() => live.current().runner.prefetch?.stats())
    let metricsListener: Awaited<ReturnType<typeof listenMetrics>> | undefined
    const serverInfo = { name: ctx.config.server.name, version: "0.1.0" }
    const watch = (notify: () => void) => live.watch(notify)
    const naming = ctx.config.server.tool_names
    const cache = ctx.config.server.cache
    const cacheHints = cache
      ? { listTtlMs: cache.list_ttl_ms, readTtlMs: cache.read_ttl_ms, scope: cache.cache_scope }
      : undefined
    // Tasks of MCP backends relayed to modern clients, routed by backend name to the current gateway's.
    const upstreamTasks = (name: string) => {
      const backend = live.current().backends().get(name)?.backend
      return backend === undefined ? undefined : upstreamTasksOf(backend)
    }
    // Tasks of durable skills answered from the run store on any replica (loaded only with skills).
    const taskSources =
      ctx.config.skills.length > 0
        ? [(await import("../durableTaskSource.js")).durableTaskSource(() => live.current().durable)]
        : []
    const stopReloading = watchConfig(ctx, live, pins, ops, log, (webConsole ?? mountedConsole)?.recordReload)
    try {
      const metricsConfig = ctx.config.metrics
      if (ops.metrics && metricsConfig?.listen !== undefined) {
        try {
          metricsListener = await listenMetrics(ops.metrics.registry, metricsConfig.listen)
        } catch (error) {
          throw new UsageError(
            `cannot listen for metrics on ${metricsConfig.listen}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message} (set metrics.listen in ${ctx.file})`,
          )
        }
        log.info("metrics.listening", { url: metricsListener.url, msg: `metrics at ${metricsListener.url}` })
      }
      const count = (await listAllTools(live.current().service)).length
      if (transport === "stdio") {
        const handle = await serveStdio(service, {
          serverInfo,
          watch,
          naming,
          catalog: live.catalog,
          ...(cacheHints ? { cacheHints } : {}),
          upstreamTasks,
          taskSources,
        })
        log.info("gateway.start", {
          transport,
          tools: count,
          msg: `serving ${count} tools over stdio (MCP); waiting for a client on stdin`,
        })
        const ended = await Promise.race([handle.closed.then(() => "stdin closed"), untilSignal()])
        log.info("gateway.shutdown", { reason: ended, msg: `${ended}, shutting down` })
        await handle.close()
      } else {
        const server = ctx.config.server
        const sessionSecret = ctx.io.env[ctx.config.cursor.secret_env]
        let bus: ClosableReplicaBus | undefined
        if (server.replicas) {
          if (httpTransport === "sdk")
            throw new ConfigError({
              path: "server.replicas",
              reason:
                'replicas need http_transport = "raw" or "node" (the SDK transport keeps sessions in one process)',
              file: ctx.file,
            })
          if (sessionSecret === undefined)
            throw new ConfigError({
              path: "server.replicas",
              reason: `replicas sign session ids with the cursor secret: set ${ctx.config.cursor.secret_env} (the same value on every replica)`,
              file: ctx.file,
            })
          const url = ctx.io.env[server.replicas.url_env]
          if (url === undefined)
            throw new ConfigError({
              path: "server.replicas.url_env",
              reason: `${server.replicas.url_env} is not set (the PostgreSQL connection string of the replica bus)`,
              file: ctx.file,
            })
          bus = await postgresReplicaBus({
            connectionString: url,
            channel: server.replicas.channel,
            onError: (error) => {
              const message = error instanceof Error ? error.message : String(error)
              log.error("replica_bus.error", { error: message, msg: `replica bus: ${message}` })
            },
          })
        }
        let handle: Awaited<ReturnType<typeof serveHttp>>
        try {
          handle = await serveHttp(service, {
            transport: httpTransport,
            ...(sessionSecret !== undefined ? { sessionSecret } : {}),
            ...(server.session_idle_ms !== undefined ? { sessionIdleMs: server.session_idle_ms } : {}),
            ...(server.session_max_age_ms !== undefined
              ? { sessionMaxAgeMs: server.session_max_age_ms }
              : {}),
            ...(bus ? { bus } : {}),
            ...(server.held_calls ? { heldCalls: heldCallOptions(server.held_calls) } : {}),
            serverInfo,
            watch,
            naming,
            host,
            port,
            catalog: live.catalog,
            ...(auth ? { auth } : {}),
            ...(cacheHints ? { cacheHints } : {}),
            routes: [
              ...(ops.metrics && metricsConfig?.path !== undefined
                ? [metricsRoute(metricsConfig.path, ops.metrics.registry, auth)]
                : []),
              ...(mountedConsole && consolePath !== undefined
                ? [consoleRoute(mountedConsole, consolePath)]
                : []),
            ],
            upstreamTasks,
            taskSources,
          })
        } catch (error) {
          await bus?.close()
          // A route refused by serveHttp (over the endpoint, or twice) is named by its configuration key.
          const route = error instanceof ConfigError ? /^routes\[\d+\]\.path$/.exec(error.path) : null
          if (route && error instanceof ConfigError)
            throw new ConfigError({
              path:
                consolePath !== undefined && error.reason.startsWith(`${consolePath} `)
                  ? "console.path"
                  : "metrics.path",
              reason: error.reason,
              file: ctx.file,
            })
          const code = (error as NodeJS.ErrnoException).code
          if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
            throw new UsageError(
              `cannot listen on ${host}:${port}: ${code === "EADDRINUSE" ? "address already in use" : code === "EACCES" ? "permission denied" : "no such address"} (set server.host / server.port in ${ctx.file}, or --host / --port)`,
            )
          throw error
        }
        const url = /^(0\.0\.0\.0|::|\[::\])$/.test(host)
          ? handle.url.replace(/\/\/[^/]+/, `//127.0.0.1:${handle.port}`)
          : handle.url
        ;(webConsole ?? mountedConsole)?.useInputs(handle.pendingInputs)
        if (mountedConsole && consolePath !== undefined) {
          const at = new URL(`${consolePath}/`, url).href
          log.info("console.mounted", { url: at, msg: `web console at ${at}` })
        }
        if (ops.metrics && metricsConfig?.path !== undefined) {
          log.info("metrics.mounted", {
            url: new URL(metricsConfig.path, url).href,
            msg: `metrics at ${new URL(metricsConfig.path, url).href}${auth ? " (bearer token required)" : ""}`,
          })
        }
        log.info("gateway.start", {
          transport,
          tools: count,
          url,
          msg: `serving ${count} tools over MCP Streamable HTTP at ${url}${url === handle.url ? "" : ` (bound to all interfaces on ${host})`}`,
        })
        if (log.format === "text")
          ctx.io.stderr(
            [
              "toolplane: connect a client, for example:",
              `  npx @modelcontextprotocol/inspector --transport http --server-url ${url}`,
              `  or in code: new StreamableHTTPClientTransport(new URL("${url}"))`,
              "toolplane: press Ctrl+C to stop",
              "",
            ].join("\n"),
          )
        const signal = await untilSignal()
        log.info("gateway.shutdown", { reason: signal, msg: `${signal} received, shutting down` })
        await handle.close()
        await bus?.close()
      }
      return EXIT.ok
    } finally {
      stopReloading()
      await webConsole?.close()
      await mountedConsole?.close()
      await metricsListener?.close()
      await live.close()
      await pins.flush()
      await ops.close()
    }
  },
})
