/**
 * Shared plumbing for middleware that change the listing: a full, sorted listing of the inner service
 * (cached per caller for a short time, dropped at once when the tool list changes), re-paginated with
 * this layer's own signed cursors.
 *
 * Layers of this package hand each other their full listing through {@link FULL_LISTING} instead of
 * walking each other's pages; any other service is read with `listAllTools`.
 */
import {
  byId,
  type CallToolRequest,
  ConfigError,
  type CursorCodec,
  type ExecutionContext,
  type ExecutionContextInit,
  type ListToolsRequest,
  listAllTools,
  makeCursorCodec,
  paginateTools,
  randomCursorKey,
  type Tool,
  type ToolPage,
  type ToolResult,
  type ToolService,
} from "@toolplane/foundation"

/** @internal */
export const FULL_LISTING: unique symbol = Symbol.for("@toolplane/compose/fullListing") as never

type Ctx = ExecutionContext | ExecutionContextInit | undefined

/** @internal */
export interface ListingService extends ToolService {
  readonly [FULL_LISTING]: (context: Ctx) => Promise<readonly Tool[]>
}

/**
 * Options every listing-changing middleware accepts.
 *
 * @since 0.1.0
 */
export interface ListingOptions {
  /** Signs this layer's listing cursors. Share one codec (same keys) across replicas. Default: a random key per process. */
  readonly codec?: CursorCodec
  /** Tools per page. Default 100. */
  readonly pageSize?: number
  /** How long the inner listing is reused before it is read again, per caller. Default 1000 ms; 0 reads it on every request. */
  readonly listingTtlMs?: number
  /**
   * Tells this layer when the inner tool list changes, so it drops its cached listing at once instead of
   * serving it until `listingTtlMs` runs out: called once per cache with a listener, returns an
   * unsubscribe function. Typically `(listener) => runner.registry.onChange(listener)`; the listener must
   * run before clients are told the list changed (`notifications/tools/list_changed`), so they re-list
   * fresh data.
   */
  readonly changes?: ToolListChanges
}

/**
 * Subscribes to changes of the inner tool list (see {@link ListingOptions.changes}).
 *
 * @since 0.1.0
 */
export type ToolListChanges = (onChange: () => void) => () => void

/** The full listing of any service (fast path for this package's layers). @internal */
export const fullListing = (service: ToolService, context: Ctx): Promise<readonly Tool[]> => {
  const fast = (service as Partial<ListingService>)[FULL_LISTING]
  if (fast) return fast(context)
  return listAllTools(service, context ? { context } : {})
}

/** A sorted listing and its index. @internal */
export interface Snapshot {
  readonly tools: readonly Tool[]
  readonly byId: ReadonlyMap<string, Tool>
}

/** @internal */
export const snapshotOf = (tools: readonly Tool[]): Snapshot => {
  const sorted = [...tools].sort(byId)
  return { tools: sorted, byId: new Map(sorted.map((t) => [t.id, t])) }
}

interface Entry {
  /** Set when a load finishes, cleared by a timer `ttlMs` later (no clock read on the hot path). */
  fresh: boolean
  value?: Snapshot
  pending?: Promise<Snapshot> | undefined
}

const MAX_CALLERS = 256

/**
 * Per-caller cache of a derived listing. With `changes`, every change of the inner tool list empties
 * it and bumps a generation, so a load that started before the change may still answer its own
 * callers but is never stored as fresh.
 *
 * @internal
 */
export class ListingCache {
  readonly #entries = new Map<string, Entry>()
  #generation = 0
  constructor(
    readonly load: (context: Ctx) => Promise<Snapshot>,
    readonly ttlMs: number,
    changes?: ToolListChanges,
  ) {
    // nothing is kept with ttlMs 0, so nothing to invalidate (and no subscription to leak)
    if (changes && ttlMs > 0) changes(() => this.clear())
  }

  /** The cached snapshot when it is fresh, without waiting. */
  peek(context: Ctx): Snapshot | undefined {
    const entry = this.#entries.get(context?.callerId ?? "")
    return entry?.fresh ? entry.value : undefined
  }

