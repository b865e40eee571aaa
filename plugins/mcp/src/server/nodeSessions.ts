/**
 * The lean Streamable HTTP server transport of `serveHttp` (`transport: "node"`): sessions on
 * `node:http` with the SDK's `Server` kept for the protocol (its handlers, capabilities, progress,
 * cancellation, server → client requests), but none of the SDK's HTTP transport: each POST body is
 * parsed once and checked only for JSON-RPC shape; a request answered without notifications goes out
 * as one `application/json` write with a `content-length`; a request that produces notifications or
 * server → client requests (progress, logs, elicitation, sampling) switches its response to an SSE
 * stream at the first one; server notifications go to the session's GET stream.
 *
 * Session ids are signed ({@link signSessionId}), so a replica rebuilds a session it has not seen from
 * the id alone; what replicas must share goes over a {@link ReplicaBus}: a client's answer to a
 * server → client request made by another replica, notifications for a GET stream held by another
 * replica, cancellations, and session ends.
 *
 * Session ids expire (`maxAgeMs` after their issue time) and ended sessions stay ended: what is
 * remembered is the nonce of each ended session's (canonical) id. A replica refuses ids issued before
 * it started unless the replicas already running told it what they know of ended sessions (a `sync`
 * over the bus, answered with their lists and how far back they reach), so a restart never forgets a
 * revocation: in one process, a restart refuses every id issued before it.
 *
 * @internal
 */

import { randomBytes } from "node:crypto"
import {
  type JSONRPCMessage,
  ProtocolError,
  type Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server"
import { sessionOwner } from "./callerIdentity.js"
import { type EdgeRequest, type EdgeResponse, type KnownHeaders, readBodyUpTo } from "./edgeExchange.js"
import type { ReplicaBus } from "./replicaBus.js"
import {
  CALL_CONTROLLER,
  CallController,
  directErrorMember,
  isDirectParams,
  type McpExposure,
} from "./serve.js"
import {
  compactClientInfo,
  type SessionClaims,
  sessionNonce,
  signSessionId,
  verifySessionId,
} from "./sessionToken.js"

/** The SDK's `AuthInfo` (what `extra.authInfo` holds in request handlers). */
export interface AuthInfo {
  readonly token: string
  readonly clientId: string
  readonly scopes: string[]
  readonly expiresAt?: number
  /** `subject`: the token's user (`McpCaller.subject`), when known. */
  readonly extra?: Record<string, unknown>
}

type RequestId = string | number
type Message = Record<string, unknown> & { method?: string; id?: RequestId | null }

/** JSON-RPC `Connection closed` (the SDK's code for a request whose connection or call went away). */
const CONNECTION_CLOSED = -32000

/** Most messages in one batch (the SDK's limit). */
const MAX_BATCH = 100
/** Keep-alive comment interval on SSE streams (the SDK's default). */
const KEEP_ALIVE_MS = 15_000
/** The id of the `initialize` a replica replays to rebuild a session (its answer is dropped). */
const REPLAY_ID = "toolplane:replay-initialize"
/** Notifications every replica sends its own streams (each watches the same upstreams). */
const LOCAL_ONLY = new Set([
  "notifications/tools/list_changed",
  "notifications/resources/list_changed",
  "notifications/prompts/list_changed",
])
/** Ended sessions remembered (their signed ids stay refused); past this, older ids are refused. */
const MAX_ENDED = 100_000
/** How long a starting replica waits for the running ones to tell it the ended sessions. */
const SYNC_MS = 500

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
}

/** Writes a JSON-RPC error answer with no id (a transport-level refusal). */
export const jsonRpcError = (
  res: EdgeResponse,
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): undefined => {
  if (res.headersSent) return
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null })
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    // A 413 is sent before the body was read: the connection cannot be reused, so say so.
    ...(status === 413 ? { connection: "close" } : {}),
    ...headers,
  })
  res.end(body)
}

const isId = (id: unknown): id is RequestId =>
  typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id))

/** JSON-RPC 2.0 shape only (what the SDK's protocol layer needs to route a message); params are the handlers'. */
const isMessage = (m: unknown): m is Message => {
  if (typeof m !== "object" || m === null || Array.isArray(m)) return false
  const r = m as Message
  if (r.jsonrpc !== "2.0") return false
  if (typeof r.method === "string") {
    const params = r.params
    if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params)))
      return false
    return r.id === undefined || isId(r.id)
  }
  if (r.method !== undefined) return false
  if ("result" in r) return isId(r.id) && typeof r.result === "object" && r.result !== null
  const error = r.error as { code?: unknown; message?: unknown } | undefined
  return (
    typeof error === "object" &&
    error !== null &&
    Number.isInteger(error.code) &&
    typeof error.message === "string"
  )
}

