/**
 * A minimal HTTP/1.1 client on raw `node:net` sockets with a keep-alive pool, for the hot path of the
 * Streamable HTTP client transport (the POST of each JSON-RPC message). `node:http`'s `ClientRequest`,
 * `Agent` and `IncomingMessage` cost about a fifth of the gateway's CPU per relayed call (header objects,
 * streams, events, timers per request); here a request is one prebuilt string written in one `write`,
 * and a response is parsed straight from the socket's chunks: status line, headers, then a body framed by
 * `content-length`, `transfer-encoding: chunked` or the end of the connection. A body is either taken
 * whole ({@link Http1Response.text}, capped) or streamed as it arrives ({@link Http1Response.stream}, for
 * SSE).
 *
 * What it does not do: TLS (https URLs stay on `node:https`), request bodies in several writes, upgrades,
 * pipelining (one request per socket at a time; more sockets are opened as needed).
 *
 * A socket is reused only after a complete response that allows it (HTTP/1.1 without `connection: close`,
 * or HTTP/1.0 with `connection: keep-alive`, and a body not framed by the end of the connection), and not
 * after the server's `keep-alive: timeout` has (nearly) passed. A request sent on a reused socket that
 * closes before any byte of the answer arrived is sent once more on a new socket (the server closed an
 * idle connection just as it was reused), as `node:http` does.
 *
 * @internal
 * @since 0.1.0
 */
import { maxHeaderSize } from "node:http"
import { connect, type Socket } from "node:net"
import { StringDecoder } from "node:string_decoder"

/**
 * A failure of the HTTP exchange itself: the connection (`ECONNRESET` when it closed before the answer
 * ended, or the socket's own code), a malformed answer (`HPE_INVALID`), or an answer over a cap
 * (`HPE_TOO_LARGE`).
 */
export class Http1Error extends Error {
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.name = "Http1Error"
    this.code = code
  }
}

/** Options of {@link Http1Pool}. */
export interface Http1PoolOptions {
  readonly host: string
  readonly port: number
  /** Largest response head (status line and headers). Default: `node:http`'s `maxHeaderSize` (16 KiB). */
  readonly maxHeaderBytes?: number
  /** Largest body {@link Http1Response.text} takes. Default 64 MiB. */
  readonly maxBodyBytes?: number
  /** Idle sockets kept for reuse. Default 64. */
  readonly maxIdle?: number
  /** Longest a socket stays reusable while idle when the server names no keep-alive timeout. Default 15 s. */
  readonly idleMs?: number
}

/** An answer whose head has arrived; its body is read with exactly one of `text`, `stream`, `discard`. */
export interface Http1Response {
  readonly status: number
  /** A header's value by its lower-case name; a repeated header's values joined with `, `. */
  header(name: string): string | undefined
  /** The whole body as UTF-8 (rejects past `maxBodyBytes` or when the connection fails first). */
  text(): Promise<string>
  /**
   * The whole body as UTF-8, taken now, when it has already arrived complete (it usually comes with the
   * head); `undefined` otherwise, and then the body is still there for `text`, `stream` or `discard`.
   */
  textNow(): string | undefined
  /** The body as UTF-8 text as it arrives; `onEnd` once, with the error when the body did not end well. */
  stream(onText: (text: string) => void, onEnd: (error?: Error) => void): void
  /** Reads and drops the body (the socket stays reusable). */
  discard(): void
}

const CRLFCRLF = Buffer.from("\r\n\r\n")
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/**
 * `tchar` of RFC 9110 by char code (1: allowed in a header name); the raw edge checks request heads with it.
 *
 * @internal
 */
export const TOKEN_CHAR = new Uint8Array(256)
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
  TOKEN_CHAR[c.charCodeAt(0)] = 1
/** Visible characters, spaces, tabs and obs-text: no CR, LF, NUL or other controls. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/
const isDigit = (c: number): boolean => c >= 48 && c <= 57

/**
 * The status code of an `HTTP/1.0` or `HTTP/1.1` status line (`HTTP/1.x NNN`, then nothing or a space and
 * a reason phrase without CR or LF), else -1. By hand: a regular expression was the largest part of
 * parsing a small answer's head.
 */
