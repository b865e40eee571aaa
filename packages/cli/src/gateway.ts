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
import type { Skill } from "@toolplane/compose"
import {
  allowIds,
  type CatalogItemRef,
  type CatalogSource,
  denyIds,
  type GatewayResourceCatalog,
  gatewayStack,
  hideDestructive,
  makeSelection,
  readOnlyOnly,
  resourceCatalog,
  type ToolFilter,
  tagsAny,
  tagsNone,
} from "@toolplane/compose"
import { fileIntentStore, type LearnOptions, searchMode } from "@toolplane/discovery"
import type { ApprovalDecision, DurableRunner } from "@toolplane/durable"
import {
  type Approver,
  type AuthorizeCall,
  createRunner,
  type PrefetchOptions,
  type ToolRunner,
} from "@toolplane/exec"
import {
  type Backend,
  type BackendHealth,
  BackendUnavailable,
  ConfigError,
  type CursorCodec,
  type ExecutionContext,
  isToolDefinition,
  type JsonSchema,
  type Middleware,
  makeCursorCodec,
  resourceProviderOf,
  type Tool,
  type ToolDefinition,
  type ToolService,
} from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { type McpBackend, mcpBackend } from "@toolplane/plugin-mcp"
import { approvalMarks } from "./approvalMarks.js"
import type { BackendConfig, GatewayConfig } from "./config/schema.js"
import { explainConnectFailure, stdioEnvironment } from "./connectHint.js"
import { gatewayApprover } from "./elicitApproval.js"
import { filterBackend } from "./filterBackend.js"
import { lockFilePath } from "./lockFile.js"
import { backendPinPolicy, pinBackend } from "./pinBackend.js"
import { type PinDecision, type PinStore, pinStore } from "./pinStore.js"
import { perCallerBackendOf, upstreamAuthOf } from "./upstreamAuth.js"

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
  /** A decision about pinned tool definitions (a first sight, a change served or held). @since 0.1.0 */
  | { readonly type: "pin"; readonly decision: PinDecision }
  /**
   * A connected MCP backend's connection changed (lost, reconnecting, back, closed); also the
   * reconnection attempts of a backend that was down at start. @since 0.1.0
   */
  | {
      readonly type: "status"
      readonly backend: string
      readonly state: "connecting" | "connected" | "reconnecting" | "failed" | "closed" | "idle"
      /** Failed attempts since the last connection. */
      readonly attempts: number
      /** Milliseconds until the next attempt, while reconnecting. */
      readonly delayMs?: number
      readonly error?: string
      readonly tools: number
    }
  /** An MCP backend's tool list changed (`notifications/tools/list_changed`). @since 0.1.0 */
  | { readonly type: "tools-changed"; readonly backend: string; readonly tools: number }

/**
 * Observation hooks of {@link openGateway} (metrics, audit): each wraps what it observes.
 *
 * @since 0.1.0
 */
