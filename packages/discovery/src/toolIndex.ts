import { checkTool } from "./internal/toolFields.js"
import type { SearchableTool } from "./searchableTool.js"
import { SearchError } from "./searchError.js"

/**
 * A change of the tool index, delivered synchronously to subscribers.
 *
 * @since 0.1.0
 */
export type ToolChangeEvent<T extends SearchableTool = SearchableTool> =
  | { readonly type: "registered"; readonly tool: T; readonly source: string | undefined }
  | { readonly type: "updated"; readonly tool: T; readonly previous: T; readonly source: string | undefined }
  | { readonly type: "removed"; readonly tool: T; readonly source: string | undefined }

/**
 * Listener of {@link ToolChangeEvent}s.
 *
 * @since 0.1.0
 */
export type ToolChangeListener<T extends SearchableTool = SearchableTool> = (
  event: ToolChangeEvent<T>,
) => void

/**
 * Options of {@link ToolIndex.register}.
 *
 * @since 0.1.0
 */
export interface RegisterOptions {
  /** The backend or source the tool comes from (used by `unregisterSource`/`replaceSource`). */
  readonly source?: string
}

interface Entry<T> {
  tool: T
  source: string | undefined
  fingerprint: string
}

/**
 * The registry of tools: O(1) get by id, per-source registration, namespace listing and
 * change events that searchers use to update incrementally.
 *
 * @example
 * const index = new ToolIndex()
 * index.subscribe((e) => console.log(e.type, e.tool.id))
 * index.register({ id: "github/create_issue", namespace: "github", name: "create_issue", inputSchema: {} }, { source: "github" })
 * @since 0.1.0
 */
export class ToolIndex<T extends SearchableTool = SearchableTool> {
  private readonly entries = new Map<string, Entry<T>>()
  private readonly bySource = new Map<string, Set<string>>()
  private readonly namespaceCounts = new Map<string, number>()
  private readonly listeners = new Set<ToolChangeListener<T>>()

  /** Creates an index, optionally pre-filled. */
  constructor(tools: Iterable<T> = [], options: RegisterOptions = {}) {
    for (const t of tools) this.register(t, options)
  }

  /** Number of registered tools. */
  get size(): number {
    return this.entries.size
  }

  /** The tool with this id, or `undefined` (O(1)). */
  get(id: string): T | undefined {
    return this.entries.get(id)?.tool
  }

  /** Whether a tool with this id is registered. */
  has(id: string): boolean {
    return this.entries.has(id)
  }

  /** The source a tool was registered from. */
  sourceOf(id: string): string | undefined {
    return this.entries.get(id)?.source
  }

  /** All tools (registration order), optionally of one namespace or source. */
  list(filter: { readonly namespace?: string; readonly source?: string } = {}): T[] {
    const out: T[] = []
    if (filter.source !== undefined) {
      for (const id of this.bySource.get(filter.source) ?? []) {
        const e = this.entries.get(id)!
        if (filter.namespace === undefined || e.tool.namespace === filter.namespace) out.push(e.tool)
      }
      return out
    }
    for (const e of this.entries.values()) {
      if (filter.namespace === undefined || e.tool.namespace === filter.namespace) out.push(e.tool)
    }
    return out
  }

  /** Namespaces with at least one tool, sorted. */
  namespaces(): string[] {
    return [...this.namespaceCounts.keys()].sort()
  }

  /** Number of tools per namespace, sorted by namespace. */
  namespaceSizes(): { namespace: string; count: number }[] {
    return this.namespaces().map((namespace) => ({ namespace, count: this.namespaceCounts.get(namespace)! }))
  }

  /** Sources with at least one tool, sorted. */
  sources(): string[] {
    return [...this.bySource.keys()].sort()
  }

