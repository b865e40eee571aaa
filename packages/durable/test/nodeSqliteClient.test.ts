/**
 * Our node:sqlite driver for effect/sql (what the engine's SQL storage runs on in embedded mode):
 * statements with parameters of every kind the engine binds, value rows, transactions (commit, rollback
 * on failure, nested savepoints), and a second connection in another "process" (a second client on the
 * same file) seeing committed writes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as SqlClient from "effect/sql/SqlClient"
import { afterEach, describe, expect, it } from "vitest"
import { nodeSqliteClientLayer } from "../src/internal/nodeSqliteClient.js"

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const file = () => {
  const dir = mkdtempSync(join(tmpdir(), "toolplane-sqlite-client-"))
  dirs.push(dir)
  return join(dir, "db.sqlite")
}

describe("the node:sqlite SqlClient", () => {
  it("binds parameters, returns rows and value rows, and keeps transactions atomic", async () => {
    const path = file()
    const runtime = ManagedRuntime.make(nodeSqliteClientLayer({ filename: path }))
    const other = ManagedRuntime.make(nodeSqliteClientLayer({ filename: path }))
    const result = await runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        expect(sql.onDialectOrElse({ sqlite: () => "sqlite", orElse: () => "other" })).toBe("sqlite")
        yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, flag INTEGER, big INTEGER, blob BLOB)`
        yield* sql`INSERT INTO t ${sql.insert({ id: 1, name: "a", flag: true, big: 2n ** 40n, blob: new Uint8Array([1, 2]) })}`
        yield* sql`INSERT INTO t (id, name, flag) VALUES (${2}, ${undefined}, ${false})`
        const rows = yield* sql<{
          id: number
          name: string | null
          flag: number
        }>`SELECT id, name, flag FROM t ORDER BY id`
        const values = yield* sql`SELECT id, big FROM t WHERE ${sql.in("id", [1, 2])} ORDER BY id`.values
        // A failing transaction leaves nothing; a nested one rolls back to its savepoint only.
        const failed = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO t (id, name) VALUES (3, 'lost')`
              return yield* Effect.fail("boom" as const)
            }),
          )
          .pipe(Effect.flip)
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO t (id, name) VALUES (4, 'kept')`
            yield* sql
              .withTransaction(
                sql`INSERT INTO t (id, name) VALUES (5, 'inner')`.pipe(Effect.andThen(Effect.fail("x"))),
              )
              .pipe(Effect.ignore)
          }),
        )
        const duplicate = yield* sql`INSERT INTO t (id, name) VALUES (9, 'a')`.pipe(Effect.flip)
        return { rows, values, failed, duplicate }
      }),
    )
    expect(result.rows).toEqual([
      { id: 1, name: "a", flag: 1 },
      { id: 2, name: null, flag: 0 },
    ])
    expect(result.values).toEqual([
      [1, 2 ** 40],
      [2, null],
    ])
    expect(result.failed).toBe("boom")
    expect(result.duplicate._tag).toBe("SqlError")
    expect(result.duplicate.reason._tag).toBe("UniqueViolation")
    expect(result.duplicate.message).toMatch(/UNIQUE constraint failed: t\.name/)
    // Another client on the same file sees exactly the committed rows.
    const ids = await other.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ id: number }>`SELECT id FROM t ORDER BY id`
      }),
    )
    expect(ids.map((r) => r.id)).toEqual([1, 2, 4])
    await runtime.dispose()
    await other.dispose()
  })

  it("fails to open a file whose folder cannot be created with a SqlError", async () => {
    // The missing folder would be created (0700); under a regular file it cannot be.
    const blocker = join(file(), "..", "not-a-folder")
    writeFileSync(blocker, "")
    const runtime = ManagedRuntime.make(nodeSqliteClientLayer({ filename: join(blocker, "x", "db.sqlite") }))
    const error = await runtime
      .runPromise(
        Effect.gen(function* () {
          return yield* SqlClient.SqlClient
        }),
      )
      .catch((e) => e)
    expect(error._tag).toBe("SqlError")
    expect(error.message).toMatch(/ENOTDIR|not a directory|unable to open database file/)
    await runtime.dispose()
  })
})
