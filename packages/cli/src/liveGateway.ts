/**
 * A gateway whose configuration can be reloaded while it serves (`serve` watches its config file and
 * reloads on SIGHUP). The server holds stable delegates (tool service, resource catalog, auth); a
 * reload builds the next gateway from the new configuration, reusing every backend whose configuration
 * did not change, swaps it in, tells clients (`list_changed`), and retires the previous one once its
 * calls in flight have finished. Client sessions are never dropped. An invalid configuration (syntax,
 * schema, a module that does not load, an alias to nothing) is rejected with the usual located error and
 * the previous one keeps serving.
 *
 * @since 0.1.0
 */
import {
  applyMiddleware,
  type CatalogKind,
  ConfigError,
  type ExecutionContext,
  listAllTools,
  type ResourceCatalog,
  type ToolService,
} from "@toolplane/foundation"
import { type McpHttpAuth, type McpNaming, mcpToolName } from "@toolplane/plugin-mcp"
import type { GatewayConfig } from "./config/schema.js"
import type { Gateway, OpenGatewayOptions } from "./gateway.js"
import { httpAuthFromConfig, scopePolicy } from "./httpAuth.js"

interface Generation {
  readonly gateway: Gateway
  readonly config: GatewayConfig
  readonly service: ToolService
  readonly auth: McpHttpAuth | undefined
  inFlight: number
  retired?: () => void
}

/**
 * What a reload did.
 *
 * @since 0.1.0
 */
export type ReloadOutcome =
  | {
      readonly ok: true
      readonly added: readonly string[]
      readonly removed: readonly string[]
      readonly changed: readonly string[]
      readonly tools: number
      /** Settings that need a restart to take effect (transport, host, port, turning auth on or off). */
      readonly restartNeeded: readonly string[]
    }
  | { readonly ok: false; readonly error: unknown }

/**
 * A reloadable gateway.
 *
 * @since 0.1.0
 */
export interface LiveGateway {
  /** Delegates to the current gateway (with the current scope policy). */
  readonly service: ToolService
  readonly catalog: ResourceCatalog
  /** Delegates to the current `[server.auth]` (present when the first configuration had one). */
  readonly auth: McpHttpAuth | undefined
  /** Tool-list changes, a reload included. */
  watch(notify: () => void): () => void
  current(): Gateway
  /** Loads a configuration and applies it (serialized: reloads never overlap). */
  reload(load: () => Promise<GatewayConfig>): Promise<ReloadOutcome>
  close(): Promise<void>
}

/**
 * Checks that the served MCP names do not collide under `tool_names`.
 *
 * @since 0.1.0
 */
export const checkToolNames = async (
  service: ToolService,
  naming: McpNaming,
  file: string | undefined,
): Promise<number> => {
  const tools = await listAllTools(service)
  const byName = new Map<string, string>()
  for (const tool of tools) {
    const name = mcpToolName(tool, naming)
    const other = byName.get(name)
    if (other !== undefined)
      throw new ConfigError({
        path: "server.tool_names",
        reason: `"${naming}" gives "${other}" and "${tool.id}" the same MCP name "${name}"; use "dotted" or an alias`,
        ...(file ? { file } : {}),
      })
    byName.set(name, tool.id)
  }
  return tools.length
}

/**
 * Opens the first gateway and wraps it for reloading.
 *
 * @since 0.1.0
 */