export interface GatewayObserver {
  /** Wraps every backend (before it is registered; reused backends keep their wrapper). */
  readonly backend?: (backend: Backend) => Backend
  /** Wraps the approver of the backends' `approval` modes; `mode` tells a backend's mode. */
  readonly approver?: (approver: Approver, mode: (backend: string) => string | undefined) => Approver
  /**
   * A durable run's approval decision this gateway's runner handed to the engine (once over every runner).
   *
   * @since 0.2.0
   */
  readonly durableApproval?: (decision: ApprovalDecision) => void
}

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
  /**
   * Keep serving when an MCP backend cannot connect at start: it is reported down (health, events) and
   * reconnected with backoff in the background; its tools appear (a tool-list change) when it comes
   * back. Aliases and composite tools that need a down backend are left out (with a warning). Takes
   * precedence over `requireAllBackends`.
   *
   * @since 0.1.0
   */
  readonly reconnect?: boolean
  /**
   * With `[[skills]]`: continue the durable runs a previous process left and pick up decisions taken
   * elsewhere (`toolplane runs approve`). Default false (one-shot commands only start runs); `serve` sets it.
   *
   * @since 0.1.0
   */
  readonly resumeRuns?: boolean
  /** How long an MCP backend may take to connect. Default 30 000 ms. @since 0.1.0 */
  readonly connectTimeoutMs?: number
  /** Reconnection backoff of down backends: first delay and cap. Default 250 ms and 10 000 ms. @since 0.1.0 */
  readonly reconnectDelayMs?: { readonly initial?: number; readonly max?: number }
  /**
   * Backends of a previous gateway to use instead of starting new ones, where their configuration is
   * unchanged (hot reload).
   *
   * @since 0.1.0
   */
  readonly reuse?: ReadonlyMap<string, { readonly config: BackendConfig; readonly backend: Backend }>
  /** The cursor codec to keep (hot reload: cursors issued before stay valid). @since 0.1.0 */
  readonly cursorCodec?: CursorCodec
  /** Narrows which resources, templates and prompts a caller sees (e.g. by token scopes). */
  readonly visible?: (item: CatalogItemRef, ctx: ExecutionContext) => boolean
  /**
   * Per-caller authorization of tools (e.g. by token scopes): `tools` narrows what search mode or code
   * mode search, describe, declare and call (it sits right below them), `authorize` is the runner's
   * check, which every call reaches (composite targets, code-mode calls, prefetches included).
   *
   * @since 0.1.0
   */
  readonly authorization?: {
    readonly tools: Middleware
    readonly authorize: AuthorizeCall
  }
  /** Warn when no cursor secret is configured (only meaningful for a server). Default true. */
  readonly warnRandomCursorKey?: boolean
  /**
   * The gateway serves exactly one client (stdio): calls without a caller id are that client's, so
   * `[prefetch]` may prefetch for them. Default false.
   *
   * @since 0.1.0
   */
  readonly singleClient?: boolean
  /**
   * The pinned tool definitions (kept across reloads; `serve` and `lock` pass one that records to the
   * lock file). Default: a store that reads the lock file and records nothing.
   *
   * @since 0.1.0
   */
  readonly pins?: PinStore
  /** Observation hooks (metrics, audit). @since 0.1.0 */
  readonly observer?: GatewayObserver
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
  /** Resources, resource templates, prompts and completions of every backend that offers them. */
  readonly catalog: GatewayResourceCatalog
  /** Health and tool count of every configured backend. */
  health(): Promise<Record<string, BackendHealth>>
  /** Subscribes to changes of the served tool list. */
  onToolsChanged(listener: () => void): () => void
  /**
   * The connected backends by name, with the configuration each was made from (a reload reuses the
   * unchanged ones).
   *
   * @since 0.1.0
   */
  backends(): ReadonlyMap<string, { readonly config: BackendConfig; readonly backend: Backend }>
  /**
   * With `[[skills]]`: the durable runner of the skills and the skills by name (their tools' runs, and
   * the tasks made of them, are answered from its store).
   *
   * @since 0.2.0
   */
  readonly durable?: DurableSkills
  /** Closes the gateway and its backends, except those named in `keep` (handed to a new gateway). */
  close(options?: { readonly keep?: ReadonlySet<string> }): Promise<void>
}

/**
 * The durable skills of a gateway.
 *
 * @since 0.2.0
 */
