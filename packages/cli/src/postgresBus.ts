/**
 * The replica bus of `toolplane serve` on PostgreSQL: `LISTEN`/`NOTIFY` on one channel (through the
 * maintained `pg` client), so replicas behind a round-robin load balancer hand each other a client's
 * answer to an elicitation, notifications for a GET stream held elsewhere, cancellations and ended
 * sessions. A message longer than what `NOTIFY` carries (8000 bytes) is stored in a table and the
 * notification names its row.
 *
 * @since 0.1.0
 */
import type { ReplicaBus } from "@toolplane/plugin-mcp"
import pg from "pg"

/**
 * Options of {@link postgresReplicaBus}.
 *
 * @since 0.1.0
 */
export interface PostgresReplicaBusOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly connectionString: string
  /** The `LISTEN` channel (also names the table of long messages). Default `"toolplane"`. */
  readonly channel?: string
  /** Receives connection failures (the listener reconnects). */
  readonly onError?: (error: unknown) => void
}

/**
 * A {@link ReplicaBus} with a `close()` that ends its connections.
 *
 * @since 0.1.0
 */
export interface ClosableReplicaBus extends ReplicaBus {
  close(): Promise<void>
}

/** Longest payload sent in the notification itself (PostgreSQL's limit is 8000 bytes). */
const INLINE_BYTES = 7000

/**
 * Connects a {@link ReplicaBus} to PostgreSQL (two connections: one listens, one publishes).
 *
 * @example
 * ```ts
 * const bus = await postgresReplicaBus({ connectionString: process.env.TOOLPLANE_BUS_URL! })
 * const handle = await serveHttp(service, { bus, sessionSecret: process.env.TOOLPLANE_CURSOR_SECRET })
 * ```
 * @since 0.1.0
 */
export const postgresReplicaBus = async (options: PostgresReplicaBusOptions): Promise<ClosableReplicaBus> => {
  const channel = options.channel ?? "toolplane"
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(channel))
    throw new RangeError(`replica bus channel must match [a-z_][a-z0-9_]*, got ${JSON.stringify(channel)}`)
  const table = `${channel}_bus_messages`
  const subscribers = new Set<(message: string) => void>()
  let closed = false
  const publisher = new pg.Client({ connectionString: options.connectionString })
  publisher.on("error", (error) => options.onError?.(error))
  await publisher.connect()
  // Replicas start together: CREATE TABLE IF NOT EXISTS alone races on the catalog (a duplicate key in
  // pg_type), so the first replica creates the table under a transaction-scoped advisory lock.
  await publisher.query("BEGIN")
  try {
    await publisher.query("SELECT pg_advisory_xact_lock(hashtext($1))", [table])
    await publisher.query(
      `CREATE TABLE IF NOT EXISTS ${table} (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), payload text NOT NULL)`,
    )
    await publisher.query("COMMIT")
  } catch (error) {
    await publisher.query("ROLLBACK").catch(() => {})
    await publisher.end().catch(() => {})
    throw error
  }

  const deliver = async (payload: string) => {
    let message = payload
    if (payload.startsWith("@")) {
      const rows = await publisher.query<{ payload: string }>(`SELECT payload FROM ${table} WHERE id = $1`, [
        payload.slice(1),
      ])
      if (rows.rows.length === 0) return
      message = rows.rows[0]!.payload
    }
    for (const subscriber of [...subscribers]) subscriber(message)
  }

  let listener: pg.Client | undefined
  const listen = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: options.connectionString })
    client.on("notification", (n) => {
      if (n.channel === channel && n.payload !== undefined)
        deliver(n.payload).catch((error) => options.onError?.(error))
    })
    client.on("error", (error) => {
      options.onError?.(error)
      if (listener !== client || closed) return
      listener = undefined
      client.end().catch(() => {})
      const retry = () => {
        if (closed) return
        listen().catch((e) => {
          options.onError?.(e)
          setTimeout(retry, 1000).unref()
        })
      }
      setTimeout(retry, 250).unref()
    })
    await client.connect()
    await client.query(`LISTEN ${channel}`)
    listener = client
  }
  await listen()

  let published = 0
  return {
    publish: async (message) => {
      if (Buffer.byteLength(message) <= INLINE_BYTES && !message.startsWith("@")) {
        await publisher.query("SELECT pg_notify($1, $2)", [channel, message])
        return
      }
      const row = await publisher.query<{ id: string }>(
        `INSERT INTO ${table} (payload) VALUES ($1) RETURNING id`,
        [message],
      )
      await publisher.query("SELECT pg_notify($1, $2)", [channel, `@${row.rows[0]!.id}`])
      if (++published % 100 === 0)
        await publisher.query(`DELETE FROM ${table} WHERE at < now() - interval '10 minutes'`)
    },
    subscribe: async (onMessage) => {
      const subscriber = (message: string) => onMessage(message)
      subscribers.add(subscriber)
      return async () => {
        subscribers.delete(subscriber)
      }
    },
    close: async () => {
      closed = true
      subscribers.clear()
      await Promise.all([listener?.end().catch(() => {}), publisher.end().catch(() => {})])
    },
  }
}
