/**
 * A minimal Effect `SqlClient` for SQLite on Node's built-in `node:sqlite` (`DatabaseSync`), enough for
 * effect/cluster's SQL message and runner storage: one connection shared through a semaphore (effect's
 * own `makeSqliteAcquirers`), effect's SQLite statement compiler, a bounded prepared-statement cache,
 * WAL mode and a busy timeout so several processes can share one file.
 *
 * There is no effect-4.1-compatible SQLite driver package on npm (`@effect/sql-sqlite-node`'s effect-4
 * builds import `effect/unstable/*` paths that effect 4.1 removed); this module is that driver, thin.
 *
 * The store holds step arguments and results: its file (and SQLite's `-wal` and `-shm` beside it, which
 * SQLite creates with the file's permissions) is created `0600`, a folder it needs is created `0700`, and
 * an existing file that group or others could access is tightened to `0600` (a warning when that fails).
 * `node:sqlite` is imported when a database is opened, not when this module loads, so a Node without it
 * can use everything but SQLite storage.
 */
import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync } from "node:fs"
import { dirname } from "node:path"
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import { classifySqliteError, SqlError } from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"

/** Options of {@link makeNodeSqliteClient}. */
export interface NodeSqliteClientOptions {
  /** The database file (created when missing). */
  readonly filename: string
  /** How long a statement waits for another process's write lock (ms). Default 10 000. */
  readonly busyTimeoutMs?: number
  /** Prepared statements kept per connection. Default 256. */
  readonly statementCacheSize?: number
}

const toParam = (value: unknown): SQLInputValue => {
  if (value === undefined || value === null) return null
  if (typeof value === "boolean") return value ? 1 : 0
  if (value instanceof Date) return value.toISOString()
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "string") return value
  if (value instanceof Uint8Array) return value
  return JSON.stringify(value)
}

/** The first Node.js release with `node:sqlite` available without a flag. */
const SQLITE_NODE = "22.13"

let sqlite: Promise<typeof import("node:sqlite")> | undefined
/** `node:sqlite`, loaded on first use; a Node without it fails naming the version needed. */
const loadSqlite = (): Promise<typeof import("node:sqlite")> => {
  sqlite ??= import("node:sqlite").catch((cause: unknown) => {
    sqlite = undefined
    throw new Error(
      `SQLite storage needs Node's built-in node:sqlite (Node.js ${SQLITE_NODE} or later); this is Node.js ${process.versions.node}. Use a newer Node.js, or a PostgreSQL URL as storage`,
      { cause },
    )
  })
  return sqlite
}

const PRIVATE_FILE = 0o600
const LOOSE = 0o077

/**
 * Makes the database file private before SQLite opens it: a missing folder is created `0700`, a missing
 * file `0600` (SQLite gives its `-wal` and `-shm` the file's permissions), and an existing file or
 * journal that group or others could access is tightened to `0600`. In-memory and URI names are left
 * alone.
 */
const preparePrivateFile = (filename: string): void => {
  if (filename === "" || filename === ":memory:" || filename.startsWith("file:")) return
  const folder = dirname(filename)
  if (!existsSync(folder)) mkdirSync(folder, { recursive: true, mode: 0o700 })
  if (!existsSync(filename)) {
    try {
      closeSync(openSync(filename, constants.O_CREAT | constants.O_EXCL | constants.O_RDWR, PRIVATE_FILE))
    } catch (error) {
      // Another process created it in between: it is tightened below like any existing file.
      if ((error as { code?: unknown }).code !== "EEXIST") throw error
    }
  }
  for (const path of [filename, `${filename}-wal`, `${filename}-shm`, `${filename}-journal`]) {
    let mode: number
    try {
      mode = statSync(path).mode
    } catch {
      continue
    }
    if ((mode & LOOSE) === 0) continue
    try {
      chmodSync(path, mode & 0o700 & ~0o111)
    } catch (error) {
      process.emitWarning(
        `${path} holds durable run arguments and results and is readable by others (mode ${(mode & 0o777).toString(8)}); it could not be made private: ${String(error)}`,
        { code: "TOOLPLANE_DURABLE_STORE_MODE" },
      )
    }
  }
}

/**
 * A row value as the engine expects it: SQLite integers are read as `bigint` (so 64-bit ids survive)
 * and those a `number` holds exactly become numbers again.
 */
const fromSqlite = (value: unknown): unknown =>
  typeof value === "bigint" && value <= MAX_SAFE && value >= MIN_SAFE ? Number(value) : value
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER)

const fromSqliteRow = (row: Record<string, unknown>): Record<string, unknown> => {
  for (const key in row) {
    const value = row[key]
    if (typeof value === "bigint") row[key] = fromSqlite(value)
  }
  return row
}

const sqlError = (cause: unknown, operation: string): SqlError => {
  // node:sqlite reports SQLite's extended result code as `errcode`; effect's classifier reads `errno`.
  const error = cause as { errcode?: unknown; errno?: unknown; message?: unknown }
  if (typeof error?.errcode === "number" && error.errno === undefined) error.errno = error.errcode
  const message = typeof error?.message === "string" ? error.message : `SQLite ${operation} failed`
  return new SqlError({ reason: classifySqliteError(cause, { message, operation }) })
}