  /**
   * Subscribes to change events; returns the unsubscribe function.
   * Listeners are called synchronously, in subscription order.
   */
  subscribe(listener: ToolChangeListener<T>): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /**
   * Registers a tool, or updates the registered tool with the same id (an `updated` event
   * fires only when the content or source changed). Throws {@link SearchError} on an invalid tool.
   */
  register(tool: T, options: RegisterOptions = {}): ToolChangeEvent<T>["type"] | "unchanged" {
    const problem = checkTool(tool)
    if (problem !== undefined) throw new SearchError("InvalidTool", problem)
    const source = options.source
    const fingerprint = fingerprintOf(tool)
    const prev = this.entries.get(tool.id)
    if (prev !== undefined) {
      if (prev.fingerprint === fingerprint && prev.source === source) return "unchanged"
      this.detach(tool.id, prev)
      this.attach(tool.id, { tool, source, fingerprint })
      this.emit({ type: "updated", tool, previous: prev.tool, source })
      return "updated"
    }
    this.attach(tool.id, { tool, source, fingerprint })
    this.emit({ type: "registered", tool, source })
    return "registered"
  }

  /** Registers several tools (each as {@link register}). */
  registerAll(tools: Iterable<T>, options: RegisterOptions = {}): void {
    for (const t of tools) this.register(t, options)
  }

  /** Removes a tool; returns whether it was registered. */
  unregister(id: string): boolean {
    const prev = this.entries.get(id)
    if (prev === undefined) return false
    this.detach(id, prev)
    this.emit({ type: "removed", tool: prev.tool, source: prev.source })
    return true
  }

  /** Removes every tool of a source; returns how many were removed. */
  unregisterSource(source: string): number {
    const ids = [...(this.bySource.get(source) ?? [])]
    for (const id of ids) this.unregister(id)
    return ids.length
  }

  /**
   * Makes a source hold exactly `tools`: removes its tools that are absent, updates changed
   * ones and registers new ones (only the differences emit events).
   */
  replaceSource(
    source: string,
    tools: Iterable<T>,
  ): { registered: number; updated: number; removed: number } {
    const next = new Map<string, T>()
    for (const t of tools) next.set(t.id, t)
    let removed = 0
    for (const id of [...(this.bySource.get(source) ?? [])]) {
      if (!next.has(id)) {
        this.unregister(id)
        removed++
      }
    }
    let registered = 0
    let updated = 0
    for (const t of next.values()) {
      const r = this.register(t, { source })
      if (r === "registered") registered++
      else if (r === "updated") updated++
    }
    return { registered, updated, removed }
  }

  /** Removes every tool. */
  clear(): void {
    for (const id of [...this.entries.keys()]) this.unregister(id)
  }

  private attach(id: string, e: Entry<T>): void {
    this.entries.set(id, e)
    if (e.source !== undefined) {
      let s = this.bySource.get(e.source)
      if (s === undefined) {
        s = new Set()
        this.bySource.set(e.source, s)
      }
      s.add(id)
    }
    this.namespaceCounts.set(e.tool.namespace, (this.namespaceCounts.get(e.tool.namespace) ?? 0) + 1)
  }

  private detach(id: string, e: Entry<T>): void {
    this.entries.delete(id)
    if (e.source !== undefined) {
      const s = this.bySource.get(e.source)
      s?.delete(id)
      if (s?.size === 0) this.bySource.delete(e.source)
    }
    const c = (this.namespaceCounts.get(e.tool.namespace) ?? 1) - 1
    if (c <= 0) this.namespaceCounts.delete(e.tool.namespace)
    else this.namespaceCounts.set(e.tool.namespace, c)
  }

  private emit(event: ToolChangeEvent<T>): void {
    // Every listener sees every change (the Searcher among them), even when another listener throws;
    // the change itself is already applied, so a throw is reported asynchronously instead of undoing it.
    for (const l of [...this.listeners]) {
      try {
        l(event)
      } catch (error) {
        queueMicrotask(() => {
          throw error
        })
      }
    }
  }
}

function fingerprintOf(tool: SearchableTool): string {
  try {
    return stableStringify(tool)
  } catch {
    // cyclic or otherwise unserialisable: treat every registration as a change
    return `${Math.random()}`
  }
}

function stableStringify(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "undefined"
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(",")}]`
  const keys = Object.keys(v).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify((v as Record<string, unknown>)[k])}`).join(",")}}`
}
