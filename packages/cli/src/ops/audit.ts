/**
 * The audit log: an append-only JSON-lines file with one record per tool call, approval decision,
 * configuration reload and authentication failure. A call's record is in the file before the call's
 * answer leaves the gateway (the records of calls ending in one turn of the event loop share one `write`
 * at its end), so a crash of the process (SIGKILL included) loses no record of an answered call; `fsync` additionally survives a power loss. Arguments and results are
 * recorded as keyed hashes (HMAC-SHA256) unless the operator lists the tool in `clear`. The file rotates
 * by size (`file` → `file.1` → `file.2` …, `keep` old files).
 *
 * @since 0.1.0
 */
import { createHash, hash as sha } from "node:crypto"
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs"

/**
 * One audit record (a line of the file).
 *
 * @since 0.1.0
 */
export type AuditRecord = CallRecord | ApprovalRecord | ReloadRecord | AuthFailureRecord

interface Common {
  /** ISO 8601 time the record was written. */
  readonly ts: string
}

/**
 * A tool call.
 *
 * @since 0.1.0
 */
export interface CallRecord extends Common {
  readonly type: "call"
  readonly call_id: string
  /** The authenticated client id, or `"anonymous"`. */
  readonly caller: string
  readonly session?: string
  readonly scopes?: readonly string[]
  /** The served tool id (an alias or composite name as the client called it). */
  readonly tool: string
  /** The backend that served it (`"none"` when no backend was reached). */
  readonly backend: string
  /** `"none"` (no approval needed), `"approved"`, `"denied"` or `"required"` (nobody to ask). */
  readonly decision: "none" | "approved" | "denied" | "required"
  /** Who approved or denied: `"elicit"` (the calling user) or `"config"` (`approval = "allow" | "deny"`). */
  readonly decision_channel?: string
  /** `"ok"`, `"tool_error"` (an `isError` result) or the error's tag (`"Timeout"`, `"Cancelled"`, …). */
  readonly outcome: string
  readonly duration_ms: number
  /** `hmac-sha256:<base64url>` of the arguments' JSON, unless the tool is recorded in clear. */
  readonly args_hmac?: string
  readonly args?: unknown
  readonly result_hmac?: string
  readonly result?: unknown
  /** The error's message: only for tools recorded in clear (a message may quote arguments). */
  readonly error?: string
}

/**
 * An approval decision.
 *
 * @since 0.1.0
 */
export interface ApprovalRecord extends Common {
  readonly type: "approval"
  readonly call_id: string
  readonly tool: string
  readonly backend: string
  readonly caller: string
  readonly decision: "approved" | "denied" | "required"
  /** `"elicit"`: the calling client's user answered; `"config"`: the backend's `approval` mode decided. */
  readonly channel: string
  /** Who decided: the caller (elicitation) or `"config"`. */
  readonly by: string
  readonly reason?: string
  readonly waited_ms: number
}

/**
 * A configuration reload.
 *
 * @since 0.1.0
 */
export interface ReloadRecord extends Common {
  readonly type: "reload"
  readonly ok: boolean
  /** What triggered it (`"file changed"`, `"SIGHUP"`). */
  readonly trigger: string
  readonly added?: readonly string[]
  readonly removed?: readonly string[]
  readonly changed?: readonly string[]
  readonly error?: string
}

/**
 * A refused bearer token (never its contents).
 *
 * @since 0.1.0
 */
export interface AuthFailureRecord extends Common {
  readonly type: "auth_failure"
  /** The OAuth error code (`invalid_token`, …). */
  readonly reason: string
  readonly description?: string
}

/**
 * A record as handed to {@link AuditLog.write}: without its time, which the log adds.
 *
 * @since 0.1.0
 */
export type AuditEntry = AuditRecord extends infer R ? (R extends AuditRecord ? Omit<R, "ts"> : never) : never

/**
 * Options of {@link openAuditLog}.
 *
 * @since 0.1.0
 */
export interface AuditLogOptions {
  readonly file: string
  /** Rotate before the file would grow past this size. Default 10 MiB. */
  readonly maxBytes?: number
  /** Rotated files kept. Default 5. */
  readonly keep?: number
  /** HMAC key of argument and result hashes. */
  readonly key: string | Uint8Array
  /** Whether a tool's arguments and results are recorded in clear. Default: never. */
  readonly clear?: (tool: string) => boolean
  /** fsync after each write. Default false. */
  readonly fsync?: boolean
  /** A queued record could not be written (disk full, file removed…). */
  readonly onError?: (error: unknown) => void
  readonly now?: () => Date
}

