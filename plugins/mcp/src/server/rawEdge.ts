/**
 * The raw edge of `serveHttp` (`transport: "raw"`): a `node:net` server that parses HTTP/1.1 itself for
 * the hot path only — a plain `POST` with one `content-length` body — and hands every other connection
 * to the `node:http` server unchanged, so everything else (SSE GET streams, DELETE, chunked bodies,
 * `Expect: 100-continue`, upgrades, HTTP/1.0, anything malformed or unusual) keeps the code and the
 * errors of the node transport.
 *
 * A request takes the hot path when its request line is `POST <origin-form target> HTTP/1.1`, its
 * header block ends with CRLF CRLF within `node:http`'s `maxHeaderSize`, every line is a token name,
 * `:`, and a value of visible characters (no obs-fold, no bare LF, no control characters), no header
 * appears twice, `host` is present, `content-length` is one decimal number no larger than the body cap,
 * and there is no `transfer-encoding`, `expect` or `upgrade`, and `connection` is absent, `keep-alive`
 * or `close`. Anything else is handed over, at a request boundary (requests on a connection are answered
 * one after the other, so none of ours is in flight then): the bytes read so far are replayed into the
 * `node:http` server, which owns the connection from then on, and rejects (CL + TE, two content-lengths,
 * header overflow with 431, oversized bodies with 413) or serves it exactly as the node transport does.
 *
 * Timeouts follow the `node:http` server's settings (read at each check): a request whose headers are not
 * complete within `headersTimeout`, or whose body is not within `requestTimeout`, gets a 408 and the
 * connection is closed; a connection idle longer than `keepAliveTimeout` is closed.
 *
 * @internal
 */
import { type Server as HttpServer, maxHeaderSize, type OutgoingHttpHeaders, STATUS_CODES } from "node:http"
import { createServer, type Server as NetServer, type Socket } from "node:net"
import type { EdgeRequest, EdgeResponse } from "./edgeExchange.js"

/** Bytes read ahead while a request is answered before the socket is paused (pipelining). */
const READ_AHEAD = 64 * 1024
/** How often timeouts are checked (`node:http` checks every 30 s by default). */
const CHECK_MS = 1000

/** `tchar` of RFC 9110: the bytes a header name may have. */
const TOKEN = new Uint8Array(256)
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
  TOKEN[c.charCodeAt(0)] = 1
const CONTENT_LENGTH = /^\d{1,15}$/
const CRLFCRLF = Buffer.from("\r\n\r\n")

let dateSecond = -1
let dateText = ""
/** The `date` header value, formatted once a second. */
const httpDate = (): string => {
  const now = Date.now()
  const second = Math.floor(now / 1000)
  if (second !== dateSecond) {
    dateSecond = second
    dateText = new Date(now).toUTCString()
  }
  return dateText
}

/** A parsed request head of the hot path. */
interface Head {
  readonly url: string
  readonly headers: Record<string, string>
  readonly length: number
  readonly close: boolean
}

/** Whether `buffer[0, end)` holds an LF not preceded by CR. */
const hasBareLf = (buffer: Buffer, end: number): boolean => {
  for (let i = buffer.indexOf(10); i >= 0 && i < end; i = buffer.indexOf(10, i + 1))
    if (i === 0 || buffer[i - 1] !== 13) return true
  return false
}

const isOws = (c: number) => c === 32 || c === 9

/**
 * The head of a hot-path request (`buffer[0, end)`, without the final CRLF CRLF), or `undefined` when the
 * request must go to `node:http` (see the module comment). One pass over the head's characters: the
 * request target is visible ASCII, names are tokens, values visible characters, SP or HTAB (obs-text
 * included) — so a CR or LF anywhere but in a line's CRLF fails the line.
 */
