/**
 * A lean MCP Streamable HTTP client transport on `node:http` / `node:https` with a keep-alive agent:
 * no `fetch` (undici), no web streams, no zod pass over every incoming message. It speaks the same
 * protocol as the SDK's `StreamableHTTPClientTransport` (POST with `Accept: application/json,
 * text/event-stream`, JSON or SSE answers, `mcp-session-id` and `mcp-protocol-version` headers, the
 * optional GET stream for server-initiated messages, `DELETE` of the session on close), minus OAuth.
 *
 * @since 0.1.0
 */
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server"
import { Http1Pool, type Http1Response, isValidHeader } from "../internal/http1Pool.js"
import { keepMessageText } from "../internal/resultJson.js"
import { headerRecord, modernHeaderLines } from "./era.js"
import type { ParamHeaderBindings } from "./paramHeaders.js"

/**
 * An HTTP failure of the transport; `code` is the HTTP status (as in the SDK's `StreamableHTTPError`,
 * whose name it shares so that error mapping treats both alike).
 *
 * @since 0.1.0
 */
export class NodeStreamableHttpError extends Error {
  readonly code: number | undefined
  constructor(code: number | undefined, message: string) {
    super(`Streamable HTTP error: ${message}`)
    this.name = "StreamableHTTPError"
    this.code = code
  }
}

/**
 * Options of {@link NodeStreamableHttpTransport}.
 *
 * @since 0.1.0
 */
export interface NodeStreamableHttpTransportOptions {
  /** Sent with every request (e.g. `Authorization`). */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * When set, server requests and notifications (other than progress) arriving on the response stream of
   * a request whose `_meta.progressToken` is a string get `_meta[originMetaKey] = progressToken`.
   */
  readonly originMetaKey?: string
  /** Open the GET stream for server-initiated messages after initialization. Default `true`. */
  readonly standaloneStream?: boolean
  /** Time allowed for the `DELETE` of the session on close. Default 1000 ms. */
  readonly closeTimeoutMs?: number
  /**
   * Supplies the `Authorization` header of each request (e.g. an OAuth bearer token); `undefined` sends none.
   *
   * @since 0.1.0
   */
  readonly authorization?: () => Promise<string | undefined>
  /**
   * Called with the `WWW-Authenticate` header of a 401 answer to a POST: resolve to retry that POST once
   * (after refreshing what {@link authorization} supplies), or reject to fail it with that error.
   *
   * @since 0.1.0
   */
  readonly onUnauthorized?: (challenge: string | undefined) => Promise<void>
  /**
   * The `x-mcp-header` bindings of the listed tools: a modern `tools/call` gets their `Mcp-Param-*` headers.
   *
   * @internal
   * @since 0.2.0
   */
  readonly paramHeaders?: ParamHeaderBindings
}

type Json = Record<string, unknown>

interface SseEvent {
  id?: string
  event?: string
  data: string
}

/** Incremental SSE parser: feed text, get complete events. */
class SseParser {
  #buffer = ""
  #data: string[] = []
  #id: string | undefined
  #event: string | undefined
  readonly #onEvent: (event: SseEvent) => void
  readonly #onRetry: (ms: number) => void

  constructor(onEvent: (event: SseEvent) => void, onRetry: (ms: number) => void) {
    this.#onEvent = onEvent
    this.#onRetry = onRetry
  }

  feed(text: string): void {
    let buffer = this.#buffer + text
    let start = 0
    for (;;) {
      const nl = buffer.indexOf("\n", start)
      if (nl < 0) break
      let line = buffer.slice(start, nl)
      start = nl + 1
      if (line.endsWith("\r")) line = line.slice(0, -1)
      this.#line(line)
    }
    buffer = buffer.slice(start)
    this.#buffer = buffer
  }

