/** A throwaway PostgreSQL server per test file, and a fresh database per test (skipped when unavailable). */
import { type PostgresServer, postgresUnavailable, startPostgres } from "@toolplane/testkit"
import pg from "pg"
import { afterAll, beforeAll } from "vitest"

/** Why PostgreSQL tests are skipped here, or undefined. */
export const pgSkip = postgresUnavailable()

let server: PostgresServer | undefined
let count = 0

/** Starts the file's server in `beforeAll` and stops it in `afterAll` (nothing when skipped). */
export const usePostgres = (): void => {
  beforeAll(async () => {
    if (pgSkip === undefined) server = await startPostgres()
  }, 60_000)
  afterAll(() => server?.stop())
}

/** A fresh database on the file's server, as a URL. */
export const freshDatabase = async (): Promise<string> => {
  const name = `runs_${process.pid}_${++count}`
  const admin = new pg.Client({ connectionString: server!.url })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  return server!.url.replace(/\/postgres$/, `/${name}`)
}