export const parseHead = (buffer: Buffer, end: number, maxBodyBytes: number): Head | undefined => {
  const text = buffer.toString("latin1", 0, end)
  let eol = text.indexOf("\r\n")
  if (eol < 0) eol = text.length
  if (eol < 15 || !text.startsWith("POST /") || !text.endsWith(" HTTP/1.1", eol)) return undefined
  const targetEnd = eol - 9
  for (let i = 5; i < targetEnd; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x21 || c > 0x7e) return undefined
  }
  // A plain object, as node:http's `req.headers`; a name that is also an `Object.prototype` member
  // (`constructor`, `__proto__`) reads as present, so such a request goes to node:http like a duplicate.
  const headers: Record<string, string> = {}
  for (let at = eol + 2; at < text.length; ) {
    let lineEnd = text.indexOf("\r\n", at)
    if (lineEnd < 0) lineEnd = text.length
    let colon = at
    let upper = false
    for (; colon < lineEnd; colon++) {
      const c = text.charCodeAt(colon)
      if (c === 58 /* : */) break
      if (TOKEN[c] !== 1) return undefined
      if (c >= 65 && c <= 90) upper = true
    }
    if (colon === at || colon === lineEnd) return undefined
    let start = colon + 1
    let stop = lineEnd
    while (start < stop && isOws(text.charCodeAt(start))) start++
    while (stop > start && isOws(text.charCodeAt(stop - 1))) stop--
    for (let i = start; i < stop; i++) {
      const c = text.charCodeAt(i)
      if ((c < 32 && c !== 9) || c === 127) return undefined
    }
    const name = upper ? text.slice(at, colon).toLowerCase() : text.slice(at, colon)
    if (headers[name] !== undefined) return undefined
    headers[name] = text.slice(start, stop)
    at = lineEnd + 2
  }
  const length = headers["content-length"]
  if (
    headers.host === undefined ||
    length === undefined ||
    !CONTENT_LENGTH.test(length) ||
    Number(length) > maxBodyBytes ||
    headers["transfer-encoding"] !== undefined ||
    headers.expect !== undefined ||
    headers.upgrade !== undefined
  )
    return undefined
  const connection = headers.connection?.toLowerCase()
  if (connection !== undefined && connection !== "keep-alive" && connection !== "close") return undefined
  return { url: text.slice(5, targetEnd), headers, length: Number(length), close: connection === "close" }
}

/** A hot-path request: its head and whole body. */
class RawRequest implements EdgeRequest {
  readonly method = "POST"
  readonly url: string
  readonly headers: Record<string, string>
  readonly rawBody: Buffer
  constructor(url: string, headers: Record<string, string>, body: Buffer) {
    this.url = url
    this.headers = headers
    this.rawBody = body
  }
  resume(): void {}
  on(): void {}
}

/**
 * A response written straight to the socket: status line and headers go out with the first write (a
 * `content-length` answer in one write), a response without `content-length` is chunked.
 */
class RawResponse implements EdgeResponse {
  readonly #connection: RawConnection
  readonly #socket: Socket
  #status = 200
  #headers: OutgoingHttpHeaders | undefined
  #headSent = false
  #chunked = false
  headersSent = false
  writableFinished = false
  /** Close the connection once this response is written (the request or the response said so). */
  closeAfter: boolean
  #onClose: (() => void)[] | undefined
  #closed = false

  constructor(connection: RawConnection, socket: Socket, closeAfter: boolean) {
    this.#connection = connection
    this.#socket = socket
    this.closeAfter = closeAfter
  }

  writeHead(status: number, headers?: OutgoingHttpHeaders): this {
    if (this.headersSent) throw new Error("writeHead after the headers were sent")
    this.#status = status
    this.#headers = headers
    this.headersSent = true
    return this
  }

