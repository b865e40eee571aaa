/**
 * `toolplane serve`: serves the composed gateway over MCP (stdio or Streamable HTTP) until interrupted
 * (SIGINT/SIGTERM) or, on stdio, until the client closes the stream.
 *
 * @since 0.1.0
 */
import { type FSWatcher, watch as watchFs } from "node:fs"
import { basename, dirname } from "node:path"
import { ConfigError, listAllTools } from "@toolplane/foundation"
import { isLoopbackHost, serveHttp, serveStdio } from "@toolplane/plugin-mcp"
import { type CommandContext, defineCommand, EXIT, UsageError } from "../command.js"
import { loadConfig } from "../config/load.js"
import type { GatewayConfig } from "../config/schema.js"
import { callFeed } from "../console/callFeed.js"
import { type ConsoleHandle, startConsole } from "../console/consoleServer.js"
import { type OpenGatewayOptions, openGateway } from "../gateway.js"
import { type LiveGateway, liveGateway, type ReloadOutcome } from "../liveGateway.js"
import { type PinStore, pinStore } from "../pinStore.js"
import { type ClosableReplicaBus, postgresReplicaBus } from "../postgresBus.js"
import { progressPrinter } from "./shared.js"

/**
 * Reloads the configuration when its file changes (debounced) or on SIGHUP; prints what changed, or
 * why the new configuration was rejected. Returns a function that stops watching.
 */
const watchConfig = (
  ctx: CommandContext,
  live: LiveGateway,
  pins: PinStore,
  onReload?: (outcome: ReloadOutcome) => void,
): (() => void) => {
  const file = ctx.file
  const reload = (why: string) => {
    live
      .reload(() => loadConfig(file))
      .then((outcome) => {
        onReload?.(outcome)
        if (!outcome.ok) {
          const error = outcome.error as Error
          const text = error instanceof ConfigError ? `configuration error: ${error.message}` : error.message
          ctx.io.stderr(
            `toolplane: reload (${why}) rejected, still serving the previous configuration: ${text}\n`,
          )
          return
        }
        const parts = [
          outcome.added.length > 0 ? `added ${outcome.added.join(", ")}` : "",
          outcome.removed.length > 0 ? `removed ${outcome.removed.join(", ")}` : "",
          outcome.changed.length > 0 ? `changed ${outcome.changed.join(", ")}` : "",
        ].filter(Boolean)
        ctx.io.stderr(
          `toolplane: reloaded ${file} (${why}): ${parts.length > 0 ? parts.join("; ") : "backends unchanged"}; serving ${outcome.tools} tools\n`,
        )
        if (outcome.restartNeeded.length > 0)
          ctx.io.stderr(
            `toolplane: warning: ${outcome.restartNeeded.join(", ")} changed; takes effect after a restart\n`,
          )
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
    ctx.io.stderr(`toolplane: warning: cannot watch ${file}; reload with SIGHUP\n`)
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
    "serve the configured gateway over MCP\n[--transport stdio|http] [--host 127.0.0.1] [--port N] [--http-transport raw|node|sdk] [--require-all-backends]",
  maxPositionals: 0,
  flags: {
    transport: "string",
    host: "string",
    port: "string",
    "http-transport": "string",
    "require-all-backends": "boolean",
  },
  run: async (ctx) => {
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

    const authConfig = ctx.config.server.auth
    if (transport === "http" && !authConfig && !isLoopbackHost(host))
      throw new ConfigError({
        path: "server.auth",
        reason: `refusing to serve ${host} (not a loopback address) without authentication: add [server.auth] with tokens = [{ env = "TOOLPLANE_TOKEN", client = "me" }] (static bearer tokens) or jwks_url / jwks_file + issuer + audience (OAuth JWT validation), or bind 127.0.0.1`,
        file: ctx.file,
      })
    const baseDir = dirname(ctx.file)
    const reconnect = values["require-all-backends"] !== true
    const pins = pinStore({ record: true })
    const openWith = (config: GatewayConfig, extra: Partial<OpenGatewayOptions>) =>
      openGateway(config, {
        file: ctx.file,
        baseDir,
        env: ctx.io.env,
        onEvent: progressPrinter(ctx.io),
        warnRandomCursorKey: true,
        singleClient: transport === "stdio",
        // A backend down at start is served without (and reconnected) unless --require-all-backends.
        reconnect,
        pins,
        ...(config.limits.connect_timeout_ms !== undefined
          ? { connectTimeoutMs: config.limits.connect_timeout_ms }
          : {}),
        ...(config.limits.reconnect_max_delay_ms !== undefined
          ? { reconnectDelayMs: { max: config.limits.reconnect_max_delay_ms } }
          : {}),
        ...extra,
      })
    const live = await liveGateway(ctx.config, {
      open: openWith,
      transport,
      env: ctx.io.env,
      baseDir,
      file: ctx.file,
    })
    const { auth } = live
    const feed = ctx.config.console.enabled ? callFeed() : undefined
    const service = feed ? feed.wrap(live.service) : live.service
    let webConsole: ConsoleHandle | undefined
    if (feed) {
      try {
        webConsole = await startConsole({
          live,
          config: ctx.config,
          feed,
          env: ctx.io.env,
          baseDir,
          file: ctx.file,
        })
      } catch (error) {
        await live.close()
        throw error
      }
      ctx.io.stderr(`toolplane: web console at ${webConsole.url}\n`)
    }
    const serverInfo = { name: ctx.config.server.name, version: "0.1.0" }
    const watch = (notify: () => void) => live.watch(notify)
    const naming = ctx.config.server.tool_names
    const stopReloading = watchConfig(ctx, live, pins, webConsole?.recordReload)
    try {
      const count = (await listAllTools(live.current().service)).length
      if (transport === "stdio") {
        const handle = await serveStdio(service, {
          serverInfo,
          watch,
          naming,
          catalog: live.catalog,
        })
        ctx.io.stderr(`toolplane: serving ${count} tools over stdio (MCP); waiting for a client on stdin\n`)
        await Promise.race([handle.closed, untilSignal()])
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
            onError: (error) =>
              ctx.io.stderr(
                `toolplane: replica bus: ${error instanceof Error ? error.message : String(error)}\n`,
              ),
          })
        }
        let handle: Awaited<ReturnType<typeof serveHttp>>
        try {
          handle = await serveHttp(service, {
            transport: httpTransport,
            ...(sessionSecret !== undefined ? { sessionSecret } : {}),
            ...(bus ? { bus } : {}),
            serverInfo,
            watch,
            naming,
            host,
            port,
            catalog: live.catalog,
            ...(auth ? { auth } : {}),
          })
        } catch (error) {
          await bus?.close()
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
        ctx.io.stderr(
          [
            `toolplane: serving ${count} tools over MCP Streamable HTTP at ${url}${url === handle.url ? "" : ` (bound to all interfaces on ${host})`}`,
            "toolplane: connect a client, for example:",
            `  npx @modelcontextprotocol/inspector --transport http --server-url ${url}`,
            `  or in code: new StreamableHTTPClientTransport(new URL("${url}"))`,
            "toolplane: press Ctrl+C to stop",
            "",
          ].join("\n"),
        )
        const signal = await untilSignal()
        ctx.io.stderr(`toolplane: ${signal} received, shutting down\n`)
        await handle.close()
        await bus?.close()
      }
      return EXIT.ok
    } finally {
      stopReloading()
      await webConsole?.close()
      await live.close()
      await pins.flush()
    }
  },
})
