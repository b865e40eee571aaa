/**
 * The resources, resource templates, prompts and completions of one MCP server, as a foundation
 * `ResourceProvider` attached to its backend: lists follow every upstream page, subscriptions are
 * re-sent after a reconnection, and the server's `list_changed` and `resources/updated` notifications
 * reach the provider's listeners.
 *
 * @since 0.1.0
 */
import type { Client } from "@modelcontextprotocol/client"
import {
  type GetPromptResult,
  ProtocolErrorCode,
  type ReadResourceResult,
  specTypeSchemas,
} from "@modelcontextprotocol/server"
import {
  BackendUnavailable,
  type CatalogKind,
  causeOf,
  type ExecutionContext,
  ExecutionFailed,
  PromptNotFound,
  type ResourceCapabilities,
  ResourceNotFound,
  type ResourceProvider,
  type ToolError,
} from "@toolplane/foundation"
import { z } from "zod"
import { isJsonRpcError, mcpFailureToToolError, unprefixed } from "../errors.js"
import { answerCallerInputs, callerCapabilities, MAX_INPUT_ROUNDS } from "./callerInputs.js"
import { CALL_CAPABILITIES } from "./era.js"

/** Any result (checked once complete: an `input_required` one has no `messages` or `contents`). */
const AnyResult = z.looseObject({})
/** SDK v2's result schemas (zod schemas, typed as Standard Schemas). */
const ReadResourceResultSchema = specTypeSchemas.ReadResourceResult as unknown as {
  parse(raw: unknown): ReadResourceResult
}
const GetPromptResultSchema = specTypeSchemas.GetPromptResult as unknown as {
  parse(raw: unknown): GetPromptResult
}

const isInputRequired = (
  raw: unknown,
): raw is { resultType: "input_required"; inputRequests?: unknown; requestState?: unknown } =>
  typeof raw === "object" && raw !== null && (raw as { resultType?: unknown }).resultType === "input_required"

/**
 * The provider and the hooks its backend's connection calls.
 *
 * @internal
 * @since 0.1.0
 */
export interface McpResourceSide {
  readonly provider: ResourceProvider
  /** Installs notification handlers on a fresh client. */
  setup(client: Client): void
  /** After a (re)connection: re-sends subscriptions, tells listeners the lists may have changed. */
  onConnected(client: Client): Promise<void>
  /** The URIs subscribed upstream (a modern backend's listen stream asks for their updates). */
  subscriptions(): readonly string[]
}

/** A page of a listing: its items, its cursor, and a modern server's `ttlMs` for it. */
interface Page<A> {
  readonly items: readonly A[]
  readonly nextCursor?: string | undefined
  readonly ttlMs?: unknown
}

/**
 * Follows `nextCursor` until the last page (at most `maxPages`); `ttlMs` is the shortest of the pages'
 * (absent when a page has none: a 2025 server).
 */
const allPages = async <A>(
  maxPages: number,
  fetch: (cursor: string | undefined) => Promise<Page<A>>,
): Promise<{ items: A[]; ttlMs?: number }> => {
  const out: A[] = []
  let cursor: string | undefined
  let ttlMs: number | undefined = Number.POSITIVE_INFINITY
  for (let i = 0; i < maxPages; i++) {
    const page = await fetch(cursor)
    out.push(...page.items)
    const ttl = page.ttlMs
    ttlMs =
      ttlMs !== undefined && typeof ttl === "number" && Number.isSafeInteger(ttl) && ttl >= 0
        ? Math.min(ttlMs, ttl)
        : undefined
    if (page.nextCursor === undefined || page.nextCursor === cursor) break
    cursor = page.nextCursor
  }
  return ttlMs === undefined || ttlMs === Number.POSITIVE_INFINITY ? { items: out } : { items: out, ttlMs }
}

/** The three listings a modern server's `ttlMs` keeps fresh. */
type ListKind = "resources" | "templates" | "prompts"

/**
 * Makes the resource side of an MCP backend.
 *
 * @internal
 * @since 0.1.0
 */