const statusCodeOf = (line: string): number => {
  const minor = line.charCodeAt(7)
  if (
    !line.startsWith("HTTP/1.") ||
    (minor !== 48 && minor !== 49) ||
    line.charCodeAt(8) !== 32 ||
    !isDigit(line.charCodeAt(9)) ||
    !isDigit(line.charCodeAt(10)) ||
    !isDigit(line.charCodeAt(11))
  )
    return -1
  if (line.length > 12 && (line.charCodeAt(12) !== 32 || line.includes("\r") || line.includes("\n")))
    return -1
  return Number(line.slice(9, 12))
}

/** The last `keep-alive` header value seen and its `timeout` in seconds (servers send the same one). */
let lastKeepAlive = ""
let lastKeepAliveTimeout: number | undefined
const keepAliveTimeoutOf = (value: string): number | undefined => {
  if (value !== lastKeepAlive) {
    const match = /timeout=(\d+)/.exec(value)
    lastKeepAlive = value
    lastKeepAliveTimeout = match ? Number(match[1]) : undefined
  }
  return lastKeepAliveTimeout
}
const DIGITS = /^\d{1,15}$/
/** Header lines of an answer that are read (`node:http`'s client keeps as many: `maxHeadersCount` 2000 / 2). */
const MAX_HEADER_LINES = 1000

/** Whether `name: value` can be written into a request head as it is (no header injection). */
export const isValidHeader = (name: string, value: string): boolean =>
  TOKEN.test(name) && FIELD_VALUE.test(value)

/** The headers of an exchange whose head has not arrived: one empty map for all (the parser makes a new one). */
const NO_HEADERS: Map<string, string> = new Map()

type BodyMode = "none" | "length" | "chunked" | "close"
type ChunkState = "size" | "data" | "dataEnd" | "trailer"

/** One request and its answer on one connection. */
class Exchange implements Http1Response {
  status = 0
  /** Until the head is parsed, the shared empty map (never written to). */
  headers: Map<string, string> = NO_HEADERS
  readonly message: string | Buffer
  readonly resolveHead: (response: Http1Response) => void
  readonly rejectHead: (error: Error) => void
  headDone = false
  /** Bytes of the answer received so far (0: nothing yet, the request may be retried). */
  received = 0
  mode: BodyMode = "none"
  remaining = 0
  chunkState: ChunkState = "size"
  line = ""
  keepAlive = false
  ended = false
  error: Error | undefined
  // The body sink: buffered until a reader picks one.
  chunks: Buffer[] = []
  size = 0
  sink: "buffer" | "text" | "stream" | "discard" = "buffer"
  maxBody: number
  onText: ((text: string) => void) | undefined
  onEnd: ((error?: Error) => void) | undefined
  decoder: StringDecoder | undefined
  resolveText: ((text: string) => void) | undefined
  rejectText: ((error: Error) => void) | undefined

  constructor(
    message: string | Buffer,
    maxBody: number,
    resolve: (response: Http1Response) => void,
    reject: (error: Error) => void,
  ) {
    this.message = message
    this.maxBody = maxBody
    this.resolveHead = resolve
    this.rejectHead = reject
  }

  header(name: string): string | undefined {
    return this.headers.get(name)
  }

