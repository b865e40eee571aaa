/**
 * The backend registry: which backend serves which tool id. A second backend claiming an id is a
 * {@link ToolConflict} unless a selection policy decides; unregistering a backend removes all its tools
 * (and lets a shadowed claimant take over).
 *
 * @since 0.1.0
 */
import type { Backend } from "./backend.js"
import { byId, type Tool } from "./tool.js"
import { ConfigError, ToolConflict } from "./toolError.js"

/**
 * Decides which backend serves an id several backends claim. `"error"` (the default) refuses the
 * registration; `"first"` keeps the earliest; `"last"` lets the newest win; a function picks.
 *
 * @since 0.1.0
 */
export type SelectionPolicy =
  | "error"
  | "first"
  | "last"
  | ((toolId: string, candidates: readonly RegisteredTool[]) => RegisteredTool)

/**
 * A tool and the backend that serves it.
 *
 * @since 0.1.0
 */
export interface RegisteredTool {
  readonly tool: Tool
  readonly backend: Backend
}

/**
 * A backend's health as reported by {@link BackendRegistry.health}.
 *
 * @since 0.1.0
 */
export interface BackendHealth {
  readonly healthy: boolean
  readonly tools: number
  readonly error?: string
}

/** @since 0.1.0 */
export interface BackendRegistryOptions {
  readonly selection?: SelectionPolicy
  /** Health checks slower than this count as unhealthy. Default 5000 ms. */
  readonly healthTimeoutMs?: number
}

/**
 * Maps tool ids to backends.
 *
 * @since 0.1.0
 */
export class BackendRegistry {
  readonly #selection: SelectionPolicy
  readonly #healthTimeoutMs: number
  readonly #backends = new Map<string, Backend>()
  readonly #toolsOf = new Map<string, readonly Tool[]>()
  readonly #claims = new Map<string, RegisteredTool[]>()
  readonly #resolved = new Map<string, RegisteredTool>()
  readonly #listeners = new Set<() => void>()
  /** Registration order of each backend: claims stay in it across refreshes, so "first"/"last" are stable. */
  readonly #order = new Map<string, number>()
  #registrations = 0
  #sorted: readonly Tool[] | undefined
  #version = 0

  constructor(options: BackendRegistryOptions = {}) {
    this.#selection = options.selection ?? "error"
    this.#healthTimeoutMs = options.healthTimeoutMs ?? 5000
  }

  /** Increases on every change; lets callers cache derived data. */
  get version(): number {
    return this.#version
  }

  /**
   * Registers a backend and its tools. Fails with {@link ConfigError} for a duplicate backend name and
   * {@link ToolConflict} when the selection policy is `"error"` and an id is already served; on failure
   * nothing is registered.
   */
  async register(backend: Backend): Promise<void> {
    if (this.#backends.has(backend.name)) {
      throw new ConfigError({
        path: `backends.${backend.name}`,
        reason: `a backend named "${backend.name}" is already registered`,
      })
    }
    const tools = await backend.toolSchemas()
    this.registerTools(backend, tools)
  }

  /** Registers a backend with an already known tool list (synchronous form of {@link register}). */
  registerTools(backend: Backend, tools: readonly Tool[]): void {
    if (this.#backends.has(backend.name)) {
      throw new ConfigError({
        path: `backends.${backend.name}`,
        reason: `a backend named "${backend.name}" is already registered`,
      })
    }
    this.#checkConflicts(backend, tools)
    this.#backends.set(backend.name, backend)
    this.#order.set(backend.name, this.#registrations++)
    this.#attach(backend, tools)
    this.#changed()
  }

  /** Removes a backend and all its tools. Returns whether it was registered. */
  unregister(name: string): boolean {
    const backend = this.#backends.get(name)
    if (!backend) return false
    this.#detach(backend)
    this.#backends.delete(name)
    this.#order.delete(name)
    this.#changed()
    return true
  }

