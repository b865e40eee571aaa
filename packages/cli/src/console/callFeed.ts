/**
 * The console's call feed: the last calls through the gateway (tool, caller, latency, outcome), kept in
 * memory in a ring of fixed size.
 *
 * @since 0.1.0
 */
import type { ToolService } from "@toolplane/foundation"

/**
 * One finished call.
 *
 * @since 0.1.0
 */
export interface FeedEntry {
  readonly seq: number
  /** Epoch ms when the call finished. */
  readonly at: number
  readonly tool: string
  /** The authenticated client id, when there is one. */
  readonly caller?: string
  readonly ms: number
  readonly outcome: "ok" | "error"
  /** The error's tag or class name (never its arguments). */
  readonly error?: string
}

/**
 * A ring of recent calls and a wrapper recording every call of a service.
 *
 * @since 0.1.0
 */
export interface CallFeed {
  /** The service with every call recorded. */
  wrap(service: ToolService): ToolService
  /** Entries newer than `after` (a `seq`), oldest first. */
  since(after?: number): readonly FeedEntry[]
}

/**
 * Makes a feed keeping the last `size` calls (default 500).
 *
 * @since 0.1.0
 */
export const callFeed = (size = 500): CallFeed => {
  const ring: FeedEntry[] = []
  let seq = 0
  const record = (entry: Omit<FeedEntry, "seq" | "at">) => {
    ring.push({ seq: ++seq, at: Date.now(), ...entry })
    if (ring.length > size) ring.shift()
  }
  return {
    wrap: (service) => ({
      listTools: (request) => service.listTools(request),
      callTool: async (request) => {
        const started = performance.now()
        const callerId = (request.context as { callerId?: string } | undefined)?.callerId
        const base = { tool: request.name, ...(callerId !== undefined ? { caller: callerId } : {}) }
        try {
          const result = await service.callTool(request)
          const failed = (result as { isError?: boolean }).isError === true
          record({ ...base, ms: performance.now() - started, outcome: failed ? "error" : "ok" })
          return result
        } catch (error) {
          const tag = (error as { _tag?: string })._tag ?? (error as Error)?.name ?? "Error"
          record({ ...base, ms: performance.now() - started, outcome: "error", error: tag })
          throw error
        }
      },
    }),
    since: (after = 0) => ring.filter((e) => e.seq > after),
  }
}
