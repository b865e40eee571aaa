/**
 * Turns a validated configuration into a running gateway: backends (in-process modules, MCP servers over
 * stdio or Streamable HTTP) registered in a runner, wrapped in the gateway middleware stack (validation,
 * per-backend and capability filters, search mode, aliases, composite tools).
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { dirname, isAbsolute, join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import {
  allowIds,
  denyIds,
  gatewayStack,
  hideDestructive,
  makeSelection,
  readOnlyOnly,
  type ToolFilter,
  tagsAny,
  tagsNone,
} from "@toolplane/compose"
import { searchMode } from "@toolplane/discovery"
import { createRunner, type PrefetchOptions, type ToolRunner } from "@toolplane/exec"
import {
  type Backend,
  type BackendHealth,
  ConfigError,
  type CursorCodec,
  isToolDefinition,
  makeCursorCodec,
  type ToolDefinition,
  type ToolService,
} from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { type McpBackend, mcpBackend } from "@toolplane/plugin-mcp"
import type { BackendConfig, GatewayConfig } from "./config/schema.js"
import { filterBackend } from "./filterBackend.js"

/**
 * Progress events while a gateway starts.
 *
 * @since 0.1.0
 */
export type GatewayEvent =
  | { readonly type: "connecting"; readonly backend: string }
  | { readonly type: "connected"; readonly backend: string; readonly tools: number; readonly ms: number }
  | {
      readonly type: "failed"
      readonly backend: string
      readonly error: string
      readonly ms: number
      readonly cause: unknown
    }
  | { readonly type: "warning"; readonly message: string }

/**
 * Options of {@link openGateway}.
 *
 * @since 0.1.0
 */
export interface OpenGatewayOptions {
  /** Directory relative paths in the config are resolved against (the config file's directory). */
  readonly baseDir?: string
  /** The config file, for error messages. */
  readonly file?: string
  readonly env?: NodeJS.ProcessEnv
  readonly onEvent?: (event: GatewayEvent) => void
  /**
   * Fail when a backend cannot connect (default), or keep going without it. Without all backends the
   * aliases and composites cannot be checked, so the service is then the bare runner.
   */
  readonly requireAllBackends?: boolean
  /** Warn when no cursor secret is configured (only meaningful for a server). Default true. */
  readonly warnRandomCursorKey?: boolean
  /**
   * The gateway serves exactly one client (stdio): calls without a caller id are that client's, so
   * `[prefetch]` may prefetch for them. Default false.
   *
   * @since 0.2.0
   */
  readonly singleClient?: boolean
}

/**
 * A running gateway.
 *
 * @since 0.1.0
 */
export interface Gateway {
  /** The composed tool service: what `serve` exposes. */
  readonly service: ToolService
  /** The runner under the middleware (every backend tool, no aliases or composites). */
  readonly runner: ToolRunner
  readonly config: GatewayConfig
  readonly cursorCodec: CursorCodec
  /** Health and tool count of every configured backend. */
  health(): Promise<Record<string, BackendHealth>>
  /** Subscribes to changes of the served tool list. */
  onToolsChanged(listener: () => void): () => void
  close(): Promise<void>
}

const configPath = (i: number, key: string) => `backends[${i}].${key}`

const loadModuleTools = async (
  spec: string,
  baseDir: string,
  index: number,
  file: string | undefined,
): Promise<ToolDefinition<any>[]> => {
  const path = isAbsolute(spec) ? spec : resolve(baseDir, spec)
  let mod: Record<string, unknown>
  try {
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>
  } catch (error) {
    throw new ConfigError({
      path: configPath(index, "module"),
      reason: `cannot load module ${path}: ${(error as Error).message.split("\n")[0]}`,
      ...(file ? { file } : {}),
    })
  }
  const found: ToolDefinition<any>[] = []
  const visit = (value: unknown) => {
    if (isToolDefinition(value)) found.push(value)
    else if (Array.isArray(value)) value.forEach(visit)
  }
  for (const value of Object.values(mod)) visit(value)
  if (found.length === 0)
    throw new ConfigError({
      path: configPath(index, "module"),
      reason: `${path} exports no defineTool tools`,
      ...(file ? { file } : {}),
    })
  return [...new Map(found.map((d) => [d.id, d])).values()]
}

/**
 * Resolves a bare command the way `npx` does: the nearest `node_modules/.bin` above `baseDir` first, then
 * `PATH`. Commands with a path are resolved against `baseDir`.
 *
 * @since 0.1.0
 */
export const resolveCommand = (command: string, baseDir: string): string => {
  if (command.includes("/")) return isAbsolute(command) ? command : resolve(baseDir, command)
  for (let dir = resolve(baseDir); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", ".bin", command)
    if (existsSync(candidate)) return candidate
    if (dirname(dir) === dir) return command
  }
}