  /** Re-reads a backend's tools (for example after a list-changed notification). */
  async refresh(name: string): Promise<void> {
    const backend = this.#backends.get(name)
    if (!backend) return
    const tools = await backend.toolSchemas()
    if (this.#backends.get(name) !== backend) return
    const previous = this.#toolsOf.get(name) ?? []
    this.#detach(backend)
    try {
      this.#checkConflicts(backend, tools)
    } catch (error) {
      this.#attach(backend, previous)
      throw error
    }
    this.#attach(backend, tools)
    this.#changed()
  }

  /** The tool and backend serving `toolId`, or `undefined`. O(1). */
  resolve(toolId: string): RegisteredTool | undefined {
    return this.#resolved.get(toolId)
  }

  /** A registered backend by name. */
  backend(name: string): Backend | undefined {
    return this.#backends.get(name)
  }

  /** All registered backends, sorted by name. */
  backends(): Backend[] {
    return [...this.#backends.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  /** Every served tool, sorted by id. The array is shared until the next change: do not mutate it. */
  tools(): readonly Tool[] {
    if (!this.#sorted) this.#sorted = [...this.#resolved.values()].map((r) => r.tool).sort(byId)
    return this.#sorted
  }

  /** Every served id, sorted. */
  toolIds(): string[] {
    return this.tools().map((t) => t.id)
  }

  /** Runs every backend's health check concurrently (a throwing or slow check counts as unhealthy). */
  async health(): Promise<Record<string, BackendHealth>> {
    const entries = await Promise.all(
      this.backends().map(async (backend): Promise<[string, BackendHealth]> => {
        const tools = this.#toolsOf.get(backend.name)?.length ?? 0
        let timer: ReturnType<typeof setTimeout> | undefined
        try {
          const healthy = await Promise.race([
            backend.healthCheck(),
            new Promise<boolean>((_, reject) => {
              timer = setTimeout(
                () => reject(new Error(`health check exceeded ${this.#healthTimeoutMs} ms`)),
                this.#healthTimeoutMs,
              )
            }),
          ])
          return [backend.name, { healthy, tools }]
        } catch (error) {
          return [backend.name, { healthy: false, tools, error: (error as Error)?.message ?? String(error) }]
        } finally {
          clearTimeout(timer)
        }
      }),
    )
    return Object.fromEntries(entries)
  }

  /** Calls `listener` after every change; returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #checkConflicts(backend: Backend, tools: readonly Tool[]): void {
    const seen = new Set<string>()
    for (const tool of tools) {
      if (seen.has(tool.id))
        throw new ToolConflict({ toolId: tool.id, backends: [backend.name, backend.name] })
      seen.add(tool.id)
      if (this.#selection !== "error") continue
      const existing = this.#resolved.get(tool.id)
      if (existing && existing.backend !== backend) {
        throw new ToolConflict({ toolId: tool.id, backends: [existing.backend.name, backend.name] })
      }
    }
  }

  #attach(backend: Backend, tools: readonly Tool[]): void {
    this.#toolsOf.set(backend.name, tools)
    for (const tool of tools) {
      const claim = { tool, backend }
      const claims = this.#claims.get(tool.id)
      if (claims) {
        const rank = this.#order.get(backend.name) ?? Number.MAX_SAFE_INTEGER
        const at = claims.findIndex((c) => (this.#order.get(c.backend.name) ?? 0) > rank)
        if (at < 0) claims.push(claim)
        else claims.splice(at, 0, claim)
      } else this.#claims.set(tool.id, [claim])
      this.#decide(tool.id)
    }
  }

  #detach(backend: Backend): void {
    for (const tool of this.#toolsOf.get(backend.name) ?? []) {
      const claims = this.#claims.get(tool.id)?.filter((c) => c.backend !== backend) ?? []
      if (claims.length === 0) this.#claims.delete(tool.id)
      else this.#claims.set(tool.id, claims)
      this.#decide(tool.id)
    }
    this.#toolsOf.delete(backend.name)
  }

  #decide(toolId: string): void {
    const claims = this.#claims.get(toolId)
    if (!claims || claims.length === 0) {
      this.#resolved.delete(toolId)
      return
    }
    const policy = this.#selection
    const chosen =
      claims.length === 1
        ? claims[0]!
        : policy === "last"
          ? claims[claims.length - 1]!
          : typeof policy === "function"
            ? policy(toolId, claims)
            : claims[0]!
    this.#resolved.set(toolId, chosen)
  }

  #changed(): void {
    this.#sorted = undefined
    this.#version++
    for (const listener of this.#listeners) listener()
  }
}
