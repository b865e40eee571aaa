/**
 * Learning intent examples from use: a `search_tools` query followed, by the same caller and within a
 * time window, by a successful `call_tool` of one of its hits becomes an intent example of that tool.
 * Bounded per tool (the oldest example goes first), deduplicated by text, persisted through an
 * {@link IntentStore}.
 */
import type { IntentStore } from "../intentStore.js"
import { exampleKey } from "./intentExampleIndex.js"

interface LastSearch {
  readonly query: string
  readonly hits: ReadonlySet<string>
  readonly at: number
}

/** Caller keys remembered at most (the oldest is forgotten first). */
const MAX_CALLERS = 10_000

export class IntentLearner {
  private readonly learned = new Map<string, string[]>()
  private readonly lastSearch = new Map<string, LastSearch>()
  private loading: Promise<void> | undefined
  private saving: Promise<void> = Promise.resolve()

  constructor(
    private readonly store: IntentStore,
    private readonly maxPerTool: number,
    private readonly windowMs: number,
    private readonly maxQueryLength: number,
    private readonly now: () => number,
    /** Called with the tool id after its learned examples changed. */
    private readonly onLearned: (toolId: string) => void,
    /** Told about a failed save (the learned example stays in memory). */
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Loads the store once (concurrent callers share the load). */
  ready(): Promise<void> {
    this.loading ??= this.store.load().then((data) => {
      for (const [id, list] of Object.entries(data)) this.learned.set(id, list.slice(-this.maxPerTool))
    })
    return this.loading
  }

  /** The learned examples of a tool. */
  intentsOf(toolId: string): readonly string[] | undefined {
    return this.learned.get(toolId)
  }

  /** Remembers a caller's search and its hits. */
  searched(caller: string, query: string, hits: readonly string[]): void {
    if (query.trim().length === 0 || query.length > this.maxQueryLength) return
    this.lastSearch.delete(caller)
    this.lastSearch.set(caller, { query, hits: new Set(hits), at: this.now() })
    if (this.lastSearch.size > MAX_CALLERS) this.lastSearch.delete(this.lastSearch.keys().next().value!)
  }

  /** A successful call: learns the caller's last query for the tool when the tool was one of its hits. */
  called(caller: string, toolId: string): void {
    const last = this.lastSearch.get(caller)
    if (last === undefined || !last.hits.has(toolId) || this.now() - last.at > this.windowMs) return
    const list = this.learned.get(toolId) ?? []
    const key = exampleKey(last.query)
    const i = list.findIndex((x) => exampleKey(x) === key)
    if (i >= 0) list.splice(i, 1)
    list.push(last.query.trim())
    while (list.length > this.maxPerTool) list.shift()
    this.learned.set(toolId, list)
    this.onLearned(toolId)
    const snapshot = [...list]
    this.saving = this.saving.then(() => this.store.save(toolId, snapshot)).catch(this.onError)
  }

  /** Resolves when every save so far has finished. */
  flushed(): Promise<void> {
    return this.saving
  }
}