  text(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.sink = "text"
      if (this.error) return reject(this.error)
      if (this.ended) return resolve(this.#joined())
      this.resolveText = resolve
      this.rejectText = reject
    })
  }

  textNow(): string | undefined {
    if (!this.ended || this.error) return undefined
    this.sink = "text"
    return this.#joined()
  }

  stream(onText: (text: string) => void, onEnd: (error?: Error) => void): void {
    this.sink = "stream"
    this.onText = onText
    this.onEnd = onEnd
    this.decoder = new StringDecoder("utf8")
    if (this.size > 0) {
      const text = this.decoder.write(this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks))
      this.chunks = []
      this.size = 0
      if (text !== "") onText(text)
    }
    if (this.error) onEnd(this.error)
    else if (this.ended) {
      const rest = this.decoder.end()
      if (rest !== "") onText(rest)
      onEnd()
    }
  }

  discard(): void {
    this.sink = "discard"
    this.chunks = []
    this.size = 0
  }

  #joined(): string {
    const chunks = this.chunks
    this.chunks = []
    if (chunks.length === 0) return ""
    return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.size)).toString("utf8")
  }

  /** Body bytes. Returns false when they go over the cap (the exchange has failed). */
  body(bytes: Buffer): boolean {
    if (bytes.length === 0) return true
    switch (this.sink) {
      case "discard":
        return true
      case "stream": {
        const text = this.decoder!.write(bytes)
        if (text !== "") this.onText!(text)
        return true
      }
      default:
        this.size += bytes.length
        if (this.size > this.maxBody) {
          this.fail(new Http1Error("HPE_TOO_LARGE", `response body over ${this.maxBody} bytes`))
          return false
        }
        this.chunks.push(bytes)
        return true
    }
  }

  end(): void {
    if (this.ended || this.error) return
    this.ended = true
    if (this.sink === "text") this.resolveText?.(this.#joined())
    else if (this.sink === "stream") {
      const rest = this.decoder!.end()
      if (rest !== "") this.onText!(rest)
      this.onEnd!()
    }
  }

  fail(error: Error): void {
    if (this.ended || this.error) return
    this.error = error
    this.chunks = []
    if (!this.headDone) {
      this.headDone = true
      this.rejectHead(error)
    } else if (this.sink === "text") this.rejectText?.(error)
    else if (this.sink === "stream") this.onEnd!(error)
  }
}

/** One socket; at most one exchange at a time. */
class Connection {
  readonly socket: Socket
  readonly pool: Http1Pool
  exchange: Exchange | undefined
  head: Buffer | undefined
  reused = false
  idleSince = 0
  idleLimit: number
  closed = false

  constructor(pool: Http1Pool, socket: Socket, idleLimit: number) {
    this.pool = pool
    this.socket = socket
    this.idleLimit = idleLimit
    socket.setNoDelay(true)
    socket.on("data", (chunk: Buffer) => this.#data(chunk))
    socket.on("error", (error) => this.#gone(error))
    socket.on("close", () => this.#gone(undefined))
    socket.on("end", () => {
      // The server ended its side: a body framed by the connection ends here; anything else is cut short.
      const exchange = this.exchange
      if (exchange?.headDone && exchange.mode === "close" && !exchange.error) {
        this.exchange = undefined
        exchange.end()
      }
      socket.destroy()
    })
  }

  start(exchange: Exchange): void {
    this.exchange = exchange
    this.head = undefined
    this.socket.write(exchange.message)
  }

  #gone(error: Error | undefined): void {
    if (this.closed) return
    this.closed = true
    this.pool.forget(this)
    const exchange = this.exchange
    this.exchange = undefined
    if (!exchange) return
    if (exchange.received === 0 && this.reused && !this.pool.closed) {
      // The server closed an idle connection just as it was reused: the request never reached it.
      this.pool.retry(exchange)
      return
    }
    const code = (error as { code?: string } | undefined)?.code ?? "ECONNRESET"
    exchange.fail(
      new Http1Error(
        code,
        error
          ? `connection failed: ${error.message}`
          : this.pool.closed
            ? "connection closed: the transport was closed"
            : "connection closed before the response ended",
      ),
    )
  }

  #fail(error: Http1Error): void {
    const exchange = this.exchange
    this.exchange = undefined
    this.closed = true
    this.pool.forget(this)
    this.socket.destroy()
    exchange?.fail(error)
  }

  #data(bytes: Buffer): void {
    let chunk = bytes
    const exchange = this.exchange
    if (!exchange) {
      // Bytes no request asked for: the connection cannot be trusted any more.
      this.closed = true
      this.pool.forget(this)
      this.socket.destroy()
      return
    }
    exchange.received += chunk.length
    if (!exchange.headDone) {
      const rest = this.#head(exchange, chunk)
      if (rest === undefined) return
      chunk = rest
    }
    this.#body(exchange, chunk, 0)
  }