/**
 * An open audit log.
 *
 * @since 0.1.0
 */
export interface AuditLog {
  readonly file: string
  /** Writes a record (synchronously: it is in the file when this returns). */
  write(entry: AuditEntry): void
  /**
   * Queues a record; the promise resolves once it is in the file (or its write failed: `onError`).
   * Records queued in one turn of the event loop are written together at its end (group commit).
   */
  commit(entry: AuditEntry): Promise<void>
  /**
   * Writes a record at once when no group is queued (returns undefined: it is in the file, or its
   * write failed: `onError`), else joins the queued group as {@link AuditLog.commit} does. For a call
   * that ends while no other call is in flight: no group could form, and waiting for the end of the turn
   * would cost a turn of the event loop and a promise per call.
   *
   * @since 0.2.0
   */
  commitNow(entry: AuditEntry): Promise<void> | undefined
  /** `hmac-sha256:<base64url>` of a value's JSON text. */
  hash(value: unknown): string
  /** Whether the tool's arguments and results are recorded in clear. */
  clear(tool: string): boolean
  /** Waits for queued records to be written, then closes the file. */
  close(): Promise<void>
}

/**
 * HMAC-SHA256 (RFC 2104) of UTF-8 text, base64url: two one-shot hashes over a reused buffer (no Hmac
 * or key object per call, which the profile of a gateway writing a record per call showed).
 *
 * @internal
 */
export const hmacSha256 = (key: Uint8Array): ((text: string) => string) => {
  const block = Buffer.alloc(64)
  if (key.length > 64) createHash("sha256").update(key).digest().copy(block)
  else block.set(key)
  const ipad = Buffer.from(block.map((b) => b ^ 0x36))
  const outer = Buffer.alloc(96)
  outer.set(block.map((b) => b ^ 0x5c))
  let inner = Buffer.allocUnsafe(4096)
  ipad.copy(inner)
  return (text) => {
    const need = 64 + Buffer.byteLength(text)
    if (need > inner.length) {
      inner = Buffer.allocUnsafe(need * 2)
      ipad.copy(inner)
    }
    const n = inner.write(text, 64, "utf8")
    sha("sha256", inner.subarray(0, 64 + n), "buffer").copy(outer, 64)
    return sha("sha256", outer, "base64url")
  }
}

/**
 * The record time as ISO text, made once per millisecond (records of one millisecond share it). Without
 * `now` the clock is `Date.now()`, and a `Date` is made only when the millisecond changed.
 *
 * @internal
 */
export const isoClock = (now?: () => Date): (() => string) => {
  let lastMs = -1
  let lastIso = ""
  if (now === undefined)
    return () => {
      const ms = Date.now()
      if (ms !== lastMs) {
        lastMs = ms
        lastIso = new Date(ms).toISOString()
      }
      return lastIso
    }
  return () => {
    const date = now()
    const ms = date.getTime()
    if (ms !== lastMs) {
      lastMs = ms
      lastIso = date.toISOString()
    }
    return lastIso
  }
}

/**
 * Opens (creating or appending to) an audit log file.
 *
 * @since 0.1.0
 */
