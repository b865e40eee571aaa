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
 * The raw edge only ever runs a request it holds whole: a request whose head or body is not all read when
 * its turn comes (a slow or drip-fed client, a body larger than a read) is handed over too, so
 * `headersTimeout` and `requestTimeout` are `node:http`'s own. It keeps a connection only while it is
 * answering or idle between requests: a new connection that sends nothing within `headersTimeout` gets
 * `node:http`'s 408, an idle one is closed after `keepAliveTimeout` plus `keepAliveTimeoutBuffer`, as
 * `node:http` does. A head of more than {@link MAX_HEAD_LINES} lines is handed over (`node:http` keeps
 * only `maxHeadersCount` of them). Reading stops while the socket's write buffer is over its high-water
 * mark (a client that pipelines requests and does not read its answers), as `node:http` does, and a
 * header value with a character `node:http` refuses (CR, LF, NUL, other controls) throws its
 * `ERR_INVALID_CHAR` instead of being written.
 *
 * @internal
 */
import { type Server as HttpServer, maxHeaderSize, type OutgoingHttpHeaders, STATUS_CODES } from "node:http"
import { createServer, type Server as NetServer, type Socket } from "node:net"
import { TOKEN_CHAR } from "../internal/http1Pool.js"
import type { EdgeRequest, EdgeResponse, KnownHeaders } from "./edgeExchange.js"

/** Bytes read ahead while a request is answered before the socket is paused (pipelining). */
const READ_AHEAD = 64 * 1024
/** Heads with more lines than this go to `node:http` (which drops lines past `maxHeadersCount`). */
export const MAX_HEAD_LINES = 100
/** `node:http`'s 408 for a connection that sent no head in time, byte for byte. */
const REQUEST_TIMEOUT_ANSWER = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n"

/** A header value character `node:http` refuses to write (it allows HTAB, SP to `~`, and 0x80–0xFF). */
const INVALID_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/

const invalidHeader = (code: string, message: string): TypeError =>
  Object.assign(new TypeError(message), { code })

/** Throws as `node:http`'s `writeHead` does for a header name or value it would not write. */
const checkHeaders = (headers: OutgoingHttpHeaders | undefined): void => {
  if (headers === undefined) return
  for (const key in headers) {
    const value = headers[key]
    if (value === undefined) continue
    if (key.length === 0 || !isToken(key))
      throw invalidHeader("ERR_INVALID_HTTP_TOKEN", `Header name must be a valid HTTP token ["${key}"]`)
    for (const item of Array.isArray(value) ? value : [value])
      if (INVALID_VALUE_CHAR.test(String(item)))
        throw invalidHeader("ERR_INVALID_CHAR", `Invalid character in header content ["${key}"]`)
  }
}

const isToken = (name: string): boolean => {
  for (let i = 0; i < name.length; i++) if (TOKEN_CHAR[name.charCodeAt(i)] !== 1) return false
  return true
}

let dateSecond = -1
let dateText = ""
let okLine = ""
/** The `date` header value, formatted once a second. */
const httpDate = (): string => {
  const now = Date.now()
  const second = Math.floor(now / 1000)
  if (second !== dateSecond) {
    dateSecond = second
    dateText = new Date(now).toUTCString()
    okLine = ""
  }
  return dateText
}

/** A response's status line and `date` header (a 200's made once a second). */
const statusLines = (status: number): string => {
  const date = httpDate()
  if (status !== 200) return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Unknown"}\r\ndate: ${date}\r\n`
  if (okLine === "") okLine = `HTTP/1.1 200 OK\r\ndate: ${date}\r\n`
  return okLine
}

/** A parsed request head of the hot path. */
interface Head {
  readonly url: string
  /** The head's text, and per header line the offsets of its name and value (four numbers a line). */
  readonly text: string
  readonly lines: Uint32Array
  readonly known: KnownHeaders
  readonly length: number
  readonly close: boolean
}

const isOws = (c: number) => c === 32 || c === 9

/** A header name's hash, over its lower-case characters (see {@link parseHead}). */
const nameHash = (name: string): number => {
  let h = 0
  for (let i = 0; i < name.length; i++) h = (Math.imul(h, 31) + name.charCodeAt(i)) | 0
  return h
}