  /** Parses the response head; returns the bytes after it, or `undefined` (more needed, or failed). */
  #head(exchange: Exchange, chunk: Buffer): Buffer | undefined {
    let bytes = chunk
    let from = 0
    if (this.head !== undefined) {
      from = Math.max(0, this.head.length - 3)
      bytes = Buffer.concat([this.head, chunk])
      this.head = undefined
    }
    const max = this.pool.maxHeaderBytes
    for (;;) {
      const end = bytes.indexOf(CRLFCRLF, from)
      if (end < 0 || end > max) {
        if (end > max || bytes.length > max) {
          this.#fail(new Http1Error("HPE_TOO_LARGE", `response head over ${max} bytes`))
          return undefined
        }
        this.head = bytes
        return undefined
      }
      const error = this.#parseHead(exchange, bytes.toString("latin1", 0, end))
      if (error !== undefined) {
        this.#fail(new Http1Error("HPE_INVALID", `invalid HTTP response: ${error}`))
        return undefined
      }
      bytes = bytes.subarray(end + 4)
      if (exchange.status < 200) {
        // An interim answer (103 Early Hints, 100 Continue): the real one follows.
        exchange.headers = new Map()
        from = 0
        if (bytes.length === 0) return undefined
        continue
      }
      exchange.headDone = true
      exchange.resolveHead(exchange)
      // The reader attaches in a later tick; the body so far is buffered until then.
      return bytes
    }
  }

  /** Returns a reason when the head is malformed. */
  #parseHead(exchange: Exchange, text: string): string | undefined {
    let eol = text.indexOf("\r\n")
    if (eol < 0) eol = text.length
    const statusLine = eol === text.length ? text : text.slice(0, eol)
    const status = statusCodeOf(statusLine)
    if (status < 0) return `bad status line ${JSON.stringify(statusLine.slice(0, 100))}`
    const minor = statusLine.charCodeAt(7) === 49 ? "1" : "0"
    exchange.status = status
    if (exchange.status === 101) return "unexpected protocol switch (101)"
    // A Map: header names are arbitrary keys (an object would go to dictionary mode on every answer).
    // One pass over the lines, no split and no regular expression per line.
    const headers = new Map<string, string>()
    let lines = 0
    for (let at = eol + 2; at < text.length; ) {
      let end = text.indexOf("\r\n", at)
      if (end < 0) end = text.length
      const found = text.indexOf(":", at)
      const colon = found < 0 || found >= end ? -1 : found
      if (colon <= at) return `bad header line ${JSON.stringify(text.slice(at, Math.min(end, at + 100)))}`
      let upper = false
      for (let i = at; i < colon; i++) {
        const c = text.charCodeAt(i)
        if (TOKEN_CHAR[c] !== 1)
          return `bad header name ${JSON.stringify(text.slice(at, colon).toLowerCase().slice(0, 100))}`
        if (c >= 65 && c <= 90) upper = true
      }
      const raw = text.slice(at, colon)
      const name = upper ? raw.toLowerCase() : raw
      // As node:http: a value holds visible characters, SP, HTAB and obs-text only (a bare CR or LF, a
      // NUL or another control character fails the answer instead of ending up in a header).
      for (let i = colon + 1; i < end; i++) {
        const c = text.charCodeAt(i)
        if ((c < 32 && c !== 9) || c === 127)
          return `bad header value for ${JSON.stringify(name.slice(0, 100))}`
      }
      at = end + 2
      // As node:http's client: lines past its header count are checked but not read.
      if (++lines > MAX_HEADER_LINES) continue
      if (name === "content-length" && headers.has(name)) return "content-length given twice"
      const value = text.slice(colon + 1, end).trim()
      const seen = headers.get(name)
      headers.set(name, seen === undefined ? value : `${seen}, ${value}`)
    }
    exchange.headers = headers
    if (exchange.status < 200) return undefined
    const connection = (headers.get("connection") ?? "").toLowerCase()
    let keepAlive =
      minor === "1"
        ? connection === "keep-alive" || connection === "" || !/(^|,)\s*close\s*(,|$)/.test(connection)
        : /keep-alive/.test(connection)
    const te = headers.get("transfer-encoding")
    const cl = headers.get("content-length")
    if (exchange.status === 204 || exchange.status === 304) exchange.mode = "none"
    else if (te !== undefined) {
      if (/(^|,)\s*chunked\s*$/i.test(te)) exchange.mode = "chunked"
      else {
        exchange.mode = "close"
        keepAlive = false
      }
      // Both framings: refused, as node:http does (a smuggling shape).
      if (cl !== undefined) return "both content-length and transfer-encoding"
    } else if (cl !== undefined) {
      // One plain decimal length, as node:http accepts (no list, no sign).
      if (!DIGITS.test(cl)) return `bad content-length ${JSON.stringify(cl.slice(0, 100))}`
      exchange.remaining = Number(cl)
      exchange.mode = exchange.remaining === 0 ? "none" : "length"
    } else {
      exchange.mode = "close"
      keepAlive = false
    }
    exchange.keepAlive = keepAlive
    const keepAliveHint = headers.get("keep-alive")
    const timeout = keepAliveHint === undefined ? undefined : keepAliveTimeoutOf(keepAliveHint)
    if (timeout !== undefined) this.idleLimit = Math.min(this.idleLimit, Math.max(0, timeout * 1000 - 1000))
    return undefined
  }

  #body(exchange: Exchange, chunk: Buffer, at: number): void {
    switch (exchange.mode) {
      case "none":
        if (at < chunk.length) {
          this.#extra()
          return
        }
        this.#done(exchange)
        return
      case "close":
        if (!exchange.body(at === 0 ? chunk : chunk.subarray(at))) this.#drop()
        return
      case "length": {
        const take = Math.min(exchange.remaining, chunk.length - at)
        exchange.remaining -= take
        if (!exchange.body(at === 0 && take === chunk.length ? chunk : chunk.subarray(at, at + take))) {
          this.#drop()
          return
        }
        if (exchange.remaining > 0) return
        if (at + take < chunk.length) {
          this.#extra()
          return
        }
        this.#done(exchange)
        return
      }
      case "chunked":
        this.#chunked(exchange, chunk, at)
        return
    }
  }

  #chunked(exchange: Exchange, chunk: Buffer, at: number): void {
    let i = at
    while (i < chunk.length) {
      switch (exchange.chunkState) {
        case "size":
        case "trailer":
        case "dataEnd": {
          const nl = chunk.indexOf(10, i)
          const part = chunk.toString("latin1", i, nl < 0 ? chunk.length : nl)
          exchange.line += part
          if (exchange.line.length > 4096) {
            this.#fail(new Http1Error("HPE_INVALID", "invalid HTTP response: chunk framing line too long"))
            return
          }
          if (nl < 0) return
          i = nl + 1
          let line = exchange.line
          exchange.line = ""
          if (!line.endsWith("\r")) {
            this.#fail(new Http1Error("HPE_INVALID", "invalid HTTP response: chunk framing without CRLF"))
            return
          }
          line = line.slice(0, -1)
          if (exchange.chunkState === "dataEnd") {
            if (line !== "") {
              this.#fail(new Http1Error("HPE_INVALID", "invalid HTTP response: chunk longer than its size"))
              return
            }
            exchange.chunkState = "size"
          } else if (exchange.chunkState === "size") {
            const size = /^([0-9A-Fa-f]{1,12})[ \t]*(;.*)?$/.exec(line)
            if (!size) {
              this.#fail(
                new Http1Error(
                  "HPE_INVALID",
                  `invalid HTTP response: bad chunk size ${JSON.stringify(line.slice(0, 40))}`,
                ),
              )
              return
            }
            exchange.remaining = Number.parseInt(size[1]!, 16)
            exchange.chunkState = exchange.remaining === 0 ? "trailer" : "data"
          } else if (line === "") {
            // The empty line after the last chunk (and any trailers).
            if (i < chunk.length) {
              this.#extra()
              return
            }
            this.#done(exchange)
            return
          }
          break
        }
        case "data": {
          const take = Math.min(exchange.remaining, chunk.length - i)
          if (!exchange.body(chunk.subarray(i, i + take))) {
            this.#drop()
            return
          }
          exchange.remaining -= take
          i += take
          if (exchange.remaining === 0) exchange.chunkState = "dataEnd"
          break
        }
      }
    }
  }

  /** The answer is complete: hand the socket back, then end the body (its reader may send again). */
  #done(exchange: Exchange): void {
    this.exchange = undefined
    if (exchange.keepAlive) this.pool.release(this)
    else {
      this.closed = true
      this.pool.forget(this)
      this.socket.destroy()
    }
    exchange.end()
  }

  /** Bytes after the end of the answer: a server that does not frame its answers as it says. */
  #extra(): void {
    this.#fail(new Http1Error("HPE_INVALID", "invalid HTTP response: data after the end of the response"))
  }

  /** The body went over its cap (the exchange already failed): the socket is dropped. */
  #drop(): void {
    this.exchange = undefined
    this.closed = true
    this.pool.forget(this)
    this.socket.destroy()
  }
}