  #line(line: string): void {
    if (line === "") {
      if (this.#data.length > 0 || this.#id !== undefined) {
        const event: SseEvent = { data: this.#data.join("\n") }
        if (this.#id !== undefined) event.id = this.#id
        if (this.#event !== undefined) event.event = this.#event
        this.#data = []
        this.#id = undefined
        this.#event = undefined
        this.#onEvent(event)
      }
      this.#event = undefined
      return
    }
    if (line.charCodeAt(0) === 58 /* ":" */) return
    const colon = line.indexOf(":")
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? "" : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    switch (field) {
      case "data":
        this.#data.push(value)
        break
      case "id":
        if (!value.includes("\0")) this.#id = value
        break
      case "event":
        this.#event = value
        break
      case "retry":
        if (/^\d+$/.test(value)) this.#onRetry(Number(value))
        break
    }
  }
}

const isMessage = (value: unknown): value is JSONRPCMessage =>
  typeof value === "object" && value !== null && (value as Json).jsonrpc === "2.0"

const progressTokenOf = (message: JSONRPCMessage): string | undefined => {
  const token = ((message as Json).params as { _meta?: { progressToken?: unknown } } | undefined)?._meta
    ?.progressToken
  return typeof token === "string" ? token : undefined
}

const mediaType = (header: string | undefined): string => {
  if (header === undefined) return ""
  // The common case without parameters or odd spacing needs no split.
  if (header === "application/json" || header === "text/event-stream") return header
  return header.split(";")[0]!.trim().toLowerCase()
}

/** An answer to a request, from the socket pool or from `node:http`. */
type Answer = Http1Response

/** A `node:http` response as an {@link Answer}. */
const fromIncoming = (res: IncomingMessage): Answer => ({
  status: res.statusCode ?? 0,
  header: (name) => {
    const value = res.headers[name]
    return Array.isArray(value) ? value.join(", ") : value
  },
  text: () => readText(res),
  textNow: () => undefined,
  stream: (onText, onEnd) => {
    res.setEncoding("utf8")
    res.on("data", onText)
    res.once("end", () => onEnd())
    res.once("error", (error) => onEnd(error))
    res.once("aborted", () => onEnd(new Error("terminated")))
  },
  discard: () => {
    res.resume()
  },
})

/**
 * The MCP Streamable HTTP client transport on `node:http`.
 *
 * @example
 * ```ts
 * const client = new Client({ name: "me", version: "1.0.0" })
 * await client.connect(new NodeStreamableHttpTransport(new URL("http://127.0.0.1:3000/mcp")))
 * ```
 * @since 0.1.0
 */
export class NodeStreamableHttpTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void
  sessionId?: string

  readonly #url: URL
  readonly #options: NodeStreamableHttpTransportOptions
  readonly #agent: HttpAgent
  readonly #request: typeof httpRequest
  readonly #requests = new Set<ClientRequest>()
  #protocolVersion: string | undefined
  #started = false
  #closed = false
  #retryMs: number | undefined
  #streamTimer: ReturnType<typeof setTimeout> | undefined
  /** Raw keep-alive sockets for the POSTs to an `http:` URL (GET streams and DELETE use `node:http`). */
  readonly #pool: Http1Pool | undefined
  /** The head of a POST up to its `content-length`, for the session id and protocol version in `#headKey`. */
  #head = ""
  #headLatin1 = false
  #headKey: string | undefined
  /** The `Authorization` value of the next requests, from `options.authorization`. */
  #authorization: string | undefined

  constructor(url: URL, options: NodeStreamableHttpTransportOptions = {}) {
    this.#url = url
    this.#options = options
    const extra = Object.entries(options.headers ?? {})
    const https = url.protocol === "https:"
    this.#agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true })
    this.#request = https ? (httpsRequest as unknown as typeof httpRequest) : httpRequest
    for (const [name, value] of extra)
      if (!isValidHeader(name, value)) throw new TypeError(`Invalid HTTP header ${JSON.stringify(name)}`)
    this.#pool =
      url.protocol === "http:"
        ? new Http1Pool({
            host: url.hostname.replace(/^\[|\]$/g, ""),
            port: url.port === "" ? 80 : Number(url.port),
          })
        : undefined
  }

  /** A whole POST for the pool: the head (rebuilt when the session id or protocol version changes) and body. */
  #postMessage(body: string, modern: string): string | Buffer {
    const session = this.sessionId
    const version = this.#protocolVersion
    const key = `${session ?? ""}\n${version ?? ""}\n${this.#authorization ?? ""}`
    if (this.#headKey !== key) {
      const url = this.#url
      const headers = new Map<string, string>([
        ["host", `host: ${url.host}`],
        ["content-type", "content-type: application/json"],
        ["accept", "accept: application/json, text/event-stream"],
      ])
      if (session !== undefined) {
        if (!isValidHeader("mcp-session-id", session))
          throw new NodeStreamableHttpError(-1, "invalid session id from the server")
        headers.set("mcp-session-id", `mcp-session-id: ${session}`)
      }
      if (version !== undefined && isValidHeader("mcp-protocol-version", version))
        headers.set("mcp-protocol-version", `mcp-protocol-version: ${version}`)
      if (this.#authorization !== undefined && isValidHeader("authorization", this.#authorization))
        headers.set("authorization", `authorization: ${this.#authorization}`)
      // Configured headers replace ours of the same name, except the body's length.
      for (const [name, value] of Object.entries(this.#options.headers ?? {}))
        if (name.toLowerCase() !== "content-length") headers.set(name.toLowerCase(), `${name}: ${value}`)
      this.#head = `POST ${url.pathname}${url.search} HTTP/1.1\r\n${[...headers.values()].join("\r\n")}\r\n`
      // Header values may hold obs-text (bytes 0x80-0xff), which go out as single bytes (as node:http does).
      this.#headLatin1 = /[\x80-\xff]/.test(this.#head)
      this.#headKey = key
    }
    // A modern request's own headers (protocol version, method, name) come from its body.
    const head = `${this.#head}${modern}content-length: ${Buffer.byteLength(body)}\r\n\r\n`
    return this.#headLatin1
      ? Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(body, "utf8")])
      : head + body
  }

  get protocolVersion(): string | undefined {
    return this.#protocolVersion
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("NodeStreamableHttpTransport already started")
    this.#started = true
  }

  #headers(extra: Record<string, string | number>): Record<string, string | number> {
    const headers: Record<string, string | number> = { ...extra }
    if (this.sessionId !== undefined) headers["mcp-session-id"] = this.sessionId
    if (this.#protocolVersion !== undefined) headers["mcp-protocol-version"] = this.#protocolVersion
    if (this.#authorization !== undefined) headers.authorization = this.#authorization
    if (this.#options.headers) Object.assign(headers, this.#options.headers)
    return headers
  }

  /**
   * The headers of a POST as raw pairs, which `node:http` writes as they are (no per-header `setHeader`);
   * `undefined` when a configured header replaces one of ours (the object form merges them).
   */

  /** Sends one HTTP request; resolves with the response (its body not read yet). */
  #exchange(
    method: string,
    headers: Record<string, string | number>,
    body?: string,
    timeoutMs?: number,
    retried = false,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      if (this.#closed && method !== "DELETE") return reject(new Error("Not connected: transport closed"))
      const url = this.#url
      const req = this.#request(
        {
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ""),
          port: url.port,
          path: url.pathname + url.search,
          method,
          headers,
          agent: this.#agent,
          ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}),
        },
        (res) => {
          res.once("close", () => this.#requests.delete(req))
          resolve(res)
        },
      )
      this.#requests.add(req)
      req.once("error", (error) => {
        this.#requests.delete(req)
        // A kept-alive socket the server closed just as it was reused: the request never reached it.
        if (
          !retried &&
          !this.#closed &&
          req.reusedSocket &&
          (error as { code?: string }).code === "ECONNRESET"
        )
          resolve(this.#exchange(method, headers, body, timeoutMs, true))
        else reject(error)
      })
      if (timeoutMs !== undefined) req.once("timeout", () => req.destroy(new Error(`${method} timed out`)))
      if (body !== undefined) req.end(body)
      else req.end()
    })
  }

  async #refreshAuthorization(): Promise<void> {
    if (this.#options.authorization !== undefined) this.#authorization = await this.#options.authorization()
  }

  async send(message: JSONRPCMessage | JSONRPCMessage[], options?: TransportSendOptions): Promise<void> {
    try {
      if (options?.resumptionToken) {
        const replay =
          !Array.isArray(message) && "id" in message && "method" in message ? message.id : undefined
        this.#openStream(options.resumptionToken, replay, undefined).catch((error) => this.onerror?.(error))
        return
      }
      const body = JSON.stringify(message)
      // In a 2025 session (a negotiated version) a request never gets the modern headers, even when its
      // `_meta` carries a downstream client's 2026 protocol version.
      let modern =
        Array.isArray(message) || this.#protocolVersion !== undefined ? "" : modernHeaderLines(message)
      if (modern !== "" && this.#options.paramHeaders !== undefined)
        modern += this.#options.paramHeaders.lines(message)
      if (this.#options.authorization !== undefined) await this.#refreshAuthorization()
      let res: Answer =
        this.#pool !== undefined
          ? await this.#pool.request(this.#postMessage(body, modern))
          : fromIncoming(await this.#post(body, modern === "" ? undefined : headerRecord(modern)))
      if (res.status === 401 && this.#options.onUnauthorized !== undefined) {
        const challenge = res.header("www-authenticate")
        res.discard()
        await this.#options.onUnauthorized(typeof challenge === "string" ? challenge : undefined)
        await this.#refreshAuthorization()
        res =
          this.#pool !== undefined
            ? await this.#pool.request(this.#postMessage(body, modern))
            : fromIncoming(await this.#post(body, modern === "" ? undefined : headerRecord(modern)))
      }
      const sessionId = res.header("mcp-session-id")
      if (typeof sessionId === "string" && sessionId !== "") this.sessionId = sessionId
      const status = res.status
      if (status < 200 || status >= 300) {
        const text = await res.text().catch(() => "")
        // The modern era answers a refused request with its JSON-RPC error on an HTTP 4xx (-32021 on 400,
        // -32601 on 404): that error is the request's answer, with its code and data.
        if (modern !== "" && status >= 400 && status < 500 && this.#deliverRefusal(message, text)) return
        throw new NodeStreamableHttpError(status, `Error POSTing to endpoint (HTTP ${status}): ${text}`)
      }
      const messages = Array.isArray(message) ? message : [message]
      if (status === 202) {
        res.discard()
        if (
          messages.some((m) => (m as Json).method === "notifications/initialized") &&
          this.#options.standaloneStream !== false
        )
          this.#openStream(undefined, undefined, undefined).catch((error) => this.onerror?.(error))
        return
      }
      const hasRequests = messages.some((m) => "method" in m && "id" in m && m.id !== undefined)
      if (!hasRequests) {
        res.discard()
        return
      }
      const type = mediaType(res.header("content-type"))
      const origin =
        this.#options.originMetaKey !== undefined && messages.length === 1
          ? progressTokenOf(messages[0]!)
          : undefined
      if (type === "text/event-stream") {
        // The modern era has no resumption: a request whose stream ends before its answer fails then.
        const single = messages.length === 1 ? (messages[0] as { id?: string | number }) : undefined
        this.#readStream(res, {
          origin,
          reconnectable: false,
          ...(modern !== "" && single?.id !== undefined ? { failOnEnd: single.id } : {}),
        })
      } else if (type === "application/json") {
        // Most answers arrive with their head: no promise for the body then.
        const text = res.textNow() ?? (await res.text())
        const data = JSON.parse(text) as unknown
        if (Array.isArray(data)) for (const m of data) this.#deliver(m, origin)
        else this.#deliver(data, origin, undefined, text)
      } else {
        res.discard()
        throw new NodeStreamableHttpError(-1, `Unexpected content type: ${res.header("content-type")}`)
      }
    } catch (error) {
      this.onerror?.(error as Error)
      throw error
    }
  }

  /** A POST on `node:http` (https URLs). */
  #post(body: string, modern: Record<string, string> | undefined): Promise<IncomingMessage> {
    const length = Buffer.byteLength(body)
    return this.#exchange(
      "POST",
      {
        ...this.#headers({
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": length,
        }),
        ...modern,
      },
      body,
    )
  }

  /** Delivers an HTTP error's body when it is the JSON-RPC error answering `message` (a single request). */
  #deliverRefusal(message: JSONRPCMessage | JSONRPCMessage[], text: string): boolean {
    const id = Array.isArray(message) ? undefined : (message as { id?: unknown }).id
    if (id === undefined) return false
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return false
    }
    const error = (body as { error?: { code?: unknown } } | null)?.error
    if ((body as { id?: unknown } | null)?.id !== id || typeof error?.code !== "number") return false
    this.onmessage?.(body as JSONRPCMessage)
    return true
  }

  #deliver(value: unknown, origin: string | undefined, replayId?: string | number, text?: string): boolean {
    if (!isMessage(value)) {
      this.onerror?.(new Error(`Invalid JSON-RPC message: ${JSON.stringify(value)?.slice(0, 200)}`))
      return false
    }
    const m = value as Json
    const isResponse = "id" in m && !("method" in m) && ("result" in m || "error" in m)
    if (isResponse && replayId !== undefined) m.id = replayId
    // The text a response came in, for relaying its result verbatim (internal/resultJson.ts).
    else if (isResponse && text !== undefined) keepMessageText(m, text)
    if (origin !== undefined && typeof m.method === "string" && m.method !== "notifications/progress") {
      const params = (m.params ?? {}) as Json
      m.params = {
        ...params,
        _meta: { ...((params._meta as Json | undefined) ?? {}), [this.#options.originMetaKey!]: origin },
      }
    }
    this.onmessage?.(value)
    return isResponse
  }

  /** Reads an SSE response; a stream that ends before its answer is resumed with `Last-Event-ID`. */
  #readStream(
    res: Answer,
    context: {
      origin: string | undefined
      reconnectable: boolean
      replayId?: string | number
      /** The id of a modern request, answered with a closed-connection error when the stream ends first. */
      failOnEnd?: string | number
    },
  ): void {
    let lastEventId: string | undefined
    let answered = false
    const parser = new SseParser(
      (event) => {
        if (event.id !== undefined) lastEventId = event.id
        if (event.data === "" || (event.event !== undefined && event.event !== "message")) return
        let parsed: unknown
        try {
          parsed = JSON.parse(event.data)
        } catch (error) {
          this.onerror?.(error as Error)
          return
        }
        if (this.#deliver(parsed, context.origin, context.replayId, event.data)) answered = true
      },
      (ms) => {
        this.#retryMs = ms
      },
    )
    let ended = false
    const finish = (error?: Error) => {
      if (ended) return
      ended = true
      if (this.#closed) return
      if (error) this.onerror?.(new Error(`SSE stream disconnected: ${error.message}`))
      if (context.failOnEnd !== undefined && !answered) {
        this.onmessage?.({
          jsonrpc: "2.0",
          id: context.failOnEnd,
          error: {
            code: -32000,
            message: `Connection closed: the response stream ended before the answer${error ? ` (${error.message})` : ""}`,
          },
        })
        return
      }
      const resumable = context.reconnectable || lastEventId !== undefined
      if (resumable && !answered) {
        clearTimeout(this.#streamTimer)
        this.#streamTimer = setTimeout(
          () => {
            this.#openStream(lastEventId, context.replayId, context.origin).catch((e) =>
              this.onerror?.(new Error(`Failed to reconnect SSE stream: ${(e as Error).message}`)),
            )
          },
          this.#retryMs ?? (context.reconnectable ? 1000 : 250),
        )
        this.#streamTimer.unref?.()
      }
    }
    res.stream((chunk) => parser.feed(chunk), finish)
  }

  /** Opens a GET SSE stream (the standalone one, or a resumption); a 405 means the server has none. */
  async #openStream(
    lastEventId: string | undefined,
    replayId: string | number | undefined,
    origin: string | undefined,
  ): Promise<void> {
    if (this.#closed) return
    await this.#refreshAuthorization()
    const headers = this.#headers({ accept: "text/event-stream" })
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId
    const res = await this.#exchange("GET", headers)
    const status = res.statusCode ?? 0
    if (status === 405) {
      res.resume()
      return
    }
    if (status < 200 || status >= 300) {
      res.resume()
      throw new NodeStreamableHttpError(status, `Failed to open SSE stream (HTTP ${status})`)
    }
    this.#readStream(fromIncoming(res), {
      origin,
      reconnectable: lastEventId === undefined,
      ...(replayId !== undefined ? { replayId } : {}),
    })
  }

  /** Ends the session on the server (`DELETE`); a 405 means the server does not support it. */
  async terminateSession(): Promise<void> {
    if (this.sessionId === undefined) return
    const res = await this.#exchange(
      "DELETE",
      this.#headers({}),
      undefined,
      this.#options.closeTimeoutMs ?? 1000,
    )
    res.resume()
    const status = res.statusCode ?? 0
    if ((status < 200 || status >= 300) && status !== 405 && status !== 404)
      throw new NodeStreamableHttpError(status, `Failed to terminate session (HTTP ${status})`)
    this.sessionId = undefined
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearTimeout(this.#streamTimer)
    for (const req of this.#requests) req.destroy()
    this.#requests.clear()
    this.#pool?.close()
    if (this.sessionId !== undefined) await this.terminateSession().catch(() => {})
    this.#agent.destroy()
    this.onclose?.()
  }
}

const readText = (res: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    res.on("data", (chunk: Buffer) => chunks.push(chunk))
    res.once("end", () =>
      resolve(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8")),
    )
    res.once("error", reject)
    res.once("aborted", () => reject(new Error("terminated")))
  })
