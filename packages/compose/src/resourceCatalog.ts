/**
 * The resource catalog of a gateway: resources, resource templates, prompts and completions of every
 * backend that provides them, merged into one {@link ResourceCatalog} that a server exposes.
 *
 * - **Names cannot collide.** Prompt names are namespaced by backend (`docs.summarize`) with
 *   `promptNames: "dotted"` (the default), or served bare with `"name"`, where a name two backends both
 *   use falls back to the dotted form for both. Resource URIs are served unchanged unless two backends
 *   list the same URI; both are then served as `toolplane://<backend>/<percent-encoded URI>`, a form the
 *   catalog reverses on read, subscribe and completion.
 * - **Reads are routed** to the backend that listed the URI, else to backends whose templates match it,
 *   else (a `resource_link` a tool returned, say) to each visible backend in turn until one has it.
 * - **Pages** are cut with signed cursors (keyset on the served URI or name, bound to the caller), like
 *   tool listings.
 * - **Visibility**: `visible` decides per caller and item (scopes, hidden backends); hidden items are
 *   absent from listings, and reading, getting, completing or subscribing to one is not-found, as for
 *   tools, whatever form its reference takes (a qualified `toolplane://` URI included) and whoever
 *   subscribed to it before.
 * - **Subscriptions** are counted per backend and URI: a backend is subscribed once however many
 *   sessions subscribe, and its `resources/updated` reaches exactly the subscribed sessions.
 *
 * @since 0.1.0
 */
import {
  type CatalogKind,
  type CatalogListRequest,
  type CatalogPage,
  type CompleteRequest,
  type Completion,
  type CursorCodec,
  type ExecutionContext,
  isToolError,
  makeCursorCodec,
  type Prompt,
  PromptNotFound,
  type Resource,
  type ResourceCapabilities,
  type ResourceCatalog,
  ResourceNotFound,
  type ResourceProvider,
  type ResourceTemplate,
  randomCursorKey,
  suggestToolIds,
} from "@toolplane/foundation"

/**
 * One backend's provider.
 *
 * @since 0.1.0
 */
export interface CatalogSource {
  /** The backend name (the namespace of its prompt names). */
  readonly name: string
  readonly provider: ResourceProvider
}

/**
 * An item a caller may or may not see.
 *
 * @since 0.1.0
 */
export interface CatalogItemRef {
  readonly source: string
  readonly kind: "resource" | "resourceTemplate" | "prompt"
  /** The backend's own URI, URI template or prompt name. */
  readonly name: string
}

/**
 * Options of {@link resourceCatalog}.
 *
 * @since 0.1.0
 */
export interface ResourceCatalogOptions {
  /** Signs listing cursors. Default: a random per-process key. */
  readonly codec?: CursorCodec
  /** Items per page. Default 100. */
  readonly pageSize?: number
  /** `"dotted"` (default): `backend.prompt`; `"name"`: bare names, dotted only where two clash. */
  readonly promptNames?: "dotted" | "name"
  /** Whether the caller of `ctx` may see an item. Default: everything is visible. */
  readonly visible?: (item: CatalogItemRef, ctx: ExecutionContext) => boolean
  /** How long a merged listing is reused. Default 2000 ms; dropped at once on a list change. */
  readonly listingTtlMs?: number
}

/**
 * A {@link ResourceCatalog} whose backends can be replaced (a backend connected late, a reloaded
 * configuration).
 *
 * @since 0.1.0
 */
export interface GatewayResourceCatalog extends ResourceCatalog {
  /** Replaces the set of backends; list-changed listeners are told about the kinds that changed. */
  setSources(sources: readonly CatalogSource[]): void
}

const COLLISION_PREFIX = "toolplane://"

/** The served URI of a URI two backends claim. */
const qualifiedUri = (source: string, uri: string): string =>
  `${COLLISION_PREFIX}${encodeURIComponent(source)}/${encodeURIComponent(uri)}`