/**
 * Opens `options.filename` and builds an Effect `SqlClient` on it; the database closes with the scope.
 */
export const makeNodeSqliteClient = (
  options: NodeSqliteClientOptions,
): Effect.Effect<SqlClient.SqlClient, SqlError, import("effect/Scope").Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const { DatabaseSync } = yield* Effect.tryPromise({
      try: loadSqlite,
      catch: (cause) => sqlError(cause, "open"),
    })
    const db: DatabaseSync = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          preparePrivateFile(options.filename)
          const db = new DatabaseSync(options.filename)
          db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 10_000))}`)
          db.exec("PRAGMA journal_mode = WAL")
          db.exec("PRAGMA synchronous = NORMAL")
          return db
        },
        catch: (cause) => sqlError(cause, "open"),
      }),
      (db) => Effect.sync(() => db.close()),
    )
    const cacheSize = options.statementCacheSize ?? 256
    const cache = new Map<string, StatementSync>()
    const prepare = (sql: string): StatementSync => {
      const cached = cache.get(sql)
      if (cached !== undefined) {
        cache.delete(sql)
        cache.set(sql, cached)
        return cached
      }
      const statement = db.prepare(sql)
      statement.setReadBigInts(true)
      cache.set(sql, statement)
      if (cache.size > cacheSize) {
        const oldest = cache.keys().next().value
        if (oldest !== undefined) cache.delete(oldest)
      }
      return statement
    }
    const unprepared = (sql: string): StatementSync => {
      const statement = db.prepare(sql)
      statement.setReadBigInts(true)
      return statement
    }
    const run = <A>(operation: string, f: () => A): Effect.Effect<A, SqlError> =>
      Effect.try({ try: f, catch: (cause) => sqlError(cause, operation) })
    // `setReturnArrays` and `isTransaction` exist from Node 24 (and late 22.x) only.
    const arrays =
      typeof (db.prepare("SELECT 1") as { setReturnArrays?: unknown }).setReturnArrays === "function"
    const rows = (
      statement: StatementSync,
      params: ReadonlyArray<unknown>,
    ): Array<Record<string, unknown>> => {
      if (arrays) statement.setReturnArrays(false)
      if (statement.columns().length === 0) {
        statement.run(...params.map(toParam))
        return []
      }
      return (statement.all(...params.map(toParam)) as Array<Record<string, unknown>>).map(fromSqliteRow)
    }
    const values = (statement: StatementSync, params: ReadonlyArray<unknown>): Array<Array<unknown>> => {
      if (statement.columns().length === 0) {
        statement.run(...params.map(toParam))
        return []
      }
      if (!arrays)
        return (statement.all(...params.map(toParam)) as Array<Record<string, unknown>>).map((row) =>
          Object.values(row).map(fromSqlite),
        )
      statement.setReturnArrays(true)
      try {
        return (statement.all(...params.map(toParam)) as unknown as Array<Array<unknown>>).map((row) =>
          row.map(fromSqlite),
        )
      } finally {
        statement.setReturnArrays(false)
      }
    }
    const transform = <A extends object>(
      result: ReadonlyArray<A>,
      transformRows: (<B extends object>(row: ReadonlyArray<B>) => ReadonlyArray<B>) | undefined,
    ): ReadonlyArray<A> => (transformRows === undefined ? result : transformRows(result))

    const connection: Connection = {
      execute: (sql, params, transformRows) =>
        run("execute", () => transform(rows(prepare(sql), params), transformRows)),
      executeRaw: (sql, params) => run("execute", () => rows(prepare(sql), params)),
      executeStream: (sql, params, transformRows) =>
        Stream.fromIterableEffect(run("execute", () => transform(rows(prepare(sql), params), transformRows))),
      executeValues: (sql, params) => run("execute", () => values(prepare(sql), params)),
      executeValuesUnprepared: (sql, params) => run("execute", () => values(unprepared(sql), params)),
      executeUnprepared: (sql, params, transformRows) =>
        run("execute", () => transform(rows(unprepared(sql), params), transformRows)),
    }
    const semaphore = yield* Semaphore.make(1)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore,
      ...(typeof (db as { isTransaction?: unknown }).isTransaction === "boolean"
        ? { isTransaction: () => db.isTransaction }
        : {}),
    })
    return yield* SqlClient.make({
      ...acquirers,
      compiler: Statement.makeCompilerSqlite(),
      driver: "sqlite",
      spanAttributes: [["db.system.name", "sqlite"]],
      // IMMEDIATE takes the write lock up front: two processes on one file then wait (busy timeout)
      // instead of failing with SQLITE_BUSY when a reader upgrades to a writer.
      beginTransaction: "BEGIN IMMEDIATE",
    })
  })

/** A layer providing the `SqlClient` of {@link makeNodeSqliteClient}. */
export const nodeSqliteClientLayer = (
  options: NodeSqliteClientOptions,
): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.effect(SqlClient.SqlClient, makeNodeSqliteClient(options)).pipe(Layer.provide(Reactivity.layer))