const backendFilter = (config: NonNullable<BackendConfig["filter"]>): ToolFilter[] => {
  const filters: ToolFilter[] = []
  if (config.allow?.length) filters.push(allowIds(...config.allow))
  if (config.deny?.length) filters.push(denyIds(...config.deny))
  if (config.tags_any?.length) filters.push(tagsAny(...config.tags_any))
  if (config.tags_none?.length) filters.push(tagsNone(...config.tags_none))
  if (config.read_only) filters.push(readOnlyOnly)
  if (config.hide_destructive) filters.push(hideDestructive())
  return filters
}

const makeBackend = async (
  config: BackendConfig,
  index: number,
  options: Required<Pick<OpenGatewayOptions, "baseDir">> & OpenGatewayOptions,
): Promise<Backend> => {
  let backend: Backend
  if (config.module !== undefined) {
    const tools = await loadModuleTools(config.module, options.baseDir, index, options.file)
    backend = localBackend(tools, {
      name: config.name,
      approval: config.require_approval === undefined ? "auto" : config.require_approval ? "always" : "never",
    })
  } else {
    const mcp = config.mcp!
    const approval =
      config.require_approval === undefined ? {} : { requiresApproval: config.require_approval }
    const timeout = config.timeout_ms !== undefined ? { callTimeoutMs: config.timeout_ms } : {}
    backend =
      "command" in mcp
        ? mcpBackend(
            {
              name: config.name,
              stdio: {
                command: resolveCommand(mcp.command, options.baseDir),
                args: mcp.args,
                env: mcp.env,
                cwd: mcp.cwd !== undefined ? resolve(options.baseDir, mcp.cwd) : options.baseDir,
              },
            },
            { ...approval, ...timeout },
          )
        : mcpBackend(
            { name: config.name, http: { url: mcp.url, headers: mcp.headers } },
            { ...approval, ...timeout },
          )
    try {
      await (backend as McpBackend).connect()
    } catch (error) {
      // A backend that failed to start must not keep a process or a retry timer alive.
      await backend.close().catch(() => {})
      throw error
    }
  }
  if (config.filter) {
    const selection = makeSelection(backendFilter(config.filter))
    backend = filterBackend(backend, (tool) => selection.admits(tool))
  }
  return backend
}

/**
 * The cursor codec of a gateway: keyed by the secret in the configured environment variable, or by a
 * random per-process key (with a warning: cursors then do not survive a restart or reach a replica).
 *
 * @since 0.1.0
 */
export const gatewayCursorCodec = (
  config: GatewayConfig,
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): CursorCodec => {
  const secret = env[config.cursor.secret_env]
  if (secret !== undefined && secret.length < 16)
    throw new ConfigError({
      path: "cursor.secret_env",
      reason: `${config.cursor.secret_env} holds ${secret.length} characters; use at least 16 (32 random bytes recommended)`,
    })
  if (secret === undefined)
    warn(
      `${config.cursor.secret_env} is not set: using a random cursor key for this process (cursors will not survive a restart or work across replicas)`,
    )
  return makeCursorCodec({
    keys: [{ kid: "gw", secret: secret ?? randomBytes(32) }],
    ttlMs: config.cursor.ttl_seconds * 1000,
  })
}

/**
 * Starts every backend and assembles the gateway. Fails with `ConfigError` for configuration mistakes
 * found only at start (unloadable module, composite targets or aliases naming unknown tools) and, unless
 * `requireAllBackends` is false, with `BackendUnavailable` when a backend cannot connect.
 *
 * @since 0.1.0
 */
