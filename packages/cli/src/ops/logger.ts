/**
 * The operator log of `toolplane serve`: one line per event (start, reloads, backends lost and back,
 * auth failures, approvals, sandbox limits, shutdown), as readable text (default) or JSON lines
 * (`--log-format json`), filtered by level (`--log-level`). Every part of the CLI logs through one
 * {@link Logger}: `log.warn("backend.lost", { backend: "docs", error })`.
 *
 * @since 0.1.0
 */

/**
 * Severity of an operator log line, lowest first.
 *
 * @since 0.1.0
 */
export type LogLevel = "debug" | "info" | "warn" | "error"

/**
 * How lines are written: `"text"` (`toolplane: <message or event> key=value …`) or `"json"` (one
 * object per line: `time`, `level`, `event`, the fields).
 *
 * @since 0.1.0
 */
export type LogFormat = "text" | "json"

/**
 * Fields of one log line. `msg`, when given, is the whole line of the text format (a sentence for
 * people; JSON lines keep every field). Never put secrets (tokens, argument values) in fields.
 *
 * @since 0.1.0
 */
export type LogFields = Readonly<Record<string, unknown>> & { readonly msg?: string }

/**
 * The operator logger.
 *
 * @since 0.1.0
 */
export interface Logger {
  readonly level: LogLevel
  readonly format: LogFormat
  /** Whether a line of `level` would be written (to skip building costly fields). */
  enabled(level: LogLevel): boolean
  debug(event: string, fields?: LogFields): void
  info(event: string, fields?: LogFields): void
  warn(event: string, fields?: LogFields): void
  error(event: string, fields?: LogFields): void
}

/**
 * Options of {@link createLogger}.
 *
 * @since 0.1.0
 */
export interface LoggerOptions {
  /** Default `"text"`. */
  readonly format?: LogFormat
  /** Lowest level written. Default `"info"`. */
  readonly level?: LogLevel
  /** Where each line goes (with its trailing newline). */
  readonly write: (line: string) => void
  /** The clock (tests). */
  readonly now?: () => Date
}

const RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 }

/**
 * The log levels, lowest first.
 *
 * @since 0.1.0
 */
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"]

const textValue = (value: unknown): string => {
  if (value instanceof Error) return JSON.stringify(value.message)
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value)
  return JSON.stringify(value) ?? "undefined"
}

const jsonValue = (_key: string, value: unknown): unknown =>
  value instanceof Error ? value.message : typeof value === "bigint" ? value.toString() : value

/**
 * A logger writing lines to `write`.
 *
 * @example
 * ```ts no-check
 * const log = createLogger({ format: "json", level: "info", write: (line) => process.stderr.write(line) })
 * log.warn("backend.lost", { backend: "docs", error: "EPIPE" })
 * ```
 * @since 0.1.0
 */
export const createLogger = (options: LoggerOptions): Logger => {
  const format = options.format ?? "text"
  const level = options.level ?? "info"
  const min = RANK[level]
  const now = options.now ?? (() => new Date())
  const line = (lvl: LogLevel, event: string, fields: LogFields | undefined) => {
    if (RANK[lvl] < min) return
    if (format === "json") {
      options.write(
        `${JSON.stringify({ time: now().toISOString(), level: lvl, event, ...fields }, jsonValue)}\n`,
      )
      return
    }
    // A message is the whole line (the existing sentences stay as they were); otherwise event and fields.
    if (fields?.msg !== undefined) {
      options.write(`toolplane: ${fields.msg}\n`)
      return
    }
    const prefix = lvl === "warn" || lvl === "error" ? `${lvl === "warn" ? "warning" : "error"}: ` : ""
    const parts = [`toolplane: ${prefix}${event}`]
    if (fields)
      for (const [key, value] of Object.entries(fields))
        if (value !== undefined) parts.push(`${key}=${textValue(value)}`)
    options.write(`${parts.join(" ")}\n`)
  }
  return {
    level,
    format,
    enabled: (lvl) => RANK[lvl] >= min,
    debug: (event, fields) => line("debug", event, fields),
    info: (event, fields) => line("info", event, fields),
    warn: (event, fields) => line("warn", event, fields),
    error: (event, fields) => line("error", event, fields),
  }
}

/**
 * A logger that writes nothing.
 *
 * @since 0.1.0
 */
export const silentLogger: Logger = createLogger({ level: "error", write: () => {} })