export const mcpResourceSide = (options: {
  readonly backend: string
  readonly connect: () => Promise<Client>
  readonly maxPages: number
  readonly timeoutMs: number
  /**
   * Whether the connection speaks the modern era, which has no `resources/subscribe`: subscriptions are
   * then carried by the backend's listen stream, told of each change by `onSubscriptionsChanged`.
   */
  readonly modern?: () => boolean
  readonly onSubscriptionsChanged?: () => void
  /**
   * Relay the caller's client requests: a modern server's `input_required` answer to `prompts/get` or
   * `resources/read` is answered through the caller's hooks and the request sent again with the
   * answers (each request declares what the caller can answer). Default `false`.
   *
   * @since 0.2.0
   */
  readonly forwardClientRequests?: boolean
}): McpResourceSide => {
  const { backend, maxPages } = options
  const listListeners = new Set<(kind: CatalogKind) => void>()
  const updateListeners = new Set<(uri: string) => void>()
  /** URIs subscribed upstream (re-sent after a reconnection). */
  const subscribed = new Set<string>()
  /** The newest client (capabilities are known from its `initialize` on). */
  let latest: Client | undefined
  /** A modern server's listings, fresh until their `ttlMs` passes or the server says they changed. */
  const listings = new Map<ListKind, { readonly items: readonly unknown[]; readonly freshUntil: number }>()

  /** A listing, from the cache while fresh (modern servers only), else from the server. */
  const listed = async <A>(
    kind: ListKind,
    list: () => Promise<{ items: A[]; ttlMs?: number }>,
  ): Promise<A[]> => {
    const cached = listings.get(kind)
    if (cached !== undefined && Date.now() < cached.freshUntil) return [...(cached.items as A[])]
    const { items, ttlMs } = await list()
    if (ttlMs !== undefined && options.modern?.())
      listings.set(kind, { items, freshUntil: Date.now() + ttlMs })
    else listings.delete(kind)
    return items
  }

  const fireList = (kind: CatalogKind) => {
    for (const listener of [...listListeners]) {
      try {
        listener(kind)
      } catch {
        // A listener's failure is not the backend's.
      }
    }
  }

  /** A typed error for a failed request; another server error passes through (code and message once). */
  const typed = (error: unknown, notFound: () => ToolError): ToolError | Error => {
    if (
      isJsonRpcError(error) &&
      (error.code === -32002 ||
        (error.code === ProtocolErrorCode.InvalidParams && /not found|unknown/i.test(error.message)))
    )
      return notFound()
    if (isJsonRpcError(error)) return unprefixed(error)
    const mapped = mcpFailureToToolError(error, { backend, toolId: `${backend}/(resources)` })
    return mapped._tag === "ExecutionFailed"
      ? new BackendUnavailable({ backend, reason: causeOf(error).message })
      : mapped
  }

  const request = async <A>(
    run: (client: Client, signal: AbortSignal) => Promise<A>,
    ctx?: ExecutionContext,
  ) => {
    const client = await options.connect()
    return run(client, ctx?.signal ?? new AbortController().signal)
  }

  const requestOptions = (signal: AbortSignal) => ({ signal, timeout: options.timeoutMs })
  /** For a request that may be answered with `input_required`: the answer as it is (handled here). */
  const askingOptions = (signal: AbortSignal) => ({ ...requestOptions(signal), allowInputRequired: true })

  /**
   * A `prompts/get` or `resources/read` a modern server may answer with `input_required`: answered
   * through the caller (`ctx.client`) and sent again with the answers and the server's state, at most
   * {@link MAX_INPUT_ROUNDS} times; the final result is checked with `schema`.
   */
  const asking = <A>(
    method: "prompts/get" | "resources/read",
    params: Record<string, unknown>,
    schema: { parse(raw: unknown): A },
    ctx: ExecutionContext | undefined,
  ): Promise<A> =>
    request(async (client, signal) => {
      const relay = options.forwardClientRequests === true && ctx !== undefined && options.modern?.() === true
      const meta = () => {
        const capabilities = callerCapabilities(ctx!)
        return capabilities === undefined ? {} : { [CALL_CAPABILITIES]: capabilities }
      }
      let raw: unknown = await client.request(
        { method, params: relay ? { ...params, _meta: meta() } : params },
        AnyResult,
        askingOptions(signal),
      )
      for (let round = 1; relay && isInputRequired(raw); round++) {
        const what = `${backend}/(${method === "prompts/get" ? "prompts" : "resources"})`
        if (round > MAX_INPUT_ROUNDS)
          throw new ExecutionFailed({
            toolId: what,
            cause: {
              name: "InputRequired",
              message: `${backend} asked for input more than ${MAX_INPUT_ROUNDS} times`,
            },
            retryable: false,
          })
        const inputResponses = await answerCallerInputs(ctx!, what, backend, raw.inputRequests)
        raw = await client.request(
          {
            method,
            params: {
              ...params,
              _meta: meta(),
              inputResponses,
              ...(typeof raw.requestState === "string" ? { requestState: raw.requestState } : {}),
            },
          },
          AnyResult,
          askingOptions(signal),
        )
      }
      return schema.parse(raw)
    }, ctx)

  const capabilities = (): ResourceCapabilities => {
    const server = latest?.getServerCapabilities()
    if (!server) return {}
    return {
      ...(server.resources ? { resources: { subscribe: server.resources.subscribe === true } } : {}),
      ...(server.prompts ? { prompts: {} } : {}),
      ...(server.completions ? { completions: {} } : {}),
    }
  }

  const provider: ResourceProvider = {
    capabilities,
    listResources: (ctx) =>
      listed("resources", () =>
        request(
          (client, signal) =>
            allPages(maxPages, async (cursor) => {
              // One page per request (the client's own listResources follows every page and caches).
              const page = await client.request(
                { method: "resources/list", params: cursor !== undefined ? { cursor } : {} },
                requestOptions(signal),
              )
              return { items: page.resources, nextCursor: page.nextCursor, ttlMs: page.ttlMs }
            }),
          ctx,
        ),
      ),
    listResourceTemplates: (ctx) =>
      listed("templates", () =>
        request(
          (client, signal) =>
            allPages(maxPages, async (cursor) => {
              const page = await client.request(
                { method: "resources/templates/list", params: cursor !== undefined ? { cursor } : {} },
                requestOptions(signal),
              )
              return { items: page.resourceTemplates, nextCursor: page.nextCursor, ttlMs: page.ttlMs }
            }),
          ctx,
        ),
      ),
    readResource: (uri, ctx) =>
      asking("resources/read", { uri }, ReadResourceResultSchema, ctx).catch((error) => {
        throw typed(error, () => new ResourceNotFound({ uri }))
      }),
    subscribeResource: async (uri) => {
      subscribed.add(uri)
      if (options.modern?.()) {
        options.onSubscriptionsChanged?.()
        return
      }
      try {
        await request((client, signal) => client.subscribeResource({ uri }, requestOptions(signal)))
      } catch (error) {
        subscribed.delete(uri)
        throw typed(error, () => new ResourceNotFound({ uri }))
      }
    },
    unsubscribeResource: async (uri) => {
      if (!subscribed.delete(uri)) return
      if (options.modern?.()) {
        options.onSubscriptionsChanged?.()
        return
      }
      const client = latest
      await client?.unsubscribeResource({ uri }, { timeout: options.timeoutMs }).catch(() => {})
    },
    onResourceUpdated: (listener) => {
      updateListeners.add(listener)
      return () => updateListeners.delete(listener)
    },
    listPrompts: (ctx) =>
      listed("prompts", () =>
        request(
          (client, signal) =>
            allPages(maxPages, async (cursor) => {
              const page = await client.request(
                { method: "prompts/list", params: cursor !== undefined ? { cursor } : {} },
                requestOptions(signal),
              )
              return { items: page.prompts, nextCursor: page.nextCursor, ttlMs: page.ttlMs }
            }),
          ctx,
        ),
      ),
    getPrompt: (name, args, ctx) =>
      asking("prompts/get", { name, arguments: { ...args } }, GetPromptResultSchema, ctx).catch((error) => {
        throw typed(error, () => new PromptNotFound({ name, suggestions: [] }))
      }) as never,
    complete: async (req, ctx) => {
      const result = await request(
        (client, signal) => client.complete(req as never, requestOptions(signal)),
        ctx,
      ).catch((error) => {
        throw typed(error, () =>
          req.ref.type === "ref/prompt"
            ? new PromptNotFound({ name: req.ref.name, suggestions: [] })
            : new ResourceNotFound({ uri: req.ref.uri }),
        )
      })
      return result.completion
    },
    onListChanged: (listener) => {
      listListeners.add(listener)
      return () => listListeners.delete(listener)
    },
  }

  return {
    provider,
    setup: (client) => {
      latest = client
      client.setNotificationHandler("notifications/resources/list_changed", () => {
        listings.delete("resources")
        listings.delete("templates")
        fireList("resources")
      })
      client.setNotificationHandler("notifications/prompts/list_changed", () => {
        listings.delete("prompts")
        fireList("prompts")
      })
      client.setNotificationHandler("notifications/resources/updated", (notification) => {
        const uri = notification.params.uri
        if (!subscribed.has(uri)) return
        for (const listener of [...updateListeners]) {
          try {
            listener(uri)
          } catch {
            // A listener's failure is not the backend's.
          }
        }
      })
    },
    subscriptions: () => [...subscribed],
    onConnected: async (client) => {
      if (!options.modern?.() && client.getServerCapabilities()?.resources?.subscribe)
        await Promise.all(
          [...subscribed].map((uri) =>
            client.subscribeResource({ uri }, { timeout: options.timeoutMs }).catch(() => {}),
          ),
        )
      // A (re)connected server may serve other lists and capabilities than before (or than none).
      listings.clear()
      fireList("resources")
      fireList("prompts")
    },
  }
}
