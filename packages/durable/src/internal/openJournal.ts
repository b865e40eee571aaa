/**
 * Opens the journal a storage string names: a `postgres://` / `postgresql://` URL, or a SQLite file.
 *
 * @internal
 */
import { StorageUnavailable } from "../errors.js"
import { isPostgresStorage } from "../storage.js"
import { type Journal, redactUrl } from "./journal.js"
import { PostgresJournal } from "./postgresJournal.js"
import { SqliteJournal } from "./sqliteJournal.js"

export const openJournal = async (storage: string): Promise<Journal> => {
  try {
    return isPostgresStorage(storage) ? await PostgresJournal.open(storage) : new SqliteJournal(storage)
  } catch (error) {
    const reason =
      (error as { code?: string }).code !== undefined
        ? `${(error as Error).message} (${(error as { code: string }).code})`
        : String((error as Error)?.message ?? error)
    throw new StorageUnavailable({
      storage: isPostgresStorage(storage) ? redactUrl(storage) : storage,
      reason,
    })
  }
}
