/**
 * The audit log in the durable run store (`[audit] sink = "store"`): the same records as the JSON-lines
 * file, one row each in the append-only table `toolplane_audit` of the SQLite file or PostgreSQL
 * database of `[durable] store`. The row keeps the record's exact JSON text (`record`) beside the
 * columns `toolplane audit` filters on. Updates and deletes are refused by triggers.
 *
 * Group commit with the file sink's guarantee: the records of calls that end in one turn of the event
 * loop are inserted in one transaction at the end of that turn, and their answers wait for its commit, so
 * a crash of the process (SIGKILL included) loses no record of an answered call. SQLite commits
 * synchronously (WAL; `fsync` makes it `synchronous = FULL`, surviving a power loss too); a lock held by
 * another connection is retried on a timer rather than waited for on the event loop. PostgreSQL commits
 * one multi-row `INSERT` per batch; records arriving while a batch commits form the next one.
 *
 * @since 0.2.0
 */
import { closeSync, existsSync, openSync } from "node:fs"
import type pg from "pg"
import {
  type AuditEntry,
  type AuditLog,
  type AuditQuery,
  type AuditRecord,
  globTest,
  hmacSha256,
  isoClock,
} from "./audit.js"

/**
 * The table of audit records in the store.
 *
 * @since 0.2.0
 */
export const AUDIT_TABLE = "toolplane_audit"

/**
 * Options of {@link openAuditStore}.
 *
 * @since 0.2.0
 */
export interface AuditStoreOptions {
  /** A SQLite file or a `postgres://` URL (as `[durable] store`). */
  readonly storage: string
  /** HMAC key of argument and result hashes. */
  readonly key: string | Uint8Array
  /** Whether a tool's arguments and results are recorded in clear. Default: never. */
  readonly clear?: (tool: string) => boolean
  /** SQLite: `synchronous = FULL` (survives a power loss). PostgreSQL commits durably anyway. */
  readonly fsync?: boolean
  /** A batch could not be committed (database gone, disk full…); its calls still answer. */
  readonly onError?: (error: unknown) => void
  readonly now?: () => Date
}

/** A row to insert: the columns filtered on, then the record's JSON text. */
type Row = readonly [
  tsMs: number,
  type: string,
  caller: unknown,
  tool: unknown,
  outcome: unknown,
  decision: unknown,
  record: string,
]

const COLUMNS = "ts_ms, type, caller, tool, outcome, decision, record"

/**
 * As `isPostgresStorage` of `@toolplane/durable`, without loading it (and the workflow engine).
 *
 * @internal
 */
export const isPostgresUrl = (storage: string): boolean => /^postgres(ql)?:\/\//i.test(storage)
const isPostgresStorage = isPostgresUrl

/**
 * Where an audit store is, for messages: the file, or the URL without its password.
 *
 * @internal
 */
export const auditStoreLocation = (storage: string): string =>
  isPostgresStorage(storage) ? redact(storage) : storage

const redact = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = "***"
    return parsed.toString()
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@")
  }
}

/** The table, its time index and the triggers that keep it append-only (idempotent). */
const sqliteSchema = `
CREATE TABLE IF NOT EXISTS ${AUDIT_TABLE} (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  ts_ms INTEGER NOT NULL, type TEXT NOT NULL, caller TEXT, tool TEXT, outcome TEXT, decision TEXT,
  record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_ts ON ${AUDIT_TABLE} (ts_ms);
CREATE TRIGGER IF NOT EXISTS ${AUDIT_TABLE}_no_update BEFORE UPDATE ON ${AUDIT_TABLE}
  BEGIN SELECT RAISE(ABORT, '${AUDIT_TABLE} is append-only'); END;
CREATE TRIGGER IF NOT EXISTS ${AUDIT_TABLE}_no_delete BEFORE DELETE ON ${AUDIT_TABLE}
  BEGIN SELECT RAISE(ABORT, '${AUDIT_TABLE} is append-only'); END;`

const postgresSchema = `
SELECT pg_advisory_xact_lock(7263022);
CREATE TABLE IF NOT EXISTS ${AUDIT_TABLE} (
  seq BIGSERIAL PRIMARY KEY,
  ts_ms BIGINT NOT NULL, type TEXT NOT NULL, caller TEXT, tool TEXT, outcome TEXT, decision TEXT,
  record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_ts ON ${AUDIT_TABLE} (ts_ms);
CREATE OR REPLACE FUNCTION ${AUDIT_TABLE}_append_only() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN RAISE EXCEPTION '${AUDIT_TABLE} is append-only'; END $$;
DROP TRIGGER IF EXISTS ${AUDIT_TABLE}_append_only ON ${AUDIT_TABLE};
CREATE TRIGGER ${AUDIT_TABLE}_append_only BEFORE UPDATE OR DELETE ON ${AUDIT_TABLE}
  FOR EACH STATEMENT EXECUTE FUNCTION ${AUDIT_TABLE}_append_only();`