const isRequest = (m: Message): boolean => typeof m.method === "string" && m.id !== undefined

const acceptsBoth = (accept: string | undefined) =>
  accept?.includes("application/json") === true && accept.includes("text/event-stream")

const isJsonType = (type: string | undefined) =>
  type !== undefined && /^application\/json\s*(;|$)/i.test(type)

const sseEvent = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`

/** The JSON of a body, or `undefined` after answering 400 when it is not JSON. */
const parseBody = (body: Buffer, res: EdgeResponse): unknown => {
  try {
    return JSON.parse(body.toString("utf8"))
  } catch {
    jsonRpcError(res, 400, -32700, "Parse error: Invalid JSON")
    return undefined
  }
}

const tooLarge = (res: EdgeResponse, maxBytes: number) =>
  jsonRpcError(res, 413, -32000, `Payload Too Large: Request body must not exceed ${maxBytes} bytes`)

/** Reads and parses a JSON body from the Node stream; `undefined` when an error answer was sent. */
const readJsonBody = async (req: EdgeRequest, res: EdgeResponse, maxBytes: number): Promise<unknown> => {
  const body = await readBodyUpTo(req, maxBytes)
  if (body === undefined) return tooLarge(res, maxBytes)
  return parseBody(body, res)
}

/**
 * The SDK's `extra.requestInfo` of a POST's messages: its `headers` are read through the request when a
 * handler asks for them (a raw-edge request builds its header record then, not on every call).
 */
class RequestInfo {
  readonly #req: EdgeRequest
  constructor(req: EdgeRequest) {
    this.#req = req
  }
  get headers(): EdgeRequest["headers"] {
    return this.#req.headers
  }
}

/** One POST with requests: its answers go out as one JSON write, or as an SSE stream once it has to. */
class Exchange {
  readonly #session: NodeSession
  readonly #res: EdgeResponse
  readonly batch: boolean
  readonly #initialize: boolean
  /** The ids still to answer: the one of most POSTs in `#one`, a batch's in `#many`. */
  #one: RequestId | undefined
  readonly #many: Set<RequestId> | undefined
  /** A batch's answers so far; a single request's answer message. */
  #answers: unknown[] | undefined
  #answer: unknown
  #streaming = false
  #keepAlive: ReturnType<typeof setInterval> | undefined
  finished = false

  constructor(
    session: NodeSession,
    res: EdgeResponse,
    ids: RequestId[],
    batch: boolean,
    initialize: boolean,
  ) {
    this.#session = session
    this.#res = res
    this.batch = batch
    this.#initialize = initialize
    if (ids.length === 1) this.#one = ids[0]
    else this.#many = new Set(ids)
  }

  /** How many of its requests are still to answer. */
  get remaining(): number {
    return this.#many !== undefined ? this.#many.size : this.#one !== undefined ? 1 : 0
  }

  /** Calls `f` with each id still to answer, in the order of the requests. */
  forEachPending(f: (id: RequestId) => void): void {
    if (this.#many !== undefined) for (const id of this.#many) f(id)
    else if (this.#one !== undefined) f(this.#one)
  }

  /** Whether `id` was still to answer (it is not any more). */
  #take(id: RequestId): boolean {
    if (this.#many !== undefined) return this.#many.delete(id)
    if (this.#one === undefined || this.#one !== id) return false
    this.#one = undefined
    return true
  }

  #clear(): void {
    this.#one = undefined
    this.#many?.clear()
  }

  /** A notification or request related to one of this POST's requests; false when it cannot be sent. */
  event(message: unknown): boolean {
    if (this.finished || this.#session.jsonOnly) return false
    if (!this.#streaming) {
      this.#streaming = true
      this.#res.writeHead(200, { ...SSE_HEADERS, "mcp-session-id": this.#session.sessionId })
      this.#keepAlive = setInterval(() => this.#res.write(": keepalive\n\n"), KEEP_ALIVE_MS)
      this.#keepAlive.unref()
    }
    this.#res.write(sseEvent(message))
    return true
  }

  /**
   * The answer to one of this POST's requests: a message, or (`text`) its JSON text, one line, written as
   * is (the relay fast path of a single request; a batch's answers are encoded together).
   */
  answer(id: RequestId, message: unknown, text?: string): void {
    if (this.finished || !this.#take(id)) return
    if (this.#streaming)
      this.#res.write(text !== undefined ? `event: message\ndata: ${text}\n\n` : sseEvent(message))
    else if (this.batch) (this.#answers ??= []).push(text !== undefined ? JSON.parse(text) : message)
    else this.#answer = message
    if (this.remaining > 0) return
    this.finished = true
    clearInterval(this.#keepAlive)
    if (this.#streaming) {
      this.#res.end()
      return
    }
    const body = this.batch
      ? JSON.stringify(this.#answers)
      : text !== undefined
        ? text
        : JSON.stringify(this.#answer)
    // The session id goes out with the `initialize` answer (where the client learns it), not with every one.
    this.#res.writeHead(
      200,
      this.#initialize
        ? {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            "mcp-session-id": this.#session.sessionId,
          }
        : { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    )
    this.#res.end(body)
  }

  /** The response is over (answered, or the client went away: its requests are cancelled). */
  closed(): void {
    clearInterval(this.#keepAlive)
    if (this.finished) return
    this.finished = true
    this.forEachPending((id) => this.#session.cancelLocal(id, "the client disconnected"))
    this.#clear()
  }

  /** Ends the response without answers (the session is closing). */
  abort(): void {
    clearInterval(this.#keepAlive)
    if (this.finished) return
    this.finished = true
    this.#clear()
    if (this.#res.headersSent) this.#res.end()
    else jsonRpcError(this.#res, 404, -32001, "Session not found")
  }
}

/**
 * The `extra` of a request dispatched without the SDK's protocol layer: what its handler reads (the
 * request's signal, ids, `_meta`, request info and auth), and notifications and requests to the client
 * related to it, sent while the client has not cancelled it. One object per call, its methods shared.
 */
class DirectExtra {
  readonly requestInfo: unknown
  readonly authInfo?: AuthInfo
  readonly signal: AbortSignal
  readonly sessionId: string
  readonly requestId: RequestId
  readonly _meta: unknown
  readonly [CALL_CONTROLLER]: CallController
  readonly #server: Server

  constructor(
    server: Server,
    sessionId: string,
    requestId: RequestId,
    controller: CallController,
    meta: unknown,
    extra: { requestInfo: unknown; authInfo?: AuthInfo },
  ) {
    this.requestInfo = extra.requestInfo
    if (extra.authInfo !== undefined) this.authInfo = extra.authInfo
    this.signal = controller.signal
    this.sessionId = sessionId
    this.requestId = requestId
    this._meta = meta
    this[CALL_CONTROLLER] = controller
    this.#server = server
  }

  async sendNotification(notification: never): Promise<void> {
    if (!this[CALL_CONTROLLER].cancelled)
      await this.#server.notification(notification, { relatedRequestId: this.requestId })
  }

  async sendRequest(request: never): Promise<unknown> {
    if (this[CALL_CONTROLLER].cancelled) throw new ProtocolError(CONNECTION_CLOSED, "Request was cancelled")
    return this.#server.request(request, { relatedRequestId: this.requestId })
  }
}

/** One session on this replica: the SDK server's transport. */
class NodeSession implements Transport {
  readonly sessionId: string
  readonly clientId: string | undefined
  /** The nonce and issue time (epoch ms) of its id. */
  readonly nonce: string
  readonly issuedAt: number
  /** When its id expires (epoch ms). */
  readonly expiresAt: number
  readonly #owner: NodeSessions
  server!: Server
  lastSeen = Date.now()
  /** Exchanges by the id of each request they wait for. */
  readonly #byRequest = new Map<RequestId, Exchange>()
  #stream: EdgeResponse | undefined
  #streamKeepAlive: ReturnType<typeof setInterval> | undefined
  #closed = false
  #replayed: (() => void) | undefined
  /** Requests dispatched without the SDK's protocol layer, by id (their cancellation). */
  readonly #direct = new Map<RequestId, CallController>()
  onmessage?: Transport["onmessage"]
  onclose?: () => void
  onerror?: (error: Error) => void

  constructor(owner: NodeSessions, sessionId: string, clientId: string | undefined, claims: SessionClaims) {
    this.#owner = owner
    this.sessionId = sessionId
    this.clientId = clientId
    this.nonce = claims.n
    this.issuedAt = claims.t
    this.expiresAt = claims.t + owner.maxAgeMs
  }

  get jsonOnly(): boolean {
    return this.#owner.jsonOnly
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as unknown as Message
    if (m.method === undefined) {
      // An answer to a client request.
      const id = m.id as RequestId
      if (id === REPLAY_ID) {
        this.#replayed?.()
        return
      }
      const exchange = this.#byRequest.get(id)
      if (exchange === undefined) return
      this.#byRequest.delete(id)
      exchange.answer(id, message)
      return
    }
    // A server → client request carries this replica's tag, so its answer finds it from any replica.
    const out = m.id !== undefined ? { ...m, id: `${this.#owner.replicaId}:${m.id}` } : message
    const related = options?.relatedRequestId
    if (related !== undefined) {
      const exchange = this.#byRequest.get(related)
      if (exchange?.event(out)) return
      if (m.id !== undefined)
        throw new Error(
          `No connection established for request ID: ${String(related)} (the response has ended)`,
        )
      return
    }
    this.notify(out, m.method)
  }

  /** A message for the session's GET stream: here, or on the replica holding it. */
  notify(message: unknown, method: string | undefined): void {
    if (this.#stream) {
      this.#stream.write(sseEvent(message))
      return
    }
    if (method !== undefined && !LOCAL_ONLY.has(method))
      this.#owner.publish({ k: "notify", s: this.sessionId, m: message })
  }

  /** Writes a message another replica sent for this session's GET stream (if it is here). */
  writeStream(message: unknown): void {
    this.#stream?.write(sseEvent(message))
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const controller of this.#direct.values()) controller.cancel("the session closed")
    this.#direct.clear()
    for (const exchange of new Set(this.#byRequest.values())) exchange.abort()
    this.#byRequest.clear()
    clearInterval(this.#streamKeepAlive)
    this.#stream?.end()
    this.#stream = undefined
    this.#owner.forget(this)
    this.onclose?.()
  }

  /** Replays the session's `initialize` (and `initialized`) into a new server, from the signed id. */
  replay(claims: SessionClaims): Promise<void> {
    const done = new Promise<void>((resolve) => {
      this.#replayed = resolve
    })
    this.onmessage?.({
      jsonrpc: "2.0",
      id: REPLAY_ID,
      method: "initialize",
      params: { protocolVersion: claims.v, capabilities: claims.c, clientInfo: claims.i },
    } as JSONRPCMessage)
    return done.then(() => {
      this.#replayed = undefined
      this.onmessage?.({ jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage)
    })
  }

  /** Cancels a request of this session handled here (its handler's signal aborts). */
  cancelLocal(id: RequestId, reason: string): void {
    this.#byRequest.delete(id)
    this.#direct.get(id)?.cancel(reason)
    this.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, reason },
    } as JSONRPCMessage)
  }

  /** A client's `notifications/cancelled` posted to another replica: cancels the request if it runs here. */
  cancelled(m: Message): void {
    const params = m.params as { requestId?: unknown; reason?: unknown } | undefined
    if (isId(params?.requestId)) this.#direct.get(params.requestId)?.cancel(params.reason)
    this.onmessage?.(m as unknown as JSONRPCMessage)
  }

  /** Delivers an answer to a server → client request this replica made (wire id `replica:n`). */
  deliverAnswer(message: Message): void {
    const id = message.id as string
    const n = Number(id.slice(id.indexOf(":") + 1))
    this.onmessage?.({ ...message, id: n } as unknown as JSONRPCMessage)
  }

  /** The messages of one POST. */
  receive(
    messages: readonly Message[],
    batch: boolean,
    req: EdgeRequest,
    res: EdgeResponse,
    authInfo: AuthInfo | undefined,
  ): void {
    this.lastSeen = Date.now()
    const requestInfo = new RequestInfo(req)
    const extra = authInfo ? { requestInfo, authInfo } : { requestInfo }
    let ids: RequestId[] | undefined
    let initialize = false
    for (const m of messages)
      if (isRequest(m)) {
        ;(ids ??= []).push(m.id as RequestId)
        if (m.method === "initialize") initialize = true
      }
    if (ids === undefined) {
      for (const m of messages) this.#inbound(m, extra)
      res.writeHead(202, { "content-length": "0" })
      res.end()
      return
    }
    const exchange = new Exchange(this, res, ids, batch, initialize)
    for (const id of ids) this.#byRequest.set(id, exchange)
    res.once("close", () => {
      if (exchange.remaining > 0)
        exchange.forEachPending((id) => {
          if (this.#byRequest.get(id) === exchange) this.#byRequest.delete(id)
        })
      exchange.closed()
    })
    for (const m of messages) this.#inbound(m, extra)
  }

  #inbound(m: Message, extra: { requestInfo: unknown; authInfo?: AuthInfo }): void {
    if (m.method === undefined) {
      // The client's answer to a server → client request: made here, or by the replica in its id.
      const id = m.id
      const colon = typeof id === "string" ? id.indexOf(":") : -1
      if (colon > 0) {
        const replica = (id as string).slice(0, colon)
        if (replica === this.#owner.replicaId) this.deliverAnswer(m)
        else this.#owner.publish({ k: "reply", t: replica, s: this.sessionId, m })
        return
      }
    } else if (m.id !== undefined) {
      if (this.#dispatch(m, extra)) return
    } else if (m.method === "notifications/cancelled") {
      const params = m.params as { requestId?: unknown; reason?: unknown } | undefined
      const target = params?.requestId
      if (isId(target)) {
        this.#direct.get(target)?.cancel(params?.reason)
        if (!this.#byRequest.has(target)) this.#owner.publish({ k: "cancel", s: this.sessionId, m })
      }
    }
    this.onmessage?.(m as unknown as JSONRPCMessage, extra as never)
  }

  /**
   * Answers `ping`, `tools/call` and `tools/list` without the SDK's protocol layer (no schema validation
   * of the request and result, no promise chain): the exposure's own handlers, with params of the shape
   * they read; anything else (or odd params) goes to the SDK server. False when not dispatched.
   */
  #dispatch(m: Message, extra: { requestInfo: unknown; authInfo?: AuthInfo }): boolean {
    const method = m.method as string
    const id = m.id as RequestId
    if (method === "ping") {
      void this.send({ jsonrpc: "2.0", id, result: {} } as JSONRPCMessage)
      return true
    }
    if (method !== "tools/call" && method !== "tools/list") return false
    const handlers = this.#owner.exposure.direct(this.server)
    if (handlers === undefined || !isDirectParams(method, m.params)) return false
    // A single `tools/call` is answered with its result's JSON text (the upstream's own text when an MCP
    // backend's result reached here unchanged); batches keep their answers as messages.
    const asText = method === "tools/call" && this.#byRequest.get(id)?.batch === false
    // The request's controller is the call's own (`CALL_CONTROLLER`): the call's signal, aborted by the
    // client's cancellation, its disconnection or the session's end (`cancel`, after which nothing is
    // answered), or by a shutdown (`abort`, and the call still answers).
    const controller = new CallController()
    this.#direct.set(id, controller)
    const full = new DirectExtra(
      this.server,
      this.sessionId,
      id,
      controller,
      (m.params as { _meta?: unknown } | undefined)?._meta,
      extra,
    )
    ;(asText ? handlers.callToolJson(m.params, full as never) : handlers[method](m.params, full as never))
      .then(
        (result) => {
          if (this.#direct.get(id) === controller) this.#direct.delete(id)
          if (controller.cancelled) return
          if (asText) return this.#answerText(id, result as string)
          return this.send({ jsonrpc: "2.0", id, result } as JSONRPCMessage)
        },
        (error: { code?: unknown; message?: unknown; data?: unknown }) => {
          if (this.#direct.get(id) === controller) this.#direct.delete(id)
          if (controller.cancelled) return
          return this.send({ jsonrpc: "2.0", id, error: directErrorMember(error) } as JSONRPCMessage)
        },
      )
      .catch((error) => this.onerror?.(error as Error))
    return true
  }

  /** Answers a client request with the JSON text of its `result` member (see `resultJson`). */
  #answerText(id: RequestId, result: string): void {
    const exchange = this.#byRequest.get(id)
    if (exchange === undefined) return
    this.#byRequest.delete(id)
    exchange.answer(id, undefined, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`)
  }

  /** Opens the session's GET stream (one per session on a replica). */
  openStream(res: EdgeResponse): void {
    if (this.#stream) {
      jsonRpcError(res, 409, -32000, "Conflict: Only one SSE stream is allowed per session")
      return
    }
    this.lastSeen = Date.now()
    res.writeHead(200, { ...SSE_HEADERS, "mcp-session-id": this.sessionId })
    res.flushHeaders()
    this.#stream = res
    this.#streamKeepAlive = setInterval(() => res.write(": keepalive\n\n"), KEEP_ALIVE_MS)
    this.#streamKeepAlive.unref()
    res.once("close", () => {
      if (this.#stream !== res) return
      this.#stream = undefined
      clearInterval(this.#streamKeepAlive)
    })
  }
}

/** Options of {@link NodeSessions}. */
export interface NodeSessionsOptions {
  readonly exposure: McpExposure
  /** The key session ids are signed with (see `sessionToken.ts`). */
  readonly key: Buffer
  readonly bus?: ReplicaBus
  readonly maxSessions: number
  readonly maxBodyBytes: number
  readonly enableJsonResponse: boolean
  /** How long a session id is valid after it was issued. */
  readonly maxAgeMs: number
  readonly onError?: (error: unknown) => void
}

type BusMessage =
  | { k: "reply"; t: string; s: string; m: Message; f?: string }
  | { k: "notify"; s: string; m: unknown; f?: string }
  | { k: "cancel"; s: string; m: Message; f?: string }
  | { k: "end"; s: string; f?: string }
  /** A replica starting: what do the others know of ended sessions? */
  | { k: "sync"; f?: string }
  /** The answer, to replica `to`: ended sessions (nonce, issue time) and the oldest issue time accepted. */
  | { k: "ended"; to: string; nb: number; e: [string, number][]; f?: string }

/** The sessions of one `serveHttp` server on the node transport. */
export class NodeSessions {
  /** This replica's tag in the ids of its server → client requests. */
  readonly replicaId = randomBytes(6).toString("base64url").replace(/[-_]/g, "x")
  readonly #options: NodeSessionsOptions
  readonly exposure: McpExposure
  readonly #sessions = new Map<string, NodeSession>()
  readonly #opening = new Map<string, Promise<NodeSession>>()
  /** Ended sessions: nonce → issue time of the id (epoch ms), in the order they ended. */
  readonly #ended = new Map<string, number>()
  /** Ids issued before this (epoch ms) are refused: nothing is known here of their ends. */
  #notBefore = Date.now()
  #synced: (() => void) | undefined
  #pending = 0
  #unsubscribe: (() => Promise<void>) | undefined

  constructor(options: NodeSessionsOptions) {
    this.#options = options
    this.exposure = options.exposure
  }

  get maxAgeMs(): number {
    return this.#options.maxAgeMs
  }

  get jsonOnly(): boolean {
    return this.#options.enableJsonResponse
  }

  get size(): number {
    return this.#sessions.size
  }

  async start(): Promise<void> {
    const bus = this.#options.bus
    if (!bus) return
    this.#unsubscribe = await bus.subscribe((text) => this.#fromBus(text))
    // Every end published from now on arrives here: until a running replica answers (or with none), ids
    // issued before now stay refused.
    this.#notBefore = Date.now()
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SYNC_MS)
      this.#synced = () => {
        clearTimeout(timer)
        resolve()
      }
      this.publish({ k: "sync" })
    })
    this.#synced = undefined
  }

  publish(message: BusMessage): void {
    const bus = this.#options.bus
    if (!bus) return
    bus
      .publish(JSON.stringify({ ...message, f: this.replicaId }))
      .catch((error) => this.#options.onError?.(error))
  }

  #fromBus(text: string): void {
    let message: BusMessage
    try {
      message = JSON.parse(text) as BusMessage
    } catch {
      return
    }
    if (message.f === this.replicaId) return
    const session = "s" in message ? this.#sessions.get(message.s) : undefined
    switch (message.k) {
      case "reply":
        if (message.t === this.replicaId) session?.deliverAnswer(message.m)
        return
      case "notify":
        session?.writeStream(message.m)
        return
      case "cancel":
        session?.cancelled(message.m)
        return
      case "end": {
        const claims = verifySessionId(this.#options.key, message.s)
        if (claims) this.#end(claims.n, claims.t)
        void session?.server.close().catch(() => {})
        return
      }
      case "sync":
        if (message.f !== undefined)
          this.publish({ k: "ended", to: message.f, nb: this.#notBefore, e: [...this.#ended] })
        return
      case "ended":
        if (message.to !== this.replicaId || !Array.isArray(message.e)) return
        for (const entry of message.e)
          if (Array.isArray(entry) && typeof entry[0] === "string" && Number.isSafeInteger(entry[1]))
            this.#end(entry[0], entry[1])
        // Its list is complete for the ids it accepts: so is this one's now.
        if (Number.isSafeInteger(message.nb)) this.#notBefore = Math.min(this.#notBefore, message.nb)
        this.#synced?.()
        return
    }
  }

  /** Remembers an ended session (its id's nonce and issue time). */
  #end(nonce: string, issuedAt: number): void {
    if (this.#ended.has(nonce)) return
    this.#ended.set(nonce, issuedAt)
    if (this.#ended.size > MAX_ENDED) {
      // Forgetting one: refuse every id issued up to it instead.
      const [oldest, at] = this.#ended.entries().next().value as [string, number]
      this.#ended.delete(oldest)
      this.#notBefore = Math.max(this.#notBefore, at + 1)
    }
  }

  /** Ends a session: refused from now on, here and (over the bus) on every replica. */
  #revoke(session: NodeSession): void {
    this.#end(session.nonce, session.issuedAt)
    this.publish({ k: "end", s: session.sessionId })
    void session.server.close().catch(() => {})
  }

  /** Whether a session open here is still valid (not expired; ends elsewhere close it here). */
  #current(session: NodeSession): boolean {
    if (session.expiresAt >= Date.now()) return true
    this.#revoke(session)
    return false
  }

  /** Whether an id issued at `issuedAt` with `nonce` is refused (expired, ended, or from before what is known). */
  #refused(nonce: string, issuedAt: number, now: number): boolean {
    return issuedAt < this.#notBefore || now - issuedAt > this.#options.maxAgeMs || this.#ended.has(nonce)
  }

  forget(session: NodeSession): void {
    if (this.#sessions.get(session.sessionId) === session) this.#sessions.delete(session.sessionId)
  }

  /**
   * Ends sessions idle since before `cutoff` or past their lifetime. Idle ones are ended for good in one
   * process; with a bus only this replica's state is dropped (another may be serving the session, and a
   * request here later rebuilds it from its id). Forgets ended sessions whose ids have expired anyway.
   */
  sweep(cutoff: number): void {
    const now = Date.now()
    for (const session of this.#sessions.values())
      if (session.expiresAt < now || (session.lastSeen < cutoff && this.#options.bus === undefined))
        this.#revoke(session)
      else if (session.lastSeen < cutoff) void session.server.close().catch(() => {})
    const oldest = now - this.#options.maxAgeMs
    for (const [nonce, issuedAt] of this.#ended) if (issuedAt < oldest) this.#ended.delete(nonce)
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.().catch(() => {})
    await Promise.all([...this.#sessions.values()].map((s) => s.server.close().catch(() => {})))
    this.#sessions.clear()
  }

  async #open(id: string, clientId: string | undefined, claims: SessionClaims): Promise<NodeSession> {
    const session = new NodeSession(this, id, clientId, claims)
    const server = this.#options.exposure.createServer()
    session.server = server
    await server.connect(session)
    this.#sessions.set(id, session)
    return session
  }

  /** The session `id` names for this client: known here, or rebuilt from its signed id. */
  async #session(id: string, clientId: string | undefined): Promise<NodeSession | undefined | "full"> {
    const known = this.#sessions.get(id)
    if (known) return known.clientId === clientId && this.#current(known) ? known : undefined
    const claims = verifySessionId(this.#options.key, id)
    if (claims === undefined || claims.u !== clientId || this.#refused(claims.n, claims.t, Date.now()))
      return undefined
    let opening = this.#opening.get(id)
    if (!opening) {
      if (this.#sessions.size + this.#pending >= this.#options.maxSessions) return "full"
      opening = (async () => {
        const session = await this.#open(id, clientId, claims)
        await session.replay(claims)
        return session
      })()
      this.#opening.set(id, opening)
      opening.then(
        () => this.#opening.delete(id),
        () => this.#opening.delete(id),
      )
    }
    return opening
  }

  /**
   * Handles a request to the endpoint (DNS rebinding, auth and path were checked). A POST whose body the
   * raw edge read, to a session known here, is answered or dispatched synchronously; otherwise a promise.
   */
  handle(
    req: EdgeRequest,
    res: EdgeResponse,
    known: KnownHeaders,
    authInfo: AuthInfo | undefined,
  ): Promise<void> | undefined {
    const method = req.method
    if (method === "POST") return this.#post(req, res, known, authInfo)
    return this.#getOrDelete(req, res, known, authInfo)
  }

  async #getOrDelete(
    req: EdgeRequest,
    res: EdgeResponse,
    known: KnownHeaders,
    authInfo: AuthInfo | undefined,
  ): Promise<void> {
    const sessionId = known.sessionId
    const method = req.method
    if (method !== "GET" && method !== "DELETE") {
      req.resume()
      return jsonRpcError(res, 405, -32000, "Method not allowed.", { allow: "GET, POST, DELETE" })
    }
    if (method === "GET" && !known.accept?.includes("text/event-stream"))
      return jsonRpcError(res, 406, -32000, "Not Acceptable: Client must accept text/event-stream")
    if (sessionId === undefined)
      return jsonRpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required")
    if (this.#badVersion(known, res)) return
    const session = await this.#session(sessionId, sessionOwner(authInfo))
    if (session === "full") return jsonRpcError(res, 503, -32000, "Too many sessions")
    if (session === undefined) return jsonRpcError(res, 404, -32001, "Session not found")
    if (method === "GET") return session.openStream(res)
    this.#revoke(session)
    await session.server.close().catch(() => {})
    res.writeHead(200, { "content-length": "0" })
    res.end()
  }

  #badVersion(known: KnownHeaders, res: EdgeResponse): boolean {
    const version = known.protocolVersion
    if (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false
    jsonRpcError(
      res,
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    )
    return true
  }

  #post(
    req: EdgeRequest,
    res: EdgeResponse,
    known: KnownHeaders,
    authInfo: AuthInfo | undefined,
  ): Promise<void> | undefined {
    if (!acceptsBoth(known.accept)) {
      req.resume()
      return jsonRpcError(
        res,
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream",
      )
    }
    if (!isJsonType(known.contentType)) {
      req.resume()
      return jsonRpcError(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json")
    }
    const maxBytes = this.#options.maxBodyBytes
    if (Number(known.contentLength) > maxBytes) {
      tooLarge(res, maxBytes)
      req.resume()
      return
    }
    // The raw edge read the whole body already (never more than the cap).
    const raw = req.rawBody
    if (raw === undefined) return this.#readPost(req, res, known, authInfo)
    const body = parseBody(raw, res)
    if (body === undefined) return
    return this.#messages(body, req, res, known, authInfo)
  }

  async #readPost(
    req: EdgeRequest,
    res: EdgeResponse,
    known: KnownHeaders,
    authInfo: AuthInfo | undefined,
  ): Promise<void> {
    const body = await readJsonBody(req, res, this.#options.maxBodyBytes)
    if (body === undefined) return
    return this.#messages(body, req, res, known, authInfo)
  }

  /** A POST's parsed body: checked, then given to its session (known here: no promise). */
  #messages(
    body: unknown,
    req: EdgeRequest,
    res: EdgeResponse,
    known: KnownHeaders,
    authInfo: AuthInfo | undefined,
  ): Promise<void> | undefined {
    const batch = Array.isArray(body)
    const messages = (batch ? body : [body]) as unknown[]
    if (messages.length === 0)
      return jsonRpcError(res, 400, -32600, "Invalid Request: the body is an empty JSON array")
    if (messages.length > MAX_BATCH)
      return jsonRpcError(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`)
    let initialize: Message | undefined
    for (const m of messages) {
      if (!isMessage(m)) return jsonRpcError(res, 400, -32700, "Parse error: Invalid JSON-RPC message")
      if (m.method === "initialize" && m.id !== undefined) initialize = m
    }
    const sessionId = known.sessionId
    if (initialize)
      return this.#initialize(initialize, messages as Message[], batch, req, res, known, authInfo)
    if (sessionId === undefined)
      return jsonRpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required")
    if (this.#badVersion(known, res)) return
    const clientId = sessionOwner(authInfo)
    const here = this.#sessions.get(sessionId)
    if (here === undefined)
      return this.#toSession(sessionId, messages as Message[], batch, req, res, authInfo)
    if (here.clientId !== clientId || !this.#current(here))
      return jsonRpcError(res, 404, -32001, "Session not found")
    here.receive(messages as Message[], batch, req, res, authInfo)
    return
  }

  /** A POST for a session not open here: rebuilt from its signed id (or refused). */
  async #toSession(
    sessionId: string,
    messages: Message[],
    batch: boolean,
    req: EdgeRequest,
    res: EdgeResponse,
    authInfo: AuthInfo | undefined,
  ): Promise<void> {
    const session = await this.#session(sessionId, sessionOwner(authInfo))
    if (session === "full") return jsonRpcError(res, 503, -32000, "Too many sessions")
    if (session === undefined) return jsonRpcError(res, 404, -32001, "Session not found")
    session.receive(messages, batch, req, res, authInfo)
  }

  async #initialize(
    initialize: Message,
    messages: Message[],
    batch: boolean,
    req: EdgeRequest,
    res: EdgeResponse,
    known: KnownHeaders,
    authInfo: AuthInfo | undefined,
  ): Promise<void> {
    const sessionId = known.sessionId
    const clientId = sessionOwner(authInfo)
    if (sessionId !== undefined) {
      const session = await this.#session(sessionId, clientId)
      return session === undefined
        ? jsonRpcError(res, 404, -32001, "Session not found")
        : jsonRpcError(res, 400, -32600, "Invalid Request: Server already initialized")
    }
    if (messages.length > 1)
      return jsonRpcError(res, 400, -32600, "Invalid Request: Only one initialization request is allowed")
    if (this.#sessions.size + this.#pending >= this.#options.maxSessions)
      return jsonRpcError(res, 503, -32000, "Too many sessions")
    const params = (initialize.params ?? {}) as Record<string, unknown>
    const capabilities = params.capabilities
    const claims: SessionClaims = {
      v: typeof params.protocolVersion === "string" ? params.protocolVersion : "",
      c:
        typeof capabilities === "object" && capabilities !== null
          ? (capabilities as Record<string, unknown>)
          : {},
      i: compactClientInfo(params.clientInfo),
      ...(clientId !== undefined ? { u: clientId } : {}),
      n: sessionNonce(),
      t: Date.now(),
    }
    const id = signSessionId(this.#options.key, claims)
    this.#pending++
    let session: NodeSession
    try {
      session = await this.#open(id, clientId, claims)
    } finally {
      this.#pending--
    }
    session.receive(messages, batch, req, res, authInfo)
  }
}