/** Whether `text[at, at + name.length)` is `name` (lower case), ignoring ASCII case. */
const sameName = (text: string, at: number, name: string): boolean => {
  for (let i = 0; i < name.length; i++) {
    let c = text.charCodeAt(at + i)
    if (c >= 65 && c <= 90) c += 32
    if (c !== name.charCodeAt(i)) return false
  }
  return true
}

/** Whether the names of two header lines (same length) are equal, ignoring ASCII case. */
const sameNames = (text: string, a: number, b: number, length: number): boolean => {
  for (let i = 0; i < length; i++) {
    let x = text.charCodeAt(a + i)
    let y = text.charCodeAt(b + i)
    if (x >= 65 && x <= 90) x += 32
    if (y >= 65 && y <= 90) y += 32
    if (x !== y) return false
  }
  return true
}

// The header names the hot path reads (and the `Object.prototype` members a header record cannot hold).
const HOST = nameHash("host")
const ORIGIN = nameHash("origin")
const ACCEPT = nameHash("accept")
const EXPECT = nameHash("expect")
const UPGRADE = nameHash("upgrade")
const CONNECTION = nameHash("connection")
const CONTENT_TYPE = nameHash("content-type")
const CONTENT_LENGTH = nameHash("content-length")
const SESSION_ID = nameHash("mcp-session-id")
const AUTHORIZATION = nameHash("authorization")
const TRANSFER_ENCODING = nameHash("transfer-encoding")
const PROTOCOL_VERSION = nameHash("mcp-protocol-version")
const MCP_METHOD = nameHash("mcp-method")
const MCP_NAME = nameHash("mcp-name")
const CONSTRUCTOR = nameHash("constructor")
const PROTO = nameHash("__proto__")
/** Past this many header lines, names are checked for repeats in a set instead of against each other. */
const FEW_LINES = 32
/** The name hashes of the lines parsed so far (scratch space: `parseHead` runs to its end at once). */
const HASHES = new Int32Array(FEW_LINES)
/** Per line parsed so far, its name's and value's offsets (scratch; a line takes at least four bytes). */
const LINES = new Uint32Array(maxHeaderSize + 8)

/**
 * The head of a hot-path request (`text[0, end)`, the latin1 text of the bytes read, followed by the CRLF
 * CRLF that ends the head, and maybe more), or `undefined` when the
 * request must go to `node:http` (see the module comment). One pass over the head's characters: the
 * request target is visible ASCII, names are tokens, values visible characters, SP or HTAB (obs-text
 * included) — so a CR or LF anywhere but in a line's CRLF fails the line.
 *
 * No header record is built here: the headers the request handling reads are recognised by length and
 * a hash of their lower-case name into fixed fields, repeats are found by comparing the hashes of the
 * lines' names, and the full record (`requestHeaders`) is made from the kept offsets when asked for.
 */