export const openGateway = async (
  config: GatewayConfig,
  options: OpenGatewayOptions = {},
): Promise<Gateway> => {
  const baseDir = options.baseDir ?? (options.file ? dirname(options.file) : process.cwd())
  const env = options.env ?? process.env
  const emit = options.onEvent ?? (() => {})
  /** A configuration error found while starting names the config file it is about. */
  const inConfigFile = (error: unknown): unknown =>
    error instanceof ConfigError && options.file !== undefined && error.file === undefined
      ? new ConfigError({ path: error.path, reason: error.reason, file: options.file })
      : error
  let codec: CursorCodec
  try {
    codec = gatewayCursorCodec(config, env, (message) => {
      if (options.warnRandomCursorKey !== false) emit({ type: "warning", message })
    })
  } catch (error) {
    throw inConfigFile(error)
  }
  const backends: Backend[] = []
  const failures: { name: string; error: unknown }[] = []
  await Promise.all(
    config.backends.map(async (b, i) => {
      const started = Date.now()
      emit({ type: "connecting", backend: b.name })
      try {
        const backend = await makeBackend(b, i, { ...options, baseDir })
        const tools = (await backend.toolSchemas()).length
        backends[i] = backend
        emit({ type: "connected", backend: b.name, tools, ms: Date.now() - started })
      } catch (error) {
        failures.push({ name: b.name, error })
        emit({
          type: "failed",
          backend: b.name,
          error: (error as Error).message,
          ms: Date.now() - started,
          cause: error,
        })
      }
    }),
  )
  const live = backends.filter(Boolean)
  const closeAll = () => Promise.all(live.map((b) => b.close().catch(() => {})))
  if (failures.length > 0 && options.requireAllBackends !== false) {
    await closeAll()
    throw failures[0]!.error
  }
  const limits = config.limits
  const prefetch = prefetchOptions(config, options.singleClient === true)
  const runner = createRunner({
    ...(prefetch === undefined ? {} : { prefetch }),
    backends: live,
    cursorCodec: codec,
    pageSize: config.server.page_size,
    ...(limits.call_timeout_ms !== undefined ? { defaultTimeoutMs: limits.call_timeout_ms } : {}),
    ...(limits.retries !== undefined
      ? { retry: limits.retries === 0 ? false : { maxAttempts: limits.retries + 1 } }
      : {}),
    limits: {
      ...(limits.max_concurrency_per_backend !== undefined
        ? {
            backends: Object.fromEntries(
              config.backends.map((b) => [b.name, { concurrency: limits.max_concurrency_per_backend! }]),
            ),
          }
        : {}),
    },
  })
  // One subscription to the registry, in a fixed order: the stack's cached listings are dropped first,
  // then the gateway's own listeners (which send notifications/tools/list_changed) run, so a client
  // that re-lists at once gets the new list.
  const invalidators = new Set<() => void>()
  const listeners = new Set<() => void>()
  const unsubscribe = runner.registry.onChange(() => {
    for (const invalidate of invalidators) invalidate()
    for (const l of listeners) l()
  })
  // Loaded only in code mode: the sandbox's engine is not part of every gateway's start-up.
  const code =
    config.tool_exposure === "code"
      ? (await import("./codeExposure.js")).codeModeExposure(config.code)
      : undefined
  const gatewayOver = (service: ToolService): Gateway => ({
    service,
    runner,
    config,
    cursorCodec: codec,
    health: () => runner.health(),
    onToolsChanged: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    close: async () => {
      unsubscribe()
      await code?.close()
      await runner.close()
    },
  })
  try {
    await runner.ready()
    if (failures.length > 0) {
      emit({
        type: "warning",
        message: `${failures.map((f) => f.name).join(", ")} unavailable: serving the runner without aliases, composites or search mode`,
      })
      return gatewayOver(runner)
    }
    const service = await gatewayStack(runner, {
      codec,
      changes: (invalidate) => {
        invalidators.add(invalidate)
        return () => invalidators.delete(invalidate)
      },
      pageSize: config.server.page_size,
      // The runner checks every call against the same schema (no enrichers here), so the edge layer keeps
      // only the object/size checks: validating twice cost ~35% of an in-process call (packages/cli/bench).
      validation: {
        validateSchema: false,
        ...(limits.max_argument_bytes !== undefined ? { maxArgumentBytes: limits.max_argument_bytes } : {}),
      },
      ...(Object.keys(config.aliases).length > 0 ? { aliases: config.aliases } : {}),
      ...(config.composite_tools.length > 0
        ? {
            composites: config.composite_tools.map((c) => ({
              name: c.name,
              tools: c.tools,
              strategy: c.strategy,
              ...(c.description !== undefined ? { description: c.description } : {}),
              ...(c.timeout_ms !== undefined ? { timeoutMs: c.timeout_ms } : {}),
            })),
          }
        : {}),
      ...(config.tool_exposure === "search" ? { searchMode: searchMode({ codec }) } : {}),
      // Code mode replaces the listing like search mode does, so it takes the same outermost place.
      ...(code ? { searchMode: code.middleware } : {}),
    })
    return gatewayOver(service)
  } catch (error) {
    unsubscribe()
    await code?.close().catch(() => {})
    await runner.close().catch(() => {})
    await closeAll()
    throw inConfigFile(error)
  }
}

/** The runner's prefetch options from `[prefetch]`, or `undefined` when it is off. */
const prefetchOptions = (config: GatewayConfig, singleClient: boolean): PrefetchOptions | undefined => {
  const p = config.prefetch
  if (!p.enabled) return undefined
  return {
    declared: p.declared,
    learning: p.learning
      ? p.min_confidence === undefined
        ? true
        : { minConfidence: p.min_confidence }
      : false,
    // A gateway serving one client (stdio): its calls carry no caller id but are one caller's.
    anonymous: singleClient,
    ...(p.min_precision === undefined ? {} : { minPrecision: p.min_precision }),
    ...(p.max_parallel === undefined ? {} : { maxParallel: p.max_parallel }),
    ...(p.per_host === undefined ? {} : { perHost: p.per_host }),
    ...(p.max_per_call === undefined ? {} : { maxPerCall: p.max_per_call }),
    ...(p.ttl_ms === undefined ? {} : { ttlMs: p.ttl_ms }),
  }
}