  #head(body: number | undefined): string {
    const headers = this.#headers
    let head = `HTTP/1.1 ${this.#status} ${STATUS_CODES[this.#status] ?? "Unknown"}\r\ndate: ${httpDate()}\r\n`
    let length = false
    if (headers !== undefined)
      for (const key in headers) {
        const value = headers[key]
        if (value === undefined) continue
        const lower = key.toLowerCase()
        if (lower === "content-length") length = true
        else if (lower === "connection") {
          if (String(value).toLowerCase() === "close") this.closeAfter = true
          continue
        } else if (lower === "transfer-encoding") continue
        head += `${key}: ${Array.isArray(value) ? value.join(", ") : value}\r\n`
      }
    if (!length) {
      if (body !== undefined) head += `content-length: ${body}\r\n`
      else {
        this.#chunked = true
        head += "transfer-encoding: chunked\r\n"
      }
    }
    this.#headSent = true
    // As node:http: the idle timeout as a hint, so clients stop reusing a connection before it closes.
    return `${head}${this.closeAfter ? "connection: close\r\n" : this.#connection.keepAliveLine()}\r\n`
  }

  flushHeaders(): void {
    if (!this.headersSent) this.writeHead(200)
    if (!this.#headSent && !this.writableFinished) this.#socket.write(this.#head(undefined))
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.writableFinished || !this.#socket.writable) return false
    if (!this.headersSent) this.writeHead(200)
    const head = this.#headSent ? "" : this.#head(undefined)
    if (!this.#chunked) {
      if (head) this.#socket.write(head)
      return this.#socket.write(chunk)
    }
    const size = typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength
    if (size === 0) return true
    if (typeof chunk === "string") return this.#socket.write(`${head}${size.toString(16)}\r\n${chunk}\r\n`)
    this.#socket.write(`${head}${size.toString(16)}\r\n`)
    this.#socket.write(chunk)
    return this.#socket.write("\r\n")
  }

  end(chunk?: string | Uint8Array): this {
    if (this.writableFinished) return this
    if (this.#socket.writable) {
      if (!this.headersSent) this.writeHead(200)
      if (!this.#headSent) {
        const size =
          chunk === undefined ? 0 : typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength
        const head = this.#head(size)
        if (typeof chunk === "string") this.#socket.write(head + chunk)
        else {
          this.#socket.write(head)
          if (chunk !== undefined && chunk.byteLength > 0) this.#socket.write(chunk)
        }
      } else if (this.#chunked) {
        if (chunk !== undefined) this.write(chunk)
        this.#socket.write("0\r\n\r\n")
      } else if (chunk !== undefined) this.#socket.write(chunk)
    }
    this.writableFinished = true
    this.closed()
    this.#connection.finished(this)
    return this
  }

  once(event: "close" | "drain", listener: () => void): this {
    if (event === "drain") this.#socket.once("drain", listener)
    else if (this.#closed) queueMicrotask(listener)
    else (this.#onClose ??= []).push(listener)
    return this
  }

  destroy(): this {
    this.#socket.destroy()
    return this
  }

  /** The response is over: written, or the connection is gone. */
  closed(): void {
    if (this.#closed) return
    this.#closed = true
    const listeners = this.#onClose
    this.#onClose = undefined
    if (listeners) for (const listener of listeners) listener()
  }
}

/** Where the raw edge sends requests and connections. */
export interface RawEdgeOptions {
  /** Handles a hot-path request (the same handler the `node:http` server calls). */
  readonly handle: (req: EdgeRequest, res: EdgeResponse) => void
  /** Takes every connection (or rest of one) that is not on the hot path; its timeouts apply to both. */
  readonly httpServer: HttpServer
  /** The body cap: larger declared bodies go to `node:http`, which answers 413 as the node transport does. */
  readonly maxBodyBytes: number
}

/** One connection while the raw edge owns it. */
class RawConnection {
  readonly #edge: RawEdge
  readonly #socket: Socket
  /** Bytes read and not yet consumed (`#size` of them in total). */
  #chunks: Buffer[] = []
  #size = 0
  #head: Head | undefined
  #active: RawResponse | undefined
  /** When the request being read started (0: none), or the connection became idle. */
  started = 0
  idleSince = Date.now()
  #done = false
  #scheduled = false

  constructor(edge: RawEdge, socket: Socket) {
    this.#edge = edge
    this.#socket = socket
    socket.on("data", this.#onData)
    socket.on("end", this.#onEnd)
    socket.on("close", this.#onClose)
    socket.on("error", this.#onError)
  }

  readonly #onData = (chunk: Buffer): void => {
    this.#chunks.push(chunk)
    this.#size += chunk.length
    if (this.#active === undefined) this.#parse()
    else if (this.#size > READ_AHEAD) this.#socket.pause()
  }

  /**
   * The client ended its side: as `node:http` does (without `httpAllowHalfOpen`), its requests are
   * abandoned (a call in progress is cancelled) and the connection is closed.
   */
  readonly #onEnd = (): void => {
    this.#done = true
    this.#edge.forget(this)
    this.#active?.closed()
    this.#socket.end()
  }

  readonly #onClose = (): void => {
    this.#done = true
    this.#edge.forget(this)
    this.#active?.closed()
  }

  readonly #onError = (): void => {}

  get hasHead(): boolean {
    return this.#head !== undefined
  }

  get answering(): boolean {
    return this.#active !== undefined
  }

  #flat(): Buffer {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks, this.#size)]
    return this.#chunks[0]!
  }

  /** Parses and dispatches the next request, if it is complete (one at a time). */
  #parse(): void {
    if (this.#done || this.#active !== undefined) return
    if (this.#size === 0 && this.#head === undefined) {
      this.started = 0
      this.idleSince = Date.now()
      return
    }
    if (this.started === 0) this.started = Date.now()
    let head = this.#head
    let bodyStart = 0
    if (head === undefined) {
      const buffer = this.#flat()
      const end = buffer.indexOf(CRLFCRLF)
      if (end < 0 || end + 4 > maxHeaderSize) {
        if (end >= 0 || buffer.length > maxHeaderSize || hasBareLf(buffer, buffer.length)) this.#handOff()
        return
      }
      head = parseHead(buffer, end, this.#edge.maxBodyBytes)
      if (head === undefined) {
        this.#handOff()
        return
      }
      this.#head = head
      bodyStart = end + 4
      // The head is consumed: keep only what follows it.
      this.#chunks = [buffer.subarray(bodyStart)]
      this.#size -= bodyStart
    }
    if (this.#size < head.length) return
    const buffer = this.#flat()
    const body = buffer.subarray(0, head.length)
    this.#size -= head.length
    this.#chunks = this.#size > 0 ? [buffer.subarray(head.length)] : []
    this.#head = undefined
    this.started = 0
    const res = new RawResponse(this, this.#socket, head.close)
    this.#active = res
    this.#edge.handle(new RawRequest(head.url, head.headers, body), res)
  }

  /** The response in progress was written: close, or go on with the next request. */
  finished(res: RawResponse): void {
    if (this.#active !== res) return
    this.#active = undefined
    if (res.closeAfter) {
      this.#done = true
      this.#socket.end()
      return
    }
    if (this.#socket.isPaused()) this.#socket.resume()
    if (this.#size > 0) {
      // A pipelined request: next turn, not inside the handler that answered.
      if (this.#scheduled) return
      this.#scheduled = true
      setImmediate(() => {
        this.#scheduled = false
        this.#parse()
      })
    } else this.idleSince = Date.now()
  }

  /** Gives the connection, and the bytes read so far, to the `node:http` server. */
  #handOff(): void {
    this.#done = true
    const socket = this.#socket
    socket.off("data", this.#onData)
    socket.off("end", this.#onEnd)
    socket.off("close", this.#onClose)
    socket.off("error", this.#onError)
    this.#edge.forget(this)
    const pending = this.#size > 0 ? this.#flat() : undefined
    this.#chunks = []
    this.#size = 0
    // `node:http` reads the socket itself from here; what was read already is replayed as a data event.
    this.#edge.httpServer.emit("connection", socket)
    if (pending) socket.emit("data", pending)
    if (socket.isPaused()) socket.resume()
  }

  keepAliveLine(): string {
    return this.#edge.keepAliveLine()
  }

  /** Answers 408 and closes (a request not read in time). */
  timeOut(): void {
    this.#done = true
    this.#socket.end("HTTP/1.1 408 Request Timeout\r\nconnection: close\r\n\r\n")
    this.#socket.destroySoon()
  }

  destroy(): void {
    this.#socket.destroy()
  }
}

/** Listens on `port` and `host`; rejects with the server's error (a port in use) instead of throwing it later. */
export const listenOn = (server: NetServer, port: number, host: string): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve()
    })
  })

/**
 * The raw edge: listens, serves the hot path, hands the rest to `options.httpServer` (which does not
 * listen itself).
 */
export class RawEdge {
  readonly server: NetServer
  readonly httpServer: HttpServer
  readonly maxBodyBytes: number
  readonly handle: (req: EdgeRequest, res: EdgeResponse) => void
  readonly #connections = new Set<RawConnection>()
  readonly #timer: ReturnType<typeof setInterval>

  constructor(options: RawEdgeOptions) {
    this.httpServer = options.httpServer
    this.maxBodyBytes = options.maxBodyBytes
    this.handle = options.handle
    this.server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
      this.#connections.add(new RawConnection(this, socket))
    })
    this.#timer = setInterval(() => this.#check(), CHECK_MS)
    this.#timer.unref()
  }

  #keepAliveMs = -1
  #keepAliveLine = ""

  /** The `keep-alive: timeout=N` line of answers (none when connections are kept forever). */
  keepAliveLine(): string {
    const ms = this.httpServer.keepAliveTimeout
    if (ms !== this.#keepAliveMs) {
      this.#keepAliveMs = ms
      this.#keepAliveLine = ms > 0 ? `keep-alive: timeout=${Math.floor(ms / 1000)}\r\n` : ""
    }
    return this.#keepAliveLine
  }

  forget(connection: RawConnection): void {
    this.#connections.delete(connection)
  }

  #check(): void {
    const now = Date.now()
    const { headersTimeout, requestTimeout, keepAliveTimeout } = this.httpServer
    for (const connection of this.#connections) {
      if (connection.answering) continue
      if (connection.started > 0) {
        const limit = connection.hasHead ? requestTimeout : headersTimeout
        if (limit > 0 && now - connection.started > limit) {
          this.#connections.delete(connection)
          connection.timeOut()
        }
      } else if (keepAliveTimeout > 0 && now - connection.idleSince > keepAliveTimeout) {
        this.#connections.delete(connection)
        connection.destroy()
      }
    }
  }

  async listen(port: number, host: string): Promise<void> {
    await listenOn(this.server, port, host)
    // `node:http` tracks connections (for `closeAllConnections` and its header and request timeouts)
    // from its "listening" event on: the connections handed to it need that too.
    this.httpServer.emit("listening")
  }

  /** Stops listening and closes every connection it owns (those handed over belong to `httpServer`). */
  close(): Promise<void> {
    clearInterval(this.#timer)
    for (const connection of this.#connections) connection.destroy()
    this.#connections.clear()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
