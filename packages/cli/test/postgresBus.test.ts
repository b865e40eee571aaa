/**
 * The PostgreSQL replica bus on a throwaway server: replicas that start at the same moment all connect
 * (the table of long messages is created once, not raced), and short and long messages reach every
 * subscriber of every replica.
 */
import { type PostgresServer, postgresUnavailable, startPostgres } from "@toolplane/testkit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ClosableReplicaBus, postgresReplicaBus } from "../src/postgresBus.js"

const unavailable = postgresUnavailable()
if (unavailable) console.warn(`postgresBus.test.ts skipped: ${unavailable}`)

describe.skipIf(unavailable !== undefined)("postgresReplicaBus", () => {
  let pg: PostgresServer | undefined
  beforeAll(async () => {
    pg = await startPostgres()
  }, 60_000)
  afterAll(async () => {
    await pg?.stop()
  })

  it("connects eight replicas started at once and delivers short and long messages to all", async () => {
    const buses: ClosableReplicaBus[] = await Promise.all(
      Array.from({ length: 8 }, () =>
        postgresReplicaBus({ connectionString: pg!.url, channel: "race_test" }),
      ),
    )
    try {
      const received = buses.map(() => [] as string[])
      await Promise.all(buses.map((bus, i) => bus.subscribe((m) => received[i]!.push(m))))
      const long = "x".repeat(20_000)
      await buses[3]!.publish("short")
      await buses[5]!.publish(long)
      const deadline = Date.now() + 10_000
      while (received.some((r) => r.length < 2) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20))
      for (const r of received) expect(r).toEqual(["short", long])
    } finally {
      await Promise.all(buses.map((bus) => bus.close()))
    }
  }, 60_000)
})