export interface DurableSkills {
  readonly runner: DurableRunner
  readonly skills: ReadonlyMap<string, Skill>
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
  options: Required<Pick<OpenGatewayOptions, "baseDir" | "pins">> & OpenGatewayOptions,
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
    const timeout = {
      ...(config.timeout_ms !== undefined ? { callTimeoutMs: config.timeout_ms } : {}),
      ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
      ...(config.protocol !== undefined ? { protocol: config.protocol } : {}),
      ...(config.tasks !== undefined ? { tasks: config.tasks } : {}),
    }
    backend =
      "command" in mcp
        ? mcpBackend(
            {
              name: config.name,
              stdio: {
                command: resolveCommand(mcp.command, options.baseDir),
                args: mcp.args,
                env: stdioEnvironment(mcp.env_passthrough, options.env ?? process.env, mcp.env),
                cwd: mcp.cwd !== undefined ? resolve(options.baseDir, mcp.cwd) : options.baseDir,
              },
            },
            { ...approval, ...timeout },
          )
        : (perCallerBackendOf(config, index, options.baseDir, options.env ?? process.env, {
            ...approval,
            ...timeout,
          }) ??
          mcpBackend(
            {
              name: config.name,
              http: {
                url: mcp.url,
                headers: mcp.headers,
                ...withAuth(config, index, options.baseDir, options.env),
              },
            },
            { ...approval, ...timeout },
          ))
    try {
      await (backend as McpBackend).connect()
      watchStatus(config.name, backend as McpBackend, options.onEvent)
    } catch (raw) {
      // The likely cause and what to try, instead of the transport's bare "Request timed out".
      const error = new BackendUnavailable({
        backend: config.name,
        reason: explainConnectFailure(config, index, (raw as Error)?.message ?? String(raw), {
          connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
        }),
      })
      if (options.reconnect) {
        // Kept (unconnected) for the reconnection loop of openGateway.
        const kept = config.filter
          ? filterBackend(backend, (tool) => makeSelection(backendFilter(config.filter!)).admits(tool))
          : backend
        throw new DownBackend(
          pinBackend(kept, backendPinPolicy(config), options.pins),
          backend as McpBackend,
          error,
        )
      }
      // A backend that failed to start must not keep a process or a retry timer alive.
      await backend.close().catch(() => {})
      throw error
    }
  }
  if (config.filter) {
    const selection = makeSelection(backendFilter(config.filter))
    backend = filterBackend(backend, (tool) => selection.admits(tool))
  }
  return pinBackend(backend, backendPinPolicy(config), options.pins)
}

/** Reports a connected MCP backend's connection changes and tool-list changes as gateway events. */
const watchStatus = (name: string, backend: McpBackend, emit: OpenGatewayOptions["onEvent"]): void => {
  if (emit === undefined) return
  backend.onStatusChange((status) =>
    emit({
      type: "status",
      backend: name,
      state: status.state,
      attempts: status.attempts,
      ...(status.nextAttemptAt !== undefined
        ? { delayMs: Math.max(0, status.nextAttemptAt - Date.now()) }
        : {}),
      ...(status.lastError !== undefined ? { error: status.lastError } : {}),
      tools: status.tools,
    }),
  )
  backend.onToolsChanged(() => emit({ type: "tools-changed", backend: name, tools: backend.status().tools }))
}

/** The `auth` option of an HTTP backend whose config asks for OAuth to the upstream. */
const withAuth = (
  config: BackendConfig,
  index: number,
  baseDir: string,
  env: NodeJS.ProcessEnv | undefined,
) => {
  const auth = upstreamAuthOf(config, index, baseDir, env ?? process.env)
  return auth !== undefined ? { auth } : {}
}

/** A backend that could not connect at start, kept for reconnection (`reconnect: true`). */
class DownBackend extends Error {
  constructor(
    readonly backend: Backend,
    readonly mcp: McpBackend,
    readonly error: unknown,
  ) {
    super((error as Error)?.message ?? String(error))
  }
}

/** The resource providers of the backends that run (in configuration order). */
const catalogSources = (config: GatewayConfig, backends: readonly (Backend | undefined)[]): CatalogSource[] =>
  config.backends.flatMap((b, i) => {
    const provider = backends[i] ? resourceProviderOf(backends[i]) : undefined
    return provider ? [{ name: b.name, provider }] : []
  })

/**
 * Which resources and prompts callers see: a backend's `filter.resources` / `filter.prompts` switch its
 * kinds off, its `allow` / `deny` patterns apply to prompt ids (`backend/prompt`), and `extra` (caller
 * scopes) narrows further.
 */