/** One database: inserts a batch (in order, one transaction) and answers queries. */
interface Sink {
  readonly location: string
  /** Whether `insert` commits before it returns (SQLite). */
  readonly synchronous: boolean
  /** Inserts the rows; `"busy"` (SQLite: another connection holds the write lock) means try again later. */
  insert(rows: readonly Row[]): Promise<void> | "busy" | undefined
  select(where: string, params: readonly unknown[]): Promise<string[]>
  close(): Promise<void>
}

const SQLITE_BUSY = 5

const openSqliteSink = async (file: string, fsync: boolean): Promise<Sink> => {
  const { DatabaseSync } = await import("node:sqlite")
  // A new file is private (0600) before SQLite creates its journal beside it.
  if (file !== ":memory:" && !existsSync(file)) closeSync(openSync(file, "a", 0o600))
  const db = new DatabaseSync(file)
  // No busy wait on the event loop: a held lock is retried on a timer (see `insert`).
  db.exec("PRAGMA busy_timeout = 0")
  db.exec("PRAGMA journal_mode = WAL")
  db.exec(`PRAGMA synchronous = ${fsync ? "FULL" : "NORMAL"}`)
  db.exec("PRAGMA busy_timeout = 2000")
  db.exec(sqliteSchema)
  db.exec("PRAGMA busy_timeout = 0")
  const insert = db.prepare(`INSERT INTO ${AUDIT_TABLE} (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`)
  const begin = db.prepare("BEGIN IMMEDIATE")
  const commit = db.prepare("COMMIT")
  return {
    location: file,
    synchronous: true,
    insert: (rows) => {
      try {
        begin.run()
      } catch (error) {
        if ((error as { errcode?: unknown }).errcode === SQLITE_BUSY) return "busy"
        throw error
      }
      try {
        for (const row of rows) insert.run(...(row as unknown as (string | number | null)[]))
        commit.run()
      } catch (error) {
        if (db.isTransaction) db.exec("ROLLBACK")
        throw error
      }
      return undefined
    },
    // WAL: readers never wait for the writer.
    select: async (where, params) =>
      db
        .prepare(`SELECT record FROM ${AUDIT_TABLE}${where} ORDER BY seq`)
        .all(...(params as (string | number)[]))
        .map((r) => String(r.record)),
    close: async () => db.close(),
  }
}

/** Rows per INSERT statement (PostgreSQL takes at most 65535 parameters). */
const PG_ROWS_PER_INSERT = 1000

const openPostgresSink = async (url: string): Promise<Sink> => {
  const { default: Pg } = await import("pg")
  // Answers wait for their batch: an unreachable server fails the batch (onError) instead of holding
  // them forever.
  const pool: pg.Pool = new Pg.Pool({
    connectionString: url,
    max: 2,
    connectionTimeoutMillis: 10_000,
    query_timeout: 10_000,
  })
  // An idle connection the server dropped must not crash the gateway: the next query reconnects.
  pool.on("error", () => {})
  const client = await pool.connect()
  try {
    await client.query(`BEGIN;${postgresSchema}COMMIT;`)
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {})
    client.release()
    await pool.end()
    throw error
  }
  client.release()
  return {
    location: redact(url),
    synchronous: false,
    insert: async (rows) => {
      for (let i = 0; i < rows.length; i += PG_ROWS_PER_INSERT) {
        const chunk = rows.slice(i, i + PG_ROWS_PER_INSERT)
        const values: unknown[] = []
        const tuples = chunk.map((row, r) => {
          values.push(...row)
          const b = r * 7
          return `($${b + 1},$${b + 2},$${b + 3},$${b + 4},$${b + 5},$${b + 6},$${b + 7})`
        })
        await pool.query(`INSERT INTO ${AUDIT_TABLE} (${COLUMNS}) VALUES ${tuples.join(",")}`, values)
      }
    },
    select: async (where, params) => {
      let placeholder = 0
      const text = `SELECT record FROM ${AUDIT_TABLE}${where.replace(/\?/g, () => `$${++placeholder}`)} ORDER BY seq`
      return (await pool.query<{ record: string }>(text, params as unknown[])).rows.map((r) => r.record)
    },
    close: () => pool.end(),
  }
}

const openSink = (storage: string, fsync: boolean): Promise<Sink> =>
  isPostgresStorage(storage) ? openPostgresSink(storage) : openSqliteSink(storage, fsync)

/** How long a SQLite batch is retried while another connection holds the write lock. */
const BUSY_GIVE_UP_MS = 10_000

/**
 * Opens (creating the table if needed) the audit log in a durable store, a SQLite file or a PostgreSQL
 * URL. `write` queues like `commit` (its record is committed before any later `commit` resolves); `file`
 * is the store's location (a URL without its password).
 *
 * Used by `toolplane serve` (`[audit] sink = "store"`) and `toolplane audit --store`.
 *
 * @since 0.2.0
 */
