/**
 * What replicas of one gateway must tell each other: a small publish/subscribe interface (one channel,
 * string messages), with an in-memory implementation for replicas in one process. A deployment of
 * several processes plugs in a shared one (e.g. `@toolplane/cli`'s PostgreSQL `LISTEN`/`NOTIFY` bus).
 *
 * @since 0.1.0
 */

/**
 * A message bus shared by the replicas of a gateway. Every message published reaches every subscriber
 * of every replica, the publisher's included (`serveHttp` ignores its own messages); order per
 * publisher is kept; delivery is at most once (a replica that is down misses messages).
 *
 * @since 0.1.0
 */
export interface ReplicaBus {
  /** Sends `message` to every subscriber. */
  publish(message: string): Promise<void>
  /** Receives every message published from now on; resolves once subscribed, with an unsubscribe. */
  subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>>
}

/**
 * A {@link ReplicaBus} within one process: for several `serveHttp` servers of one process (tests, or a
 * process serving several ports), and the reference semantics of a shared bus.
 *
 * @example
 * ```ts
 * const bus = memoryReplicaBus()
 * const sessionSecret = "a shared secret of 16+ characters"
 * const a = await serveHttp(service, { bus, sessionSecret })
 * const b = await serveHttp(service, { bus, sessionSecret })
 * // a client may send each request of one session to a or b
 * ```
 * @since 0.1.0
 */
export const memoryReplicaBus = (): ReplicaBus => {
  const subscribers = new Set<(message: string) => void>()
  return {
    publish: async (message) => {
      for (const deliver of [...subscribers]) queueMicrotask(() => deliver(message))
    },
    subscribe: async (onMessage) => {
      const deliver = (message: string) => onMessage(message)
      subscribers.add(deliver)
      return async () => {
        subscribers.delete(deliver)
      }
    },
  }
}
