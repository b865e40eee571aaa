/**
 * The audit log in the durable store (`[audit] sink = "store"`) on a real PostgreSQL server (skipped
 * when its binaries are absent): the same cases as the SQLite store.
 */
import { type PostgresServer, postgresUnavailable, startPostgres } from "@toolplane/testkit"
import pg from "pg"
import { afterAll, beforeAll, describe, it } from "vitest"
import { killTest, roundTrip } from "./helpers/auditStoreCases.js"
import { opsGatewaySuite } from "./helpers/opsGateway.js"

const unavailable = postgresUnavailable()
if (unavailable) console.warn(`auditStorePostgres.test.ts skipped: ${unavailable}`)

describe.skipIf(unavailable !== undefined)("audit log in a PostgreSQL store", () => {
  const suite = opsGatewaySuite("toolplane-audit-pg-")
  let server: PostgresServer | undefined
  beforeAll(async () => {
    server = await startPostgres()
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
  })
  /** A fresh database per case on the one server. */
  const database = async (name: string) => {
    const admin = new pg.Client({ connectionString: server!.url })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    await admin.end()
    const url = new URL(server!.url)
    url.pathname = `/${name}`
    return url.toString()
  }

  it("keeps the file's records, filters them, and refuses updates and deletes", async () => {
    const url = await database("audit_roundtrip")
    await roundTrip(url, async (sql) => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(sql)
      } finally {
        await client.end()
      }
    })
  }, 30_000)

  let killUrl = ""
  it("loses no answered call when the gateway is killed", async () => {
    killUrl = await database("audit_kill")
    await killTest(suite, () => killUrl)()
  }, 60_000)
})