export const parseHead = (text: string, end: number, maxBodyBytes: number): Head | undefined => {
  // `text[end, end + 4)` is the CRLF CRLF that ends the head: every line's CRLF is found at or before it.
  const eol = text.indexOf("\r\n")
  if (eol < 15 || !text.startsWith("POST /") || !text.endsWith(" HTTP/1.1", eol)) return undefined
  const targetEnd = eol - 9
  for (let i = 5; i < targetEnd; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x21 || c > 0x7e) return undefined
  }
  let count = 0
  let seen: Set<string> | undefined
  let host: string | undefined
  let origin: string | undefined
  let accept: string | undefined
  let contentType: string | undefined
  let contentLength: string | undefined
  let sessionId: string | undefined
  let protocolVersion: string | undefined
  let authorization: string | undefined
  let mcpMethod: string | undefined
  let mcpName: string | undefined
  let connection: string | undefined
  for (let at = eol + 2; at < end; ) {
    const lineEnd = text.indexOf("\r\n", at)
    let colon = at
    let hash = 0
    for (; colon < lineEnd; colon++) {
      let c = text.charCodeAt(colon)
      if (c === 58 /* : */) break
      if (TOKEN_CHAR[c] !== 1) return undefined
      if (c >= 65 && c <= 90) c += 32
      hash = (Math.imul(hash, 31) + c) | 0
    }
    if (colon === at || colon === lineEnd || count === MAX_HEAD_LINES) return undefined
    let start = colon + 1
    let stop = lineEnd
    while (start < stop && isOws(text.charCodeAt(start))) start++
    while (stop > start && isOws(text.charCodeAt(stop - 1))) stop--
    for (let i = start; i < stop; i++) {
      const c = text.charCodeAt(i)
      if ((c < 32 && c !== 9) || c === 127) return undefined
    }
    const size = colon - at
    // A repeated name goes to node:http (which joins or drops repeats by name), as does a name that is an
    // `Object.prototype` member (a plain record reads it as present).
    if (seen === undefined) {
      for (let i = 0; i < count; i++)
        if (HASHES[i] === hash) {
          const other = LINES[i * 4]!
          if (LINES[i * 4 + 1]! - other === size && sameNames(text, other, at, size)) return undefined
        }
      if (count < FEW_LINES) HASHES[count] = hash
      else {
        seen = new Set()
        for (let i = 0; i < count * 4; i += 4) seen.add(text.slice(LINES[i], LINES[i + 1]).toLowerCase())
      }
    }
    if (seen !== undefined) {
      const name = text.slice(at, colon).toLowerCase()
      if (seen.has(name)) return undefined
      seen.add(name)
    }
    const o = count * 4
    LINES[o] = at
    LINES[o + 1] = colon
    LINES[o + 2] = start
    LINES[o + 3] = stop
    count++
    switch (size) {
      case 4:
        if (hash === HOST && sameName(text, at, "host")) host = text.slice(start, stop)
        break
      case 6:
        if (hash === ACCEPT && sameName(text, at, "accept")) accept = text.slice(start, stop)
        else if (hash === ORIGIN && sameName(text, at, "origin")) origin = text.slice(start, stop)
        else if (hash === EXPECT && sameName(text, at, "expect")) return undefined
        break
      case 7:
        if (hash === UPGRADE && sameName(text, at, "upgrade")) return undefined
        break
      case 8:
        if (hash === MCP_NAME && sameName(text, at, "mcp-name")) mcpName = text.slice(start, stop)
        break
      case 9:
        if (hash === PROTO && sameName(text, at, "__proto__")) return undefined
        break
      case 10:
        if (hash === CONNECTION && sameName(text, at, "connection")) connection = text.slice(start, stop)
        else if (hash === MCP_METHOD && sameName(text, at, "mcp-method")) mcpMethod = text.slice(start, stop)
        break
      case 11:
        if (hash === CONSTRUCTOR && sameName(text, at, "constructor")) return undefined
        break
      case 12:
        if (hash === CONTENT_TYPE && sameName(text, at, "content-type")) contentType = text.slice(start, stop)
        break
      case 13:
        if (hash === AUTHORIZATION && sameName(text, at, "authorization"))
          authorization = text.slice(start, stop)
        break
      case 14:
        if (hash === CONTENT_LENGTH && sameName(text, at, "content-length"))
          contentLength = text.slice(start, stop)
        else if (hash === SESSION_ID && sameName(text, at, "mcp-session-id"))
          sessionId = text.slice(start, stop)
        break
      case 17:
        if (hash === TRANSFER_ENCODING && sameName(text, at, "transfer-encoding")) return undefined
        break
      case 20:
        if (hash === PROTOCOL_VERSION && sameName(text, at, "mcp-protocol-version"))
          protocolVersion = text.slice(start, stop)
        break
    }
    at = lineEnd + 2
  }
  if (host === undefined || contentLength === undefined) return undefined
  // One to fifteen decimal digits, no larger than the body cap.
  const digits = contentLength.length
  if (digits === 0 || digits > 15) return undefined
  let length = 0
  for (let i = 0; i < digits; i++) {
    const c = contentLength.charCodeAt(i) - 48
    if (c < 0 || c > 9) return undefined
    length = length * 10 + c
  }
  if (length > maxBodyBytes) return undefined
  let close = false
  if (connection !== undefined) {
    const value = connection.toLowerCase()
    if (value === "close") close = true
    else if (value !== "keep-alive") return undefined
  }
  return {
    url: text.slice(5, targetEnd),
    text,
    lines: LINES.slice(0, count * 4),
    known: {
      host,
      origin,
      accept,
      contentType,
      contentLength,
      sessionId,
      protocolVersion,
      authorization,
      mcpMethod,
      mcpName,
    },
    length,
    close,
  }
}

/**
 * The header record of a parsed head: a plain object, as `node:http`'s `req.headers` (lower-case names,
 * values without surrounding whitespace, in the order of the lines).
 */
