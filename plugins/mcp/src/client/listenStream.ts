/**
 * The `subscriptions/listen` stream of a modern backend: one long-lived request whose response stream
 * carries the list-change and resource-update notifications the backend opted into (the modern era
 * has no standalone GET stream and no `resources/subscribe`). It is re-opened with backoff when it
 * ends or breaks, and re-opened with the new filter when what the backend needs changes.
 *
 * @since 0.1.0
 */
import type { Client } from "@modelcontextprotocol/client"
import { RAW_RESULT } from "./connection.js"

/**
 * What a listen stream asks for (the revision's `SubscriptionFilter`).
 *
 * @internal
 * @since 0.1.0
 */
export interface ListenFilter {
  readonly toolsListChanged?: boolean
  readonly promptsListChanged?: boolean
  readonly resourcesListChanged?: boolean
  readonly resourceSubscriptions?: readonly string[]
}

/** Takes a result as it is (the stream's end carries nothing the backend uses). */
const MAX_TIMER_MS = 2_147_483_647
const METHOD_NOT_FOUND = -32601
/** A stream that lived this long was healthy: the backoff starts over. */
const HEALTHY_MS = 2000

const isEmpty = (filter: ListenFilter): boolean =>
  filter.toolsListChanged !== true &&
  filter.promptsListChanged !== true &&
  filter.resourcesListChanged !== true &&
  (filter.resourceSubscriptions?.length ?? 0) === 0

/**
 * One backend's listen stream. Notifications arriving on it reach the client's notification handlers
 * like any other.
 *
 * @internal
 * @since 0.1.0
 */
export class ListenStream {
  readonly #filter: (client: Client) => ListenFilter
  readonly #isCurrent: (client: Client) => boolean
  readonly #initialDelayMs: number
  readonly #maxDelayMs: number
  #client: Client | undefined
  #controller: AbortController | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #failures = 0
  #opens = 0

  constructor(options: {
    /** What to listen for on `client` (from its capabilities and the backend's subscriptions). */
    readonly filter: (client: Client) => ListenFilter
    /** Whether `client` is still the backend's connection (a stream of a lost one is not re-opened). */
    readonly isCurrent: (client: Client) => boolean
    readonly initialDelayMs?: number
    readonly maxDelayMs?: number
  }) {
    this.#filter = options.filter
    this.#isCurrent = options.isCurrent
    this.#initialDelayMs = options.initialDelayMs ?? 100
    this.#maxDelayMs = options.maxDelayMs ?? 5000
  }

  /** How many times a stream was opened (for status and tests). */
  get opens(): number {
    return this.#opens
  }

  /** Opens the stream on a freshly connected modern client (replacing one of an earlier connection). */
  start(client: Client): void {
    this.#client = client
    this.#failures = 0
    this.#reopen()
  }

  /** What to listen for changed: the stream is re-opened with the new filter (if a client is connected). */
  update(): void {
    if (this.#client !== undefined && this.#isCurrent(this.#client)) this.#reopen()
  }

  /** Ends the stream for good (the backend closes). */
  stop(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const controller = this.#controller
    this.#controller = undefined
    this.#client = undefined
    controller?.abort(new Error("listen stream stopped"))
  }

  #reopen(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const previous = this.#controller
    this.#controller = undefined
    previous?.abort(new Error("listen filter changed"))
    this.#open()
  }

  #open(): void {
    const client = this.#client
    if (client === undefined || !this.#isCurrent(client)) return
    const filter = this.#filter(client)
    if (isEmpty(filter)) return
    const controller = new AbortController()
    this.#controller = controller
    this.#opens++
    const openedAt = Date.now()
    const ended = (error?: unknown) => {
      // Replaced, stopped, or its connection is gone (the next connection starts its own).
      if (this.#controller !== controller) return
      this.#controller = undefined
      if (!this.#isCurrent(client)) return
      // A server without `subscriptions/listen` (method not found) is not asked again on this connection.
      if ((error as { code?: unknown } | undefined)?.code === METHOD_NOT_FOUND) return
      this.#failures = Date.now() - openedAt >= HEALTHY_MS ? 0 : this.#failures + 1
      const delay = Math.min(this.#maxDelayMs, this.#initialDelayMs * 2 ** Math.max(0, this.#failures - 1))
      this.#timer = setTimeout(() => {
        this.#timer = undefined
        this.#open()
      }, delay)
      this.#timer.unref?.()
    }
    client
      .request(
        {
          method: "subscriptions/listen",
          params: {
            notifications: {
              ...filter,
              ...(filter.resourceSubscriptions !== undefined
                ? { resourceSubscriptions: [...filter.resourceSubscriptions] }
                : {}),
            },
          },
        } as never,
        RAW_RESULT,
        { signal: controller.signal, timeout: MAX_TIMER_MS },
      )
      .then(() => ended(), ended)
  }
}