export const openAuditLog = (options: AuditLogOptions): AuditLog => {
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024
  const keep = options.keep ?? 5
  const hmac = hmacSha256(typeof options.key === "string" ? Buffer.from(options.key) : options.key)
  const clear = options.clear ?? (() => false)
  let fd = openSync(options.file, "a", 0o600)
  let size = fstatSync(fd).size
  const rotate = () => {
    closeSync(fd)
    if (keep === 0) rmSync(options.file, { force: true })
    else {
      rmSync(`${options.file}.${keep}`, { force: true })
      for (let n = keep - 1; n >= 1; n--)
        if (existsSync(`${options.file}.${n}`)) renameSync(`${options.file}.${n}`, `${options.file}.${n + 1}`)
      renameSync(options.file, `${options.file}.1`)
    }
    fd = openSync(options.file, "a", 0o600)
    size = 0
  }
  let closed = false
  const timestamp = isoClock(options.now)
  /** Appends lines (each ending in a newline) synchronously, rotating as needed. */
  const append = (lines: readonly string[]) => {
    let chunk = ""
    let chunkBytes = 0
    for (const line of lines) {
      const bytes = Buffer.byteLength(line)
      if (size + chunkBytes > 0 && size + chunkBytes + bytes > maxBytes) {
        if (chunk !== "") writeSync(fd, chunk)
        chunk = ""
        chunkBytes = 0
        rotate()
      }
      chunk += line
      chunkBytes += bytes
    }
    if (chunk !== "") writeSync(fd, chunk)
    size += chunkBytes
    if (options.fsync) fsyncSync(fd)
  }
  /** One line: one `write` (the line's byte length is only measured when the file is near `maxBytes`). */
  const appendLine = (line: string) => {
    // A UTF-8 byte is at most 3 per UTF-16 unit: below that bound no rotation check needs the exact size.
    const bytes = size + line.length * 3 <= maxBytes ? undefined : Buffer.byteLength(line)
    if (bytes !== undefined && size > 0 && size + bytes > maxBytes) rotate()
    size += writeSync(fd, line)
    if (options.fsync) fsyncSync(fd)
  }
  const lineOf = (entry: AuditEntry) => `{"ts":"${timestamp()}",${JSON.stringify(entry).slice(1)}\n`

  // Group commit: records of calls that end in the same turn of the event loop are written together,
  // with one write at the end of that turn (setImmediate), and their answers wait for it. A synchronous
  // write costs a fraction of a thread-pool round trip per record; under load a turn ends many calls.
  let queue: string[] = []
  let queueDone: (() => void) | undefined
  let queued: Promise<void> | undefined
  const writeQueued = () => {
    const lines = queue
    const done = queueDone!
    queue = []
    queued = undefined
    queueDone = undefined
    try {
      if (!closed) append(lines)
    } catch (error) {
      options.onError?.(error)
    }
    done()
  }
  return {
    file: options.file,
    write: (entry) => {
      if (closed) return
      appendLine(lineOf(entry))
    },
    commit: (entry) => {
      if (closed) return Promise.resolve()
      queue.push(lineOf(entry))
      if (queued === undefined) {
        queued = new Promise<void>((resolve) => {
          queueDone = resolve
        })
        setImmediate(writeQueued)
      }
      return queued
    },
    commitNow: (entry) => {
      if (closed) return undefined
      if (queued !== undefined) {
        queue.push(lineOf(entry))
        return queued
      }
      try {
        appendLine(lineOf(entry))
      } catch (error) {
        options.onError?.(error)
      }
      return undefined
    },
    hash: (value) => `hmac-sha256:${hmac(JSON.stringify(value) ?? "null")}`,
    clear,
    close: async () => {
      if (closed) return
      if (queued !== undefined) writeQueued()
      closed = true
      closeSync(fd)
    },
  }
}

/**
 * What {@link readAuditLog} keeps.
 *
 * @since 0.1.0
 */
export interface AuditQuery {
  readonly type?: AuditRecord["type"]
  readonly caller?: string
  /** A tool id, or a pattern with `*`. */
  readonly tool?: string
  readonly outcome?: string
  /** Epoch ms bounds (inclusive). */
  readonly since?: number
  readonly until?: number
}

/** @internal */
export const globTest = (pattern: string): ((value: string) => boolean) => {
  if (!pattern.includes("*")) return (value) => value === pattern
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  )
  return (value) => re.test(value)
}

/**
 * The records of an audit log and its rotated files, oldest first, that match `query`. A line that is
 * not a JSON object (a record torn by a power loss without `fsync`) is skipped and counted.
 *
 * @since 0.1.0
 */
export const readAuditLog = (
  file: string,
  query: AuditQuery = {},
): { readonly records: AuditRecord[]; readonly skipped: number } => {
  const files: string[] = []
  for (let n = 1; existsSync(`${file}.${n}`); n++) files.unshift(`${file}.${n}`)
  if (existsSync(file)) files.push(file)
  const tool = query.tool === undefined ? undefined : globTest(query.tool)
  const records: AuditRecord[] = []
  let skipped = 0
  for (const f of files)
    for (const line of readFileSync(f, "utf8").split("\n")) {
      if (line === "") continue
      let record: AuditRecord
      try {
        record = JSON.parse(line) as AuditRecord
      } catch {
        skipped++
        continue
      }
      if (typeof record !== "object" || record === null || typeof record.ts !== "string") {
        skipped++
        continue
      }
      if (query.type !== undefined && record.type !== query.type) continue
      const r = record as Partial<CallRecord>
      if (query.caller !== undefined && r.caller !== query.caller) continue
      if (tool !== undefined && (r.tool === undefined || !tool(r.tool))) continue
      if (query.outcome !== undefined && r.outcome !== query.outcome && r.decision !== query.outcome) continue
      const t = Date.parse(record.ts)
      if (query.since !== undefined && t < query.since) continue
      if (query.until !== undefined && t > query.until) continue
      records.push(record)
    }
  return { records, skipped }
}