/**
 * Keep-alive HTTP/1.1 connections to one `host:port`.
 */
export class Http1Pool {
  readonly #host: string
  readonly #port: number
  readonly maxHeaderBytes: number
  readonly #maxBody: number
  readonly #maxIdle: number
  readonly #idleMs: number
  readonly #idle: Connection[] = []
  readonly #all = new Set<Connection>()
  closed = false

  constructor(options: Http1PoolOptions) {
    this.#host = options.host
    this.#port = options.port
    this.maxHeaderBytes = options.maxHeaderBytes ?? maxHeaderSize
    this.#maxBody = options.maxBodyBytes ?? 64 * 1024 * 1024
    this.#maxIdle = options.maxIdle ?? 64
    this.#idleMs = options.idleMs ?? 15_000
  }

  /** Sockets open (idle or busy); for tests. */
  get size(): number {
    return this.#all.size
  }

  /**
   * Sends `message` (a whole request: head, blank line and body, built by the caller; a string is written
   * as UTF-8) and resolves with the answer once its head has arrived.
   */
  request(message: string | Buffer): Promise<Http1Response> {
    return new Promise((resolve, reject) => {
      if (this.closed)
        return reject(new Http1Error("ECONNRESET", "connection closed: the transport was closed"))
      this.#send(new Exchange(message, this.#maxBody, resolve, reject), false)
    })
  }

