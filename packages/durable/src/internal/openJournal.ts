/**
 * Opens the journal a storage string names: a `postgres://` / `postgresql://` URL, or a SQLite file.
 *
 * @internal
 */
import { isPostgresStorage } from "../storage.js"
import type { Journal } from "./journal.js"
import { PostgresJournal } from "./postgresJournal.js"
import { SqliteJournal } from "./sqliteJournal.js"

export const openJournal = async (storage: string): Promise<Journal> =>
  isPostgresStorage(storage) ? PostgresJournal.open(storage) : new SqliteJournal(storage)
