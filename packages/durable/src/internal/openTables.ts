/**
 * Opens the SQL client a storage string names (a SQLite file through our node:sqlite driver, or a
 * PostgreSQL URL through @effect/sql-pg) and the runs tables on it; a failure is `StorageUnavailable`
 * naming the file or the URL (password hidden).
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as SqlClient from "effect/sql/SqlClient"
import { StorageUnavailable } from "../errors.js"
import { isPostgresStorage } from "../storage.js"
import { sqlClientLayer } from "./engine.js"
import { makeRunTables, type RunTables } from "./runTables.js"

export interface Opened {
  readonly tables: RunTables
  readonly sql: SqlClient.SqlClient
  /** Runs one of the tables' effects. */
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  close(): Promise<void>
}

/** A URL without its password, for messages. */
export const redactUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = "***"
    return parsed.toString()
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@")
  }
}

/** The deepest message of an error chain (the driver's own, e.g. `connect ECONNREFUSED ...`). */
const reasonOf = (error: unknown): string => {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; current !== undefined && current !== null && depth < 6; depth++) {
    const message = (current as { message?: unknown }).message
    const code = (current as { code?: unknown }).code
    if (typeof message === "string" && message !== "" && !parts.includes(message))
      parts.push(typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message)
    current = (current as { cause?: unknown }).cause
  }
  return parts.join(": ") || String(error)
}

export const openTables = async (storage: string): Promise<Opened> => {
  const location = isPostgresStorage(storage) ? redactUrl(storage) : storage
  const runtime = ManagedRuntime.make(sqlClientLayer(storage))
  const exit = await runtime.runPromiseExit(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return { sql, tables: yield* makeRunTables(sql, location) }
    }),
  )
  if (Exit.isFailure(exit)) {
    await runtime.dispose().catch(() => {})
    throw new StorageUnavailable({ storage: location, reason: reasonOf(Cause.squash(exit.cause)) })
  }
  return {
    ...exit.value,
    run: (effect) => Effect.runPromise(effect),
    close: () => runtime.dispose(),
  }
}