  #send(exchange: Exchange, fresh: boolean): void {
    let connection: Connection | undefined
    if (!fresh) {
      const now = Date.now()
      while ((connection = this.#idle.pop()) !== undefined) {
        if (!connection.closed && now - connection.idleSince < connection.idleLimit) break
        this.forget(connection)
        connection.closed = true
        connection.socket.destroy()
      }
    }
    if (connection === undefined) {
      const socket = connect({ host: this.#host, port: this.#port })
      connection = new Connection(this, socket, this.#idleMs)
      this.#all.add(connection)
    } else {
      connection.reused = true
      connection.socket.ref()
    }
    connection.start(exchange)
  }

  /** Sends an exchange again on a new socket (its reused one closed before answering). */
  retry(exchange: Exchange): void {
    this.#send(exchange, true)
  }

  release(connection: Connection): void {
    if (this.closed || this.#idle.length >= this.#maxIdle) {
      this.forget(connection)
      connection.closed = true
      connection.socket.destroy()
      return
    }
    connection.idleSince = Date.now()
    connection.socket.unref()
    this.#idle.push(connection)
  }

  forget(connection: Connection): void {
    this.#all.delete(connection)
    const i = this.#idle.indexOf(connection)
    if (i >= 0) this.#idle.splice(i, 1)
  }

  /** Destroys every socket; exchanges in flight fail. */
  close(): void {
    this.closed = true
    this.#idle.length = 0
    for (const connection of [...this.#all]) connection.socket.destroy()
    this.#all.clear()
  }
}