export const liveGateway = async (
  config: GatewayConfig,
  options: {
    readonly open: (config: GatewayConfig, extra: Partial<OpenGatewayOptions>) => Promise<Gateway>
    readonly transport: "stdio" | "http"
    readonly env: NodeJS.ProcessEnv
    readonly baseDir: string
    readonly file?: string
  },
): Promise<LiveGateway> => {
  const authOf = (c: GatewayConfig) =>
    options.transport === "http" && c.server.auth
      ? httpAuthFromConfig(c.server.auth, options.env, options.baseDir, options.file)
      : undefined
  const generation = async (c: GatewayConfig, previous?: Generation): Promise<Generation> => {
    const auth = authOf(c)
    const policy = scopePolicy(c.server.auth, { aliases: c.aliases })
    const gateway = await options.open(c, {
      // The scopes bound every path: the catalog, the layer right below search mode or code mode, and
      // the runner (which every call reaches); the outermost layer below narrows the served listing.
      ...(policy
        ? { visible: policy.visible, authorization: { tools: policy.tools, authorize: policy.authorize } }
        : {}),
      ...(previous ? { reuse: previous.gateway.backends(), cursorCodec: previous.gateway.cursorCodec } : {}),
    })
    try {
      await checkToolNames(gateway.service, c.server.tool_names, options.file)
    } catch (error) {
      await gateway.close({ keep: new Set(previous?.gateway.backends().keys() ?? []) })
      throw error
    }
    return {
      gateway,
      config: c,
      service: policy ? applyMiddleware(gateway.service, policy.middleware) : gateway.service,
      auth,
      inFlight: 0,
    }
  }

  let current = await generation(config)
  const toolListeners = new Set<() => void>()
  const listListeners = new Set<(kind: CatalogKind) => void>()
  const updateListeners = new Set<(uri: string, subscribers: readonly string[]) => void>()
  let detach: () => void = () => {}
  const attach = (g: Generation) => {
    const offTools = g.gateway.onToolsChanged(() => {
      for (const l of [...toolListeners]) l()
    })
    const offList = g.gateway.catalog.onListChanged((kind) => {
      for (const l of [...listListeners]) l(kind)
    })
    const offUpdated = g.gateway.catalog.onResourceUpdated((uri, subscribers) => {
      for (const l of [...updateListeners]) l(uri, subscribers)
    })
    detach = () => {
      offTools()
      offList()
      offUpdated()
    }
  }
  attach(current)

  /** Runs `body` against the current generation, counting it in flight. */
  const tracked = async <A>(body: (g: Generation) => Promise<A>): Promise<A> => {
    const g = current
    g.inFlight++
    try {
      return await body(g)
    } finally {
      g.inFlight--
      if (g.inFlight === 0) g.retired?.()
    }
  }

  const service: ToolService = {
    listTools: (request) => current.service.listTools(request),
    callTool: (request) => tracked((g) => g.service.callTool(request)),
  }
  const cat = () => current.gateway.catalog
  const catalog: ResourceCatalog = {
    capabilities: () => cat().capabilities(),
    listResources: (r) => cat().listResources(r),
    listResourceTemplates: (r) => cat().listResourceTemplates(r),
    readResource: (uri, ctx) => tracked((g) => g.gateway.catalog.readResource(uri, ctx)),
    subscribe: (uri, subscriber, ctx: ExecutionContext) => cat().subscribe(uri, subscriber, ctx),
    unsubscribe: (uri, subscriber) => cat().unsubscribe(uri, subscriber),
    unsubscribeAll: (subscriber) => cat().unsubscribeAll(subscriber),
    onResourceUpdated: (listener) => {
      updateListeners.add(listener)
      return () => updateListeners.delete(listener)
    },
    listPrompts: (r) => cat().listPrompts(r),
    getPrompt: (name, args, ctx) => tracked((g) => g.gateway.catalog.getPrompt(name, args, ctx)),
    complete: (request, ctx) => cat().complete(request, ctx),
    onListChanged: (listener) => {
      listListeners.add(listener)
      return () => listListeners.delete(listener)
    },
    close: () => {},
  }
  const auth: McpHttpAuth | undefined = current.auth
    ? {
        get authorizationServers() {
          return current.auth?.authorizationServers
        },
        get requiredScopes() {
          return current.auth?.requiredScopes
        },
        get scopesSupported() {
          return current.auth?.scopesSupported
        },
        verify: (token) =>
          current.auth
            ? current.auth.verify(token)
            : Promise.resolve({ error: "invalid_token", description: "authentication was turned off" }),
      }
    : undefined

  /** Closes a retired generation once its calls in flight are done (or after `graceMs`). */
  const retire = (g: Generation, keep: ReadonlySet<string>, graceMs = 30_000) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        g.retired = undefined
        g.gateway.close({ keep }).then(resolve, resolve)
      }
      const timer = setTimeout(done, graceMs)
      timer.unref?.()
      if (g.inFlight === 0) done()
      else g.retired = done
    })

  let queue: Promise<unknown> = Promise.resolve()
  const retiring: Promise<void>[] = []
  const reload = (load: () => Promise<GatewayConfig>): Promise<ReloadOutcome> => {
    const run = async (): Promise<ReloadOutcome> => {
      let next: Generation
      const before = current
      try {
        next = await generation(await load(), before)
      } catch (error) {
        return { ok: false, error }
      }
      const oldBackends = before.gateway.backends()
      const newBackends = next.gateway.backends()
      const keep = new Set(
        [...newBackends].filter(([n, b]) => oldBackends.get(n)?.backend === b.backend).map(([n]) => n),
      )
      const names = (c: GatewayConfig) => new Set(c.backends.map((b) => b.name))
      const oldNames = names(before.config)
      const newNames = names(next.config)
      const restartNeeded = [
        ...(before.config.server.transport !== next.config.server.transport ? ["server.transport"] : []),
        ...(before.config.server.host !== next.config.server.host ? ["server.host"] : []),
        ...(before.config.server.port !== next.config.server.port ? ["server.port"] : []),
        ...(before.config.server.tool_names !== next.config.server.tool_names ? ["server.tool_names"] : []),
        ...(Boolean(before.auth) !== Boolean(next.auth) ? ["server.auth (turning it on or off)"] : []),
      ]
      detach()
      current = next
      attach(next)
      retiring.push(retire(before, keep))
      for (const l of [...toolListeners]) l()
      for (const l of [...listListeners]) {
        l("resources")
        l("prompts")
      }
      return {
        ok: true,
        added: [...newNames].filter((n) => !oldNames.has(n)),
        removed: [...oldNames].filter((n) => !newNames.has(n)),
        changed: [...newNames].filter((n) => oldNames.has(n) && !keep.has(n)),
        tools: (await listAllTools(next.gateway.service)).length,
        restartNeeded,
      }
    }
    const result = queue.then(run, run)
    queue = result.catch(() => {})
    return result
  }

  return {
    service,
    catalog,
    auth,
    watch: (notify) => {
      toolListeners.add(notify)
      return () => toolListeners.delete(notify)
    },
    current: () => current.gateway,
    reload,
    close: async () => {
      await queue
      detach()
      await Promise.all(retiring)
      await current.gateway.close()
    },
  }
}
