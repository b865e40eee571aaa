/**
 * What a storage string names.
 *
 * @since 0.1.0
 */

/**
 * Whether `storage` is a PostgreSQL URL (`postgres://` or `postgresql://`, distributed mode) rather than
 * a SQLite file path (embedded mode).
 *
 * @example
 * ```ts
 * isPostgresStorage("postgres://toolplane@db:5432/runs") // true
 * isPostgresStorage("runs.db") // false
 * ```
 * @since 0.1.0
 */
export const isPostgresStorage = (storage: string): boolean => /^postgres(ql)?:\/\//i.test(storage)