const parseQualified = (uri: string): { source: string; uri: string } | undefined => {
  if (!uri.startsWith(COLLISION_PREFIX)) return undefined
  const rest = uri.slice(COLLISION_PREFIX.length)
  const slash = rest.indexOf("/")
  if (slash <= 0) return undefined
  try {
    return {
      source: decodeURIComponent(rest.slice(0, slash)),
      uri: decodeURIComponent(rest.slice(slash + 1)),
    }
  } catch {
    return undefined
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Whether `uri` is an expansion of an RFC 6570 URI template (levels 1–3, query forms included).
 *
 * @since 0.1.0
 */
export const matchesUriTemplate = (template: string, uri: string): boolean => {
  let pattern = ""
  let last = 0
  for (const match of template.matchAll(/\{([+#./;?&]?)([^}]*)\}/g)) {
    pattern += escapeRegExp(template.slice(last, match.index))
    const op = match[1]
    pattern +=
      op === "+" || op === "#"
        ? ".*"
        : op === "?" || op === "&"
          ? "(?:[?&][^#]*)?"
          : op === "/" || op === "." || op === ";"
            ? `(?:\\${op}[^/?#]*)*`
            : "[^/?#]*"
    last = match.index + match[0].length
  }
  pattern += escapeRegExp(template.slice(last))
  return new RegExp(`^${pattern}$`).test(uri)
}

interface Served<A> {
  readonly source: string
  /** The backend's own URI / template / name. */
  readonly original: string
  /** What the client sees. */
  readonly key: string
  readonly item: A
}

interface Listing<A> {
  readonly sorted: readonly Served<A>[]
  readonly byKey: ReadonlyMap<string, Served<A>>
}

const makeListing = <A>(entries: Served<A>[]): Listing<A> => {
  entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return { sorted: entries, byKey: new Map(entries.map((e) => [e.key, e])) }
}

/**
 * Merges the providers of many backends into one served catalog.
 *
 * @example
 * ```ts
 * import { makeContext, resourceProviderOf } from "@toolplane/foundation"
 *
 * const docs = myBackend()
 * const catalog = resourceCatalog([{ name: docs.name, provider: resourceProviderOf(docs)! }], { codec })
 * const page = await catalog.listResources({ context: makeContext() }) // serveHttp(service, { catalog })
 * ```
 * @since 0.1.0
 */
export const resourceCatalog = (
  initial: readonly CatalogSource[],
  options: ResourceCatalogOptions = {},
): GatewayResourceCatalog => {
  const codec = options.codec ?? makeCursorCodec({ keys: [randomCursorKey("catalog")] })
  const pageSize = Math.max(1, options.pageSize ?? 100)
  const promptNames = options.promptNames ?? "dotted"
  const visible = options.visible ?? (() => true)
  const ttl = options.listingTtlMs ?? 2000
  let sources: readonly CatalogSource[] = []
  const unsubscribers = new Map<string, () => void>()
  const listListeners = new Set<(kind: CatalogKind) => void>()
  const updateListeners = new Set<(uri: string, subscribers: readonly string[]) => void>()
  /** Merged listings (every visible-or-not item), cached briefly. */
  const cache = new Map<string, { at: number; value: Promise<Listing<unknown>> }>()
  /** Subscriptions: served URI → owner and subscribers. */
  const subscriptions = new Map<string, { source: string; original: string; subscribers: Set<string> }>()

  const fire = (kind: CatalogKind) => {
    for (const key of [...cache.keys()])
      if (key.startsWith(kind === "resources" ? "resource" : "prompt")) cache.delete(key)
    for (const listener of [...listListeners]) {
      try {
        listener(kind)
      } catch {
        // A listener's failure is not the catalog's.
      }
    }
  }

  const attach = (source: CatalogSource) => {
    const offList = source.provider.onListChanged?.((kind) => fire(kind)) ?? (() => {})
    const offUpdated =
      source.provider.onResourceUpdated?.((original) => {
        for (const [served, sub] of subscriptions)
          if (sub.source === source.name && sub.original === original)
            for (const listener of [...updateListeners]) listener(served, [...sub.subscribers])
      }) ?? (() => {})
    unsubscribers.set(source.name, () => {
      offList()
      offUpdated()
    })
  }

  const setSources = (next: readonly CatalogSource[]) => {
    const before = new Map(sources.map((s) => [s.name, s.provider]))
    for (const [name, off] of unsubscribers)
      if (!next.some((s) => s.name === name && s.provider === before.get(name))) {
        off()
        unsubscribers.delete(name)
      }
    sources = [...next]
    for (const source of sources) if (!unsubscribers.has(source.name)) attach(source)
    for (const [served, sub] of subscriptions)
      if (!sources.some((s) => s.name === sub.source)) subscriptions.delete(served)
    cache.clear()
    fire("resources")
    fire("prompts")
  }

  const offering = (kind: keyof ResourceCapabilities) =>
    sources.filter((s) => s.provider.capabilities()[kind] !== undefined)

  /** Settles every source's list; a backend that fails (down) is left out, not the whole listing. */
  const gather = async <A>(
    kind: keyof ResourceCapabilities,
    read: (provider: ResourceProvider) => Promise<readonly A[]> | undefined,
  ): Promise<{ source: string; items: readonly A[] }[]> => {
    const settled = await Promise.all(
      offering(kind).map(async (s) => {
        try {
          return { source: s.name, items: (await read(s.provider)) ?? [] }
        } catch {
          return { source: s.name, items: [] as readonly A[] }
        }
      }),
    )
    return settled
  }

  const cached = <A>(key: string, build: () => Promise<Listing<A>>): Promise<Listing<A>> => {
    const hit = cache.get(key)
    if (hit && Date.now() - hit.at < ttl) return hit.value as Promise<Listing<A>>
    const value = build()
    cache.set(key, { at: Date.now(), value: value as Promise<Listing<unknown>> })
    value.catch(() => cache.delete(key))
    return value
  }

  /** Served keys: the original unless two sources share it, then `qualify(source, original)` for both. */
  const disambiguate = <A>(
    lists: readonly { source: string; items: readonly A[] }[],
    keyOf: (item: A) => string,
    qualify: (source: string, key: string) => string,
    always: boolean,
  ): Served<A>[] => {
    const count = new Map<string, number>()
    for (const { items } of lists)
      for (const key of new Set(items.map(keyOf))) count.set(key, (count.get(key) ?? 0) + 1)
    return lists.flatMap(({ source, items }) =>
      items.map((item) => {
        const original = keyOf(item)
        const key = always || (count.get(original) ?? 0) > 1 ? qualify(source, original) : original
        return { source, original, key, item }
      }),
    )
  }

  const resources = (ctx: ExecutionContext) =>
    cached("resources", async () =>
      makeListing(
        disambiguate(
          await gather("resources", (p) => p.listResources?.(ctx)),
          (r: Resource) => r.uri,
          qualifiedUri,
          false,
        ),
      ),
    )
  const templates = (ctx: ExecutionContext) =>
    cached("resourceTemplates", async () =>
      makeListing(
        disambiguate(
          await gather("resources", (p) => p.listResourceTemplates?.(ctx)),
          (t: ResourceTemplate) => t.uriTemplate,
          (_source, key) => key,
          false,
        ),
      ),
    )
  const prompts = (ctx: ExecutionContext) =>
    cached("prompts", async () =>
      makeListing(
        disambiguate(
          await gather("prompts", (p) => p.listPrompts?.(ctx)),
          (p: Prompt) => p.name,
          (source, name) => `${source}.${name}`,
          promptNames === "dotted",
        ),
      ),
    )

  const page = <A>(
    listing: Listing<A>,
    kind: CatalogItemRef["kind"],
    purpose: string,
    request: CatalogListRequest,
    render: (served: Served<A>) => A,
  ): CatalogPage<A> => {
    const binding = {
      purpose,
      ...(request.context.callerId !== undefined ? { caller: request.context.callerId } : {}),
    }
    let after: string | undefined
    if (request.cursor !== undefined) {
      const position = codec.decode(request.cursor, binding).position
      after = typeof position === "string" ? position : undefined
    }
    const items: A[] = []
    let lastKey: string | undefined
    let more = false
    for (const served of listing.sorted) {
      if (after !== undefined && served.key <= after) continue
      if (!visible({ source: served.source, kind, name: served.original }, request.context)) continue
      if (items.length === pageSize) {
        more = true
        break
      }
      items.push(render(served))
      lastKey = served.key
    }
    return more && lastKey !== undefined ? { items, nextCursor: codec.encode(binding, lastKey) } : { items }
  }

  const sourceNamed = (name: string) => sources.find((s) => s.name === name)

  /** The backend (and its own URI) a served URI belongs to, in routing order. */
  const routesFor = async (
    uri: string,
    ctx: ExecutionContext,
  ): Promise<{ source: CatalogSource; uri: string }[]> => {
    const seen = (source: string, original: string) =>
      visible({ source, kind: "resource", name: original }, ctx)
    const qualified = parseQualified(uri)
    if (qualified) {
      const source = sourceNamed(qualified.source)
      return source && seen(source.name, qualified.uri) ? [{ source, uri: qualified.uri }] : []
    }
    const listed = (await resources(ctx)).byKey.get(uri)
    if (listed) {
      const source = sourceNamed(listed.source)
      return source && seen(listed.source, listed.original) ? [{ source, uri: listed.original }] : []
    }
    const byTemplate = (await templates(ctx)).sorted.filter(
      (t) =>
        matchesUriTemplate(t.original, uri) &&
        visible({ source: t.source, kind: "resourceTemplate", name: t.original }, ctx),
    )
    const candidates =
      byTemplate.length > 0 ? byTemplate.map((t) => sourceNamed(t.source)) : offering("resources")
    return [...new Set(candidates)]
      .filter((s): s is CatalogSource => s !== undefined && seen(s.name, uri))
      .map((source) => ({ source, uri }))
  }

  /** The served form of a backend's URI in read results. */
  const servedUri = (source: string, original: string, listing: Listing<Resource>): string => {
    const qualified = qualifiedUri(source, original)
    return listing.byKey.has(qualified) ? qualified : original
  }

  const resolvePrompt = async (name: string, ctx: ExecutionContext): Promise<Served<Prompt>> => {
    const listing = await prompts(ctx)
    const served = listing.byKey.get(name)
    if (served && visible({ source: served.source, kind: "prompt", name: served.original }, ctx))
      return served
    const names = listing.sorted
      .filter((p) => visible({ source: p.source, kind: "prompt", name: p.original }, ctx))
      .map((p) => p.key)
    throw new PromptNotFound({ name, suggestions: suggestToolIds(name, names) })
  }

  setSources(initial)

  return {
    setSources,
    capabilities: () => {
      const caps: { resources?: { subscribe?: boolean }; prompts?: {}; completions?: {} } = {}
      for (const s of sources) {
        const c = s.provider.capabilities()
        if (c.resources)
          caps.resources = {
            subscribe: (caps.resources?.subscribe ?? false) || c.resources.subscribe === true,
          }
        if (c.prompts) caps.prompts = {}
        if (c.completions) caps.completions = {}
      }
      return caps as ResourceCapabilities
    },
    listResources: async (request) =>
      page(await resources(request.context), "resource", "resources/list", request, (s) =>
        s.key === s.original ? s.item : { ...s.item, uri: s.key },
      ),
    listResourceTemplates: async (request) =>
      page(
        await templates(request.context),
        "resourceTemplate",
        "resources/templates/list",
        request,
        (s) => s.item,
      ),
    readResource: async (uri, ctx) => {
      const routes = await routesFor(uri, ctx)
      let notFound: unknown
      for (const route of routes) {
        if (!route.source.provider.readResource) continue
        try {
          const result = await route.source.provider.readResource(route.uri, ctx)
          if (route.uri === uri) return result
          const listing = await resources(ctx)
          return {
            ...result,
            contents: result.contents.map((c) =>
              c.uri === route.uri ? { ...c, uri: servedUri(route.source.name, c.uri, listing) } : c,
            ),
          }
        } catch (error) {
          // With several candidates, one that does not know the URI is not the answer.
          if (routes.length > 1 && isToolError(error) && error._tag === "ResourceNotFound") {
            notFound = error
            continue
          }
          throw error
        }
      }
      throw notFound ?? new ResourceNotFound({ uri })
    },
    subscribe: async (uri, subscriber, ctx) => {
      // Every subscriber passes the visibility check, whoever subscribed to the URI first.
      const [route] = (await routesFor(uri, ctx)).filter(
        (r) => r.source.provider.capabilities().resources?.subscribe === true,
      )
      if (!route) throw new ResourceNotFound({ uri })
      const existing = subscriptions.get(uri)
      if (existing) {
        if (existing.source !== route.source.name || existing.original !== route.uri)
          throw new ResourceNotFound({ uri })
        existing.subscribers.add(subscriber)
        return
      }
      const entry = { source: route.source.name, original: route.uri, subscribers: new Set([subscriber]) }
      subscriptions.set(uri, entry)
      try {
        await route.source.provider.subscribeResource?.(route.uri)
      } catch (error) {
        subscriptions.delete(uri)
        throw error
      }
    },
    unsubscribe: async (uri, subscriber) => {
      const entry = subscriptions.get(uri)
      if (!entry?.subscribers.delete(subscriber) || entry.subscribers.size > 0) return
      subscriptions.delete(uri)
      await sourceNamed(entry.source)
        ?.provider.unsubscribeResource?.(entry.original)
        .catch(() => {})
    },
    unsubscribeAll: async (subscriber) => {
      await Promise.all(
        [...subscriptions]
          .filter(([, e]) => e.subscribers.has(subscriber))
          .map(async ([uri, entry]) => {
            entry.subscribers.delete(subscriber)
            if (entry.subscribers.size > 0) return
            subscriptions.delete(uri)
            await sourceNamed(entry.source)
              ?.provider.unsubscribeResource?.(entry.original)
              .catch(() => {})
          }),
      )
    },
    onResourceUpdated: (listener) => {
      updateListeners.add(listener)
      return () => updateListeners.delete(listener)
    },
    listPrompts: async (request) =>
      page(await prompts(request.context), "prompt", "prompts/list", request, (s) =>
        s.key === s.original ? s.item : { ...s.item, name: s.key },
      ),
    getPrompt: async (name, args, ctx) => {
      const served = await resolvePrompt(name, ctx)
      const provider = sourceNamed(served.source)?.provider
      if (!provider?.getPrompt) throw new PromptNotFound({ name, suggestions: [] })
      return provider.getPrompt(served.original, args, ctx)
    },
    complete: async (request: CompleteRequest, ctx): Promise<Completion> => {
      const empty: Completion = { values: [], total: 0, hasMore: false }
      if (request.ref.type === "ref/prompt") {
        const served = await resolvePrompt(request.ref.name, ctx)
        const provider = sourceNamed(served.source)?.provider
        if (!provider?.complete || !provider.capabilities().completions) return empty
        return provider.complete({ ...request, ref: { type: "ref/prompt", name: served.original } }, ctx)
      }
      const uri = request.ref.uri
      const qualified = parseQualified(uri)
      const owners = qualified
        ? visible({ source: qualified.source, kind: "resourceTemplate", name: qualified.uri }, ctx)
          ? [{ source: qualified.source, original: qualified.uri }]
          : []
        : (await templates(ctx)).sorted
            .filter(
              (t) =>
                t.original === uri && visible({ source: t.source, kind: "resourceTemplate", name: uri }, ctx),
            )
            .map((t) => ({ source: t.source, original: t.original }))
      for (const owner of owners) {
        const provider = sourceNamed(owner.source)?.provider
        if (provider?.complete && provider.capabilities().completions)
          return provider.complete({ ...request, ref: { type: "ref/resource", uri: owner.original } }, ctx)
      }
      if (owners.length === 0) throw new ResourceNotFound({ uri })
      return empty
    },
    onListChanged: (listener) => {
      listListeners.add(listener)
      return () => listListeners.delete(listener)
    },
    close: () => {
      for (const off of unsubscribers.values()) off()
      unsubscribers.clear()
      listListeners.clear()
      updateListeners.clear()
      subscriptions.clear()
      cache.clear()
    },
  }
}
