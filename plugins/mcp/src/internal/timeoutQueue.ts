/**
 * Call timeouts without a timer per call. Calls of one timeout length expire in the order they were
 * armed, so each length keeps its calls in a FIFO list (arming appends; re-arming, on progress, moves a
 * call to the end; finishing unlinks it, all O(1)) and one timer, set for the head of the list. A call that
 * finishes leaves that timer alone: when it fires, the calls whose time has come expire and the timer is
 * set again for the new head, if any. So a stream of calls that answer in time costs no `setTimeout` or
 * `clearTimeout` each (Node's own timer lists also create and drop a list and a priority-queue entry per
 * call when only one call is in flight), and a call still never expires before its time.
 *
 * The timers are unref'd: what keeps a process alive while a call is in flight is its connection.
 *
 * @internal
 * @since 0.1.0
 */

/**
 * Something that expires: a call of {@link TimeoutQueue}. The queue owns the link fields.
 *
 * @internal
 * @since 0.1.0
 */
export interface Expiring {
  /** When it expires (`performance.now()` ms). */
  expiresAt: number
  previousExpiring: Expiring | undefined
  nextExpiring: Expiring | undefined
  /** The list it is in, while armed. */
  expiringIn: TimeoutList | undefined
  /** Called once when its time has come (it is unlinked first). */
  expire(): void
}

/**
 * The calls of one timeout length, oldest first, and the timer of its head.
 *
 * @internal
 * @since 0.1.0
 */
export class TimeoutList {
  head: Expiring | undefined
  tail: Expiring | undefined
  readonly ms: number
  timer: ReturnType<typeof setTimeout> | undefined
  /** When the timer fires (`performance.now()` ms). */
  timerAt = 0
  readonly #fire = (): void => this.#onTimer()

  constructor(ms: number) {
    this.ms = ms
  }

  arm(item: Expiring): void {
    if (item.expiringIn !== undefined) this.disarm(item)
    const now = performance.now()
    item.expiresAt = now + this.ms
    item.expiringIn = this
    item.previousExpiring = this.tail
    item.nextExpiring = undefined
    if (this.tail === undefined) this.head = item
    else this.tail.nextExpiring = item
    this.tail = item
    // The timer, when set, fires no later than this item's time (items are in expiry order).
    if (this.timer === undefined) this.#setTimer(now, item.expiresAt)
  }

  disarm(item: Expiring): void {
    if (item.expiringIn !== this) return
    const { previousExpiring: previous, nextExpiring: next } = item
    if (previous === undefined) this.head = next
    else previous.nextExpiring = next
    if (next === undefined) this.tail = previous
    else next.previousExpiring = previous
    item.previousExpiring = undefined
    item.nextExpiring = undefined
    item.expiringIn = undefined
  }

  #setTimer(now: number, at: number): void {
    this.timerAt = at
    // Never early: a timer may fire up to a millisecond before `performance.now()` reaches `at`.
    this.timer = setTimeout(this.#fire, Math.max(1, Math.ceil(at - now)))
    this.timer.unref?.()
  }

  #onTimer(): void {
    this.timer = undefined
    const now = performance.now()
    for (let item = this.head; item !== undefined && item.expiresAt <= now; item = this.head) {
      this.disarm(item)
      try {
        item.expire()
      } catch {
        // One call's failure is not the others'.
      }
    }
    if (this.head !== undefined && this.timer === undefined) this.#setTimer(now, this.head.expiresAt)
  }
}

/**
 * Timeout lists by length (a backend's calls use one or a few lengths).
 *
 * @internal
 * @since 0.1.0
 */
export class TimeoutQueue {
  readonly #lists = new Map<number, TimeoutList>()

  /** The list of calls that time out after `ms`. */
  list(ms: number): TimeoutList {
    let list = this.#lists.get(ms)
    if (list === undefined) {
      list = new TimeoutList(ms)
      this.#lists.set(ms, list)
    }
    return list
  }

  /** How many calls are armed (for tests). */
  get size(): number {
    let n = 0
    for (const list of this.#lists.values()) for (let i = list.head; i !== undefined; i = i.nextExpiring) n++
    return n
  }

  /** Whether any list's timer is set (for tests). */
  get timers(): number {
    let n = 0
    for (const list of this.#lists.values()) if (list.timer !== undefined) n++
    return n
  }
}