export const requestHeaders = (head: Head): Record<string, string> => {
  const { text, lines } = head
  const headers: Record<string, string> = {}
  for (let i = 0; i < lines.length; i += 4)
    headers[text.slice(lines[i], lines[i + 1]).toLowerCase()] = text.slice(lines[i + 2], lines[i + 3])
  return headers
}

/** A hot-path request: its head and whole body. */
class RawRequest implements EdgeRequest {
  readonly method = "POST"
  readonly url: string
  readonly known: KnownHeaders
  readonly rawBody: Buffer
  readonly #head: Head
  #headers: Record<string, string> | undefined
  constructor(head: Head, body: Buffer) {
    this.url = head.url
    this.known = head.known
    this.#head = head
    this.rawBody = body
  }
  /** Every header, built on first read (the hot path reads `known`). */
  get headers(): Record<string, string> {
    this.#headers ??= requestHeaders(this.#head)
    return this.#headers
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
  /** Close listeners: the first two in fields (the request handling adds two), more in a list. */
  #onClose1: (() => void) | undefined
  #onClose2: (() => void) | undefined
  #onCloseMore: (() => void)[] | undefined
  #closed = false

  constructor(connection: RawConnection, socket: Socket, closeAfter: boolean) {
    this.#connection = connection
    this.#socket = socket
    this.closeAfter = closeAfter
  }

  writeHead(status: number, headers?: OutgoingHttpHeaders): this {
    if (this.headersSent) throw new Error("writeHead after the headers were sent")
    checkHeaders(headers)
    this.#status = status
    this.#headers = headers
    this.headersSent = true
    return this
  }

  #head(body: number | undefined): string {
    const headers = this.#headers
    let head = statusLines(this.#status)
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
    else if (this.#onClose1 === undefined) this.#onClose1 = listener
    else if (this.#onClose2 === undefined) this.#onClose2 = listener
    else (this.#onCloseMore ??= []).push(listener)
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
    const first = this.#onClose1
    const second = this.#onClose2
    const more = this.#onCloseMore
    this.#onClose1 = this.#onClose2 = this.#onCloseMore = undefined
    first?.()
    second?.()
    if (more) for (const listener of more) listener()
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
  /** Requests (by target) to hand to `node:http` even on the hot path: `serveHttp`'s extra routes. */
  readonly handOver?: (url: string) => boolean
}

/** One connection while the raw edge owns it. */
class RawConnection {
  readonly #edge: RawEdge
  readonly #socket: Socket
  /** Bytes read and not yet consumed (`#size` of them in total). */
  #chunks: Buffer[] = []
  #size = 0
  #active: RawResponse | undefined
  /** Whether a request was read on this connection (until then the socket timeout is `headersTimeout`). */
  #served = false
  /** Waiting for the socket's write buffer to drain before reading the next request. */
  #blocked = false
  #done = false
  #scheduled = false

  constructor(edge: RawEdge, socket: Socket) {
    this.#edge = edge
    this.#socket = socket
    socket.on("data", this.#onData)
    socket.on("end", this.#onEnd)
    socket.on("close", this.#onClose)
    socket.on("error", this.#onError)
    socket.on("timeout", this.#onTimeout)
    // As node:http: a connection that sends no head within headersTimeout is answered 408.
    const headersTimeout = edge.httpServer.headersTimeout
    if (headersTimeout > 0) socket.setTimeout(headersTimeout)
  }

  readonly #onData = (chunk: Buffer): void => {
    this.#chunks.push(chunk)
    this.#size += chunk.length
    if (this.#active === undefined && !this.#blocked) this.#parse()
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

  /** No head in time on a new connection (408), or idle past the keep-alive timeout (closed). */
  readonly #onTimeout = (): void => {
    if (this.#done || this.#active !== undefined) return
    this.#done = true
    this.#edge.forget(this)
    if (this.#served) this.#socket.destroy()
    else {
      this.#socket.end(REQUEST_TIMEOUT_ANSWER)
      this.#socket.destroySoon()
    }
  }

  readonly #drained = (): void => {
    this.#blocked = false
    if (this.#done) return
    this.#socket.resume()
    this.#parse()
  }

  #flat(): Buffer {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks, this.#size)]
    return this.#chunks[0]!
  }

  /**
   * Dispatches the next request if it is all here and on the hot path; hands the connection to node:http
   * if it is not (one request at a time).
   */
  #parse(): void {
    if (this.#done || this.#active !== undefined || this.#blocked) return
    if (this.#size === 0) {
      this.#idle()
      return
    }
    const buffer = this.#flat()
    // The head is looked for in its latin1 text (what it is parsed from), within node:http's limit.
    const text = buffer.toString("latin1", 0, Math.min(buffer.length, maxHeaderSize))
    const end = text.indexOf("\r\n\r\n")
    // A head or body not all here goes to node:http with what was read, so its timeouts apply as they are;
    // so does a new connection when the server has settings the raw edge does not apply.
    const head =
      end < 0 || (!this.#served && this.#edge.nodeOnly())
        ? undefined
        : parseHead(text, end, this.#edge.maxBodyBytes)
    const bodyStart = end + 4
    const bodyEnd = head === undefined ? 0 : bodyStart + head.length
    if (head === undefined || buffer.length < bodyEnd || this.#edge.handOver?.(head.url) === true) {
      this.#handOff()
      return
    }
    const body = buffer.subarray(bodyStart, bodyEnd)
    this.#size -= bodyEnd
    if (this.#size > 0) this.#chunks = [buffer.subarray(bodyEnd)]
    else this.#chunks.length = 0
    if (!this.#served) this.#served = true
    this.#socket.setTimeout(0)
    const res = new RawResponse(this, this.#socket, head.close)
    this.#active = res
    this.#edge.handle(new RawRequest(head, body), res)
  }

  /** Nothing to read: the keep-alive timeout runs, as node:http's (plus its buffer). */
  #idle(): void {
    const { keepAliveTimeout } = this.#edge.httpServer
    if (keepAliveTimeout > 0) this.#socket.setTimeout(keepAliveTimeout + this.#edge.keepAliveBufferMs())
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
    if (this.#socket.writableNeedDrain) {
      // The client does not read its answers: stop reading (and running) its requests until it does.
      this.#blocked = true
      this.#socket.pause()
      this.#socket.once("drain", this.#drained)
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
    } else this.#idle()
  }

  /** Gives the connection, and the bytes read so far, to the `node:http` server. */
  #handOff(): void {
    this.#done = true
    const socket = this.#socket
    socket.off("data", this.#onData)
    socket.off("end", this.#onEnd)
    socket.off("close", this.#onClose)
    socket.off("error", this.#onError)
    socket.off("timeout", this.#onTimeout)
    socket.setTimeout(0)
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
  readonly handOver: ((url: string) => boolean) | undefined
  readonly #connections = new Set<RawConnection>()

  constructor(options: RawEdgeOptions) {
    this.httpServer = options.httpServer
    this.maxBodyBytes = options.maxBodyBytes
    this.handle = options.handle
    this.handOver = options.handOver
    this.server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
      this.#connections.add(new RawConnection(this, socket))
    })
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

  /**
   * What node:http adds to `keepAliveTimeout` before it closes an idle connection: its
   * `keepAliveTimeoutBuffer` where the server was given one (Node versions that have the option), else 0.
   */
  keepAliveBufferMs(): number {
    const buffer = (this.httpServer as { keepAliveTimeoutBuffer?: unknown }).keepAliveTimeoutBuffer
    return typeof buffer === "number" && buffer > 0 ? buffer : 0
  }

  /**
   * Whether the `node:http` server has settings the raw edge does not apply (a socket `timeout` while a
   * request runs, `maxRequestsPerSocket`): its connections then all go to `node:http`.
   */
  nodeOnly(): boolean {
    const server = this.httpServer
    return server.timeout > 0 || (server.maxRequestsPerSocket ?? 0) > 0
  }

  forget(connection: RawConnection): void {
    this.#connections.delete(connection)
  }

  async listen(port: number, host: string): Promise<void> {
    await listenOn(this.server, port, host)
    // `node:http` tracks connections (for `closeAllConnections` and its header and request timeouts)
    // from its "listening" event on: the connections handed to it need that too.
    this.httpServer.emit("listening")
  }

  /** Stops listening and closes every connection it owns (those handed over belong to `httpServer`). */
  close(): Promise<void> {
    for (const connection of this.#connections) connection.destroy()
    this.#connections.clear()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