const catalogVisibility = (
  config: GatewayConfig,
  extra: OpenGatewayOptions["visible"],
): ((item: CatalogItemRef, ctx: ExecutionContext) => boolean) => {
  const rules = new Map(
    config.backends.map((b) => {
      const f = b.filter
      const ids = [
        ...(f?.allow?.length ? [allowIds(...f.allow)] : []),
        ...(f?.deny?.length ? [denyIds(...f.deny)] : []),
      ]
      return [
        b.name,
        {
          resources: f?.resources !== false,
          prompts: f?.prompts !== false,
          promptIds: (id: string) => ids.every((test) => test({ id } as Tool)),
        },
      ] as const
    }),
  )
  return (item, ctx) => {
    const rule = rules.get(item.source)
    if (!rule) return false
    if (
      item.kind === "prompt"
        ? !rule.prompts || !rule.promptIds(`${item.source}/${item.name}`)
        : !rule.resources
    )
      return false
    return extra ? extra(item, ctx) : true
  }
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
    codec =
      options.cursorCodec ??
      gatewayCursorCodec(config, env, (message) => {
        if (options.warnRandomCursorKey !== false) emit({ type: "warning", message })
      })
  } catch (error) {
    throw inConfigFile(error)
  }
  const pins = options.pins ?? pinStore()
  await pins.load(lockFilePath(config, baseDir, options.file), (decision) => emit({ type: "pin", decision }))
  const observeBackend = options.observer?.backend
  const backends: Backend[] = []
  const failures: { name: string; error: unknown }[] = []
  /** Backends taken over from `reuse` (never closed here). */
  const reused = new Set<string>()
  /** Backends down at start, reconnecting (`reconnect`). */
  const down = new Map<string, { backend: Backend; mcp: McpBackend; error: string; since: number }>()
  await Promise.all(
    config.backends.map(async (b, i) => {
      const started = Date.now()
      const previous = options.reuse?.get(b.name)
      if (previous && JSON.stringify(previous.config) === JSON.stringify(b)) {
        backends[i] = previous.backend
        reused.add(b.name)
        return
      }
      emit({ type: "connecting", backend: b.name })
      try {
        const made = await makeBackend(b, i, { ...options, baseDir, pins })
        const backend = observeBackend ? observeBackend(made) : made
        const tools = (await backend.toolSchemas()).length
        backends[i] = backend
        emit({ type: "connected", backend: b.name, tools, ms: Date.now() - started })
      } catch (error) {
        if (error instanceof DownBackend) {
          down.set(b.name, {
            backend: observeBackend ? observeBackend(error.backend) : error.backend,
            mcp: error.mcp,
            error: error.message,
            since: Date.now(),
          })
          emit({
            type: "failed",
            backend: b.name,
            error: `${error.message} (serving without it; reconnecting in the background)`,
            ms: Date.now() - started,
            cause: error.error,
          })
          return
        }
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
  const closeAll = () =>
    Promise.all(live.filter((b) => !reused.has(b.name)).map((b) => b.close().catch(() => {})))
  if (failures.length > 0 && options.requireAllBackends !== false) {
    await closeAll()
    throw failures[0]!.error
  }
  const limits = config.limits
  const approvalModes = new Map(
    config.backends.flatMap((b) => (b.approval !== undefined ? [[b.name, b.approval] as const] : [])),
  )
  /**
   * Only the operator's word makes an MCP tool retryable or prefetchable (`idempotent`, `read_only`, or
   * `trust_annotations`); a module's annotations are its author's and count.
   */
  const operatorRules = new Map(
    config.backends.map((b) => [
      b.name,
      {
        trusted: b.mcp === undefined || b.trust_annotations === true,
        idempotent: toolRule(b.idempotent),
        readOnly: toolRule(b.read_only),
      },
    ]),
  )
  const retryable = (tool: Tool): boolean => {
    const backend = runner.registry.resolve(tool.id)?.backend.name
    const rule = backend === undefined ? undefined : operatorRules.get(backend)
    if (rule === undefined) return false
    if (rule.idempotent(tool.id) || rule.readOnly(tool.id)) return true
    return (
      rule.trusted && (tool.annotations?.idempotentHint === true || tool.annotations?.readOnlyHint === true)
    )
  }
  const prefetch = prefetchOptions(config, options.singleClient === true, (tool, backend) => {
    const rule = operatorRules.get(backend)
    if (rule === undefined) return false
    return rule.readOnly(tool.id) || (rule.trusted && tool.annotations?.readOnlyHint === true)
  })
  const runner = createRunner({
    ...(prefetch === undefined ? {} : { prefetch }),
    ...(options.authorization ? { authorize: options.authorization.authorize } : {}),
    backends: live,
    cursorCodec: codec,
    ...(approvalModes.size > 0
      ? {
          approver: options.observer?.approver
            ? options.observer.approver(gatewayApprover(approvalModes), (name) => approvalModes.get(name))
            : gatewayApprover(approvalModes),
        }
      : {}),
    pageSize: config.server.page_size,
    ...(limits.call_timeout_ms !== undefined ? { defaultTimeoutMs: limits.call_timeout_ms } : {}),
    ...(limits.retries !== undefined
      ? {
          retry:
            limits.retries === 0
              ? false
              : { maxAttempts: limits.retries + 1, when: (tool: Tool) => retryable(tool) },
        }
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
      ? (await import("./codeExposure.js")).codeModeExposure(config.code, {
          // The declaration marks the tools whose calls go through the approver (see approvalMarks).
          needsApproval: approvalMarks({
            runner,
            modes: approvalModes,
            aliases: config.aliases,
            composites: config.composite_tools,
          }),
          changes: (invalidate) => {
            invalidators.add(invalidate)
            return () => invalidators.delete(invalidate)
          },
        })
      : undefined
  const catalog = resourceCatalog(
    catalogSources(
      config,
      config.backends.map((b, i) => backends[i] ?? down.get(b.name)?.backend),
    ),
    {
      codec,
      pageSize: config.server.page_size,
      promptNames: config.server.tool_names === "name" ? "name" : "dotted",
      visible: catalogVisibility(config, options.visible),
    },
  )
  const gatewayOver = (service: ToolService, durable?: DurableSkills): Gateway => ({
    service,
    ...(durable !== undefined ? { durable } : {}),
    runner,
    config,
    catalog,
    cursorCodec: codec,
    health: async () => {
      const report = await runner.health()
      for (const [name, d] of down)
        report[name] = {
          healthy: false,
          tools: 0,
          error: `down since ${new Date(d.since).toISOString()}: ${d.error}; reconnecting`,
        }
      return report
    },
    onToolsChanged: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    backends: () =>
      new Map(
        config.backends.flatMap((b, i) =>
          backends[i] && !down.has(b.name) ? [[b.name, { config: b, backend: backends[i]! }] as const] : [],
        ),
      ),
    close: async (closeOptions) => {
      closed = true
      for (const timer of retryTimers.values()) clearTimeout(timer)
      unsubscribe()
      await code?.close()
      for (const close of closers) await close().catch(() => {})
      catalog.close()
      for (const name of closeOptions?.keep ?? []) await runner.unregister(name)
      await runner.close()
      await Promise.all([...down.values()].map((d) => d.backend.close().catch(() => {})))
    },
  })
  let closed = false
  /** Closed before the runner (the durable skills' runner). */
  const closers: (() => Promise<void>)[] = []
  const retryTimers = new Map<string, ReturnType<typeof setTimeout>>()
  const initialDelay = options.reconnectDelayMs?.initial ?? 250
  const maxDelay = options.reconnectDelayMs?.max ?? 10_000
  /** Reconnects a down backend with exponential backoff; registers it (a tool-list change) once back. */
  const retry = (name: string, attempt: number) => {
    const delay = Math.min(maxDelay, initialDelay * 2 ** attempt) * (0.8 + Math.random() * 0.4)
    const failed = down.get(name)
    if (attempt > 0 && failed)
      emit({
        type: "status",
        backend: name,
        state: "reconnecting",
        attempts: attempt,
        delayMs: Math.round(delay),
        error: failed.error,
        tools: 0,
      })
    const timer = setTimeout(async () => {
      const d = down.get(name)
      if (closed || !d) return
      const started = Date.now()
      try {
        await d.mcp.connect()
        if (closed) return
        await runner.register(d.backend)
        down.delete(name)
        watchStatus(name, d.mcp, options.onEvent)
        emit({
          type: "connected",
          backend: name,
          tools: (await d.backend.toolSchemas()).length,
          ms: Date.now() - started,
        })
      } catch (error) {
        d.error = (error as Error).message
        retry(name, attempt + 1)
      }
    }, delay)
    timer.unref?.()
    retryTimers.set(name, timer)
  }
  try {
    await runner.ready()
    for (const name of down.keys()) retry(name, 0)
    if (failures.length > 0) {
      emit({
        type: "warning",
        message: `${failures.map((f) => f.name).join(", ")} unavailable: serving the runner without aliases, composites or search mode`,
      })
      return gatewayOver(runner)
    }
    // Aliases and composites that need a down backend or a held tool cannot be checked: left out until a
    // restart or reload (accepting a held tool reloads `serve`).
    const needsDown = (id: string) => down.has(id.slice(0, id.indexOf("/"))) || pins.isHeld(id)
    const aliases = Object.fromEntries(Object.entries(config.aliases).filter(([id]) => !needsDown(id)))
    const composites = config.composite_tools.filter((c) => !c.tools.some(needsDown))
    const dropped = [
      ...Object.keys(config.aliases)
        .filter(needsDown)
        .map((id) => `alias of ${id}`),
      ...config.composite_tools.filter((c) => c.tools.some(needsDown)).map((c) => `composite ${c.name}`),
    ]
    if (dropped.length > 0)
      emit({
        type: "warning",
        message: `${down.size > 0 ? `${[...down.keys()].join(", ")} down` : "tools held by their pins"} at start: serving without ${dropped.join(", ")}`,
      })
    // Search mode and code mode search, describe, declare and call only what the caller may call.
    const narrow = options.authorization?.tools
    const overAuthorized = (mode: Middleware): Middleware =>
      narrow === undefined ? mode : (next) => mode(narrow(next))

    const skills = await durableSkills(
      config,
      runner,
      baseDir,
      options.resumeRuns === true,
      options.observer?.durableApproval,
    )
    if (skills !== undefined) closers.push(skills.close)
    const service = await gatewayStack(runner, {
      ...(skills !== undefined ? { tools: skills.tools } : {}),
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
      ...(Object.keys(aliases).length > 0 ? { aliases } : {}),
      ...(composites.length > 0
        ? {
            composites: composites.map((c) => ({
              name: c.name,
              tools: c.tools,
              strategy: c.strategy,
              ...(c.description !== undefined ? { description: c.description } : {}),
              ...(c.timeout_ms !== undefined ? { timeoutMs: c.timeout_ms } : {}),
            })),
          }
        : {}),
      ...(config.tool_exposure === "search"
        ? { searchMode: overAuthorized(searchMode({ codec, ...learnOptions(config, baseDir, emit) })) }
        : {}),
      // Code mode replaces the listing like search mode does, so it takes the same outermost place.
      ...(code ? { searchMode: overAuthorized(code.middleware) } : {}),
    })
    return gatewayOver(service, skills?.durable)
  } catch (error) {
    unsubscribe()
    for (const close of closers) await close().catch(() => {})
    await code?.close().catch(() => {})
    catalog.close()
    for (const name of reused) await runner.unregister(name).catch(() => false)
    await runner.close().catch(() => {})
    await closeAll()
    throw inConfigFile(error)
  }
}

/**
 * The `[[skills]]` of the configuration as durable tools (`skill/<name>`) on a durable runner over the
 * gateway's runner, storing runs in `[durable] store`; `undefined` without skills. With `resume` the runner
 * recovers runs left by a previous process and picks up decisions taken elsewhere (`toolplane runs approve`).
 */
const durableSkills = async (
  config: GatewayConfig,
  runner: ToolRunner,
  baseDir: string,
  resume: boolean,
  onApprovalDecided?: (decision: ApprovalDecision) => void,
): Promise<
  { tools: ToolDefinition<any>[]; durable: DurableSkills; close: () => Promise<void> } | undefined
> => {
  if (config.skills.length === 0) return undefined
  // Loaded only with skills: the run store needs node:sqlite and the workflow engine.
  const [{ defineSkill }, { durableSkillTool, isPostgresStorage, openDurableRunner }] = await Promise.all([
    import("@toolplane/compose"),
    import("@toolplane/durable"),
  ])
  const store = config.durable.store
  const storage = isPostgresStorage(store) ? store : isAbsolute(store) ? store : resolve(baseDir, store)
  const durable = await openDurableRunner({
    storage,
    service: runner,
    ...(onApprovalDecided ? { onApprovalDecided } : {}),
  })
  const skills = config.skills.map((s) =>
    defineSkill({
      name: s.name,
      ...(s.description !== undefined ? { description: s.description } : {}),
      ...(s.input_schema !== undefined ? { inputSchema: s.input_schema as JsonSchema } : {}),
      steps: s.steps.map((step) => ({
        id: step.id,
        tool: step.tool,
        inputs: step.inputs,
        ...(step.depends_on !== undefined ? { dependsOn: step.depends_on } : {}),
      })),
      ...(s.output !== undefined ? { output: s.output } : {}),
    }),
  )
  if (resume) await durable.recover()
  const watcher = resume ? durable.watch() : undefined
  return {
    tools: skills.map((skill) => durableSkillTool(skill, durable)),
    durable: { runner: durable, skills: new Map(skills.map((skill) => [skill.name, skill])) },
    close: async () => {
      watcher?.stop()
      await durable.close()
    },
  }
}

/** Search mode's learning from use from `[search] learn_from_use`, when given. */
const learnOptions = (
  config: GatewayConfig,
  baseDir: string,
  emit: (event: GatewayEvent) => void,
): { learn?: LearnOptions } => {
  const l = config.search.learn_from_use
  if (l === undefined) return {}
  const file = isAbsolute(l.file) ? l.file : resolve(baseDir, l.file)
  return {
    learn: {
      store: fileIntentStore(file),
      maxPerTool: l.max_per_tool,
      windowMs: l.window_ms,
      maxQueryLength: l.max_query_length,
      onError: (error) =>
        emit({
          type: "warning",
          message: `learning from use (${file}): ${(error as Error).message ?? error}`,
        }),
    },
  }
}

/** A backend's `idempotent` / `read_only`: `true`, ids or patterns. */
const toolRule = (value: boolean | readonly string[] | undefined): ((id: string) => boolean) => {
  if (value === undefined || typeof value === "boolean") return () => value === true
  const allowed = allowIds(...value)
  return (id) => allowed({ id } as Tool)
}

/**
 * The runner's prefetch options from `[prefetch]`, or `undefined` when it is off. `readOnly` says which
 * tools count as read-only (by default their own annotations).
 *
 * @internal
 */
export const prefetchOptions = (
  config: GatewayConfig,
  singleClient: boolean,
  readOnly?: PrefetchOptions["readOnly"],
): PrefetchOptions | undefined => {
  const p = config.prefetch
  if (!p.enabled) return undefined
  return {
    ...(readOnly === undefined ? {} : { readOnly }),
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
    ...(p.precision_budget === undefined ? {} : { precisionBudget: p.precision_budget }),
  }
}