export const openAuditStore = async (options: AuditStoreOptions): Promise<AuditLog> => {
  const sink = await openSink(options.storage, options.fsync === true)
  const timestamp = isoClock(options.now)
  const hmac = hmacSha256(typeof options.key === "string" ? Buffer.from(options.key) : options.key)
  const clear = options.clear ?? (() => false)
  let closed = false
  const rowOf = (entry: AuditEntry): Row => {
    const ts = timestamp()
    const e = entry as { type: string; caller?: string; tool?: string; outcome?: string; decision?: string }
    return [
      Date.parse(ts),
      e.type,
      e.caller ?? null,
      e.tool ?? null,
      e.outcome ?? null,
      e.decision ?? null,
      `{"ts":"${ts}",${JSON.stringify(entry).slice(1)}`,
    ]
  }

  // Group commit: one batch per turn of the event loop, committed in order; a batch that arrives while
  // one commits waits for it (PostgreSQL), so an answer never leaves before its record and every record
  // written before it are committed.
  let queue: Row[] = []
  let queueDone: (() => void) | undefined
  let queued: Promise<void> | undefined
  let flushing: Promise<void> = Promise.resolve()
  /** Batches committing (or waiting for the lock): a record written now would overtake them. */
  let committing = 0
  const flush = () => {
    const rows = queue
    const done = queueDone!
    queue = []
    queued = undefined
    queueDone = undefined
    const started = Date.now()
    const attempt = (): Promise<void> => {
      let result: ReturnType<Sink["insert"]>
      try {
        result = sink.insert(rows)
      } catch (error) {
        return Promise.reject(error)
      }
      if (result === "busy") {
        if (Date.now() - started > BUSY_GIVE_UP_MS)
          return Promise.reject(new Error(`${sink.location} stayed locked for ${BUSY_GIVE_UP_MS} ms`))
        return new Promise((resolve) => setTimeout(resolve, 2)).then(attempt)
      }
      return result ?? Promise.resolve()
    }
    committing++
    flushing = flushing
      .then(attempt)
      .catch((error: unknown) => options.onError?.(error))
      .then(() => {
        committing--
        done()
      })
  }
  const enqueue = (entry: AuditEntry): Promise<void> => {
    queue.push(rowOf(entry))
    if (queued === undefined) {
      queued = new Promise<void>((resolve) => {
        queueDone = resolve
      })
      setImmediate(flush)
    }
    return queued
  }
  return {
    file: sink.location,
    write: (entry) => {
      if (!closed) void enqueue(entry)
    },
    commit: (entry) => (closed ? Promise.resolve() : enqueue(entry)),
    // SQLite commits synchronously when nothing is queued or committing and the lock is free.
    commitNow: (entry) => {
      if (closed) return undefined
      if (sink.synchronous && queued === undefined && committing === 0) {
        try {
          if (sink.insert([rowOf(entry)]) !== "busy") return undefined
        } catch (error) {
          options.onError?.(error)
          return undefined
        }
      }
      return enqueue(entry)
    },
    hash: (value) => `hmac-sha256:${hmac(JSON.stringify(value) ?? "null")}`,
    clear,
    close: async () => {
      if (closed) return
      closed = true
      if (queued !== undefined) flush()
      await flushing
      await sink.close()
    },
  }
}

/**
 * The records of the audit log in a durable store, oldest first, that match `query` (as
 * {@link readAuditLog} for a file; a store has no torn lines, so `skipped` is 0).
 *
 * @since 0.2.0
 */
export const readAuditStore = async (
  storage: string,
  query: AuditQuery = {},
): Promise<{ readonly records: AuditRecord[]; readonly skipped: number }> => {
  if (!isPostgresStorage(storage) && !existsSync(storage)) return { records: [], skipped: 0 }
  const sink = await openSink(storage, false)
  try {
    const clauses: string[] = []
    const params: unknown[] = []
    const where = (clause: string, ...values: unknown[]) => {
      clauses.push(clause)
      params.push(...values)
    }
    if (query.type !== undefined) where("type = ?", query.type)
    if (query.caller !== undefined) where("caller = ?", query.caller)
    if (query.tool !== undefined && !query.tool.includes("*")) where("tool = ?", query.tool)
    if (query.outcome !== undefined) where("(outcome = ? OR decision = ?)", query.outcome, query.outcome)
    if (query.since !== undefined) where("ts_ms >= ?", Math.floor(query.since))
    if (query.until !== undefined) where("ts_ms <= ?", Math.floor(query.until))
    const texts = await sink.select(clauses.length > 0 ? ` WHERE ${clauses.join(" AND ")}` : "", params)
    const tool = query.tool?.includes("*") ? globTest(query.tool) : undefined
    const records: AuditRecord[] = []
    for (const text of texts) {
      const record = JSON.parse(text) as AuditRecord
      const name = (record as { tool?: unknown }).tool
      if (tool !== undefined && (typeof name !== "string" || !tool(name))) continue
      records.push(record)
    }
    return { records, skipped: 0 }
  } finally {
    await sink.close()
  }
}