  get(context: Ctx): Promise<Snapshot> {
    const key = context?.callerId ?? ""
    const entry = this.#entries.get(key)
    if (entry?.fresh) return Promise.resolve(entry.value!)
    if (entry?.pending) return entry.pending
    const next: Entry = entry ?? { fresh: false }
    const generation = this.#generation
    const pending = this.load(context).then(
      (value) => {
        if (generation !== this.#generation) return value // read before a change: answer, do not keep
        next.value = value
        next.pending = undefined
        if (this.ttlMs > 0) {
          next.fresh = true
          setTimeout(() => {
            next.fresh = false
          }, this.ttlMs).unref?.()
        }
        return value
      },
      (error: unknown) => {
        if (generation === this.#generation) next.pending = undefined
        throw error
      },
    )
    next.pending = pending
    if (this.ttlMs > 0) {
      if (!entry && this.#entries.size >= MAX_CALLERS) {
        const oldest = this.#entries.keys().next().value
        if (oldest !== undefined) this.#entries.delete(oldest)
      }
      this.#entries.set(key, next)
    }
    return pending
  }

  /** Forgets every cached listing, including loads in flight. */
  clear(): void {
    this.#generation++
    this.#entries.clear()
  }
}

/** Resolved listing options. @internal */
export interface ResolvedListing {
  readonly codec: CursorCodec
  readonly pageSize: number
  readonly ttlMs: number
  readonly changes?: ToolListChanges
}

let defaultCodec: CursorCodec | undefined

/** @internal */
export const resolveListing = (options: ListingOptions = {}, path = "listing"): ResolvedListing => {
  const pageSize = options.pageSize ?? 100
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new ConfigError({ path: `${path}.pageSize`, reason: `must be a positive integer, got ${pageSize}` })
  const ttlMs = options.listingTtlMs ?? 1000
  if (!(ttlMs >= 0))
    throw new ConfigError({ path: `${path}.listingTtlMs`, reason: `must be >= 0, got ${ttlMs}` })
  if (options.changes !== undefined && typeof options.changes !== "function")
    throw new ConfigError({ path: `${path}.changes`, reason: "must be a function (listener) => unsubscribe" })
  if (!options.codec && !defaultCodec) defaultCodec = makeCursorCodec({ keys: [randomCursorKey("compose")] })
  return {
    codec: options.codec ?? defaultCodec!,
    pageSize,
    ttlMs,
    ...(options.changes ? { changes: options.changes } : {}),
  }
}

/**
 * Builds a service whose listing is `derive(inner full listing)`, sorted and paginated with this layer's
 * cursors (bound to `purpose` and the caller), and whose calls go to `call`.
 *
 * @internal
 */
export const listingService = (options: {
  readonly next: ToolService
  readonly purpose: string
  readonly listing: ResolvedListing
  readonly derive: (inner: readonly Tool[], context: Ctx) => readonly Tool[]
  readonly call: (request: CallToolRequest, cache: ListingCache) => Promise<ToolResult>
}): ListingService => {
  const { next, purpose, listing, derive } = options
  const cache = new ListingCache(
    async (context) => snapshotOf(derive(await fullListing(next, context), context)),
    listing.ttlMs,
    listing.changes,
  )
  return {
    listTools: async (request: ListToolsRequest = {}): Promise<ToolPage> => {
      const snapshot = await cache.get(request.context)
      return paginateTools(snapshot.tools, {
        codec: listing.codec,
        pageSize: listing.pageSize,
        cursor: request.cursor,
        caller: request.context?.callerId,
        purpose,
      })
    },
    callTool: (request) => options.call(request, cache),
    [FULL_LISTING]: (context) => cache.get(context).then((s) => s.tools),
  }
}

/** Looks a tool up in the cached listing, synchronously when the cache is fresh. @internal */
export const lookup = (
  cache: ListingCache,
  context: Ctx,
  id: string,
): Tool | undefined | Promise<Tool | undefined> => {
  const fresh = cache.peek(context)
  if (fresh) return fresh.byId.get(id)
  return cache.get(context).then((s) => s.byId.get(id))
}
