/**
 * `serveHttp`: a tool service as an MCP server over Streamable HTTP (MCP 2025-03-26 and later), on
 * `node:http`. Each client gets a session (`Mcp-Session-Id`) with its own SDK server; requests are
 * checked against DNS rebinding first; idle sessions are dropped.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import {
  createServer,
  type Server as HttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http"
import type { AddressInfo } from "node:net"
import { Readable } from "node:stream"
import { type Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server"
import { ConfigError, type ToolService } from "@toolplane/foundation"
import { authenticate, type McpCaller, type McpHttpAuth } from "./auth.js"
import { sessionOwner } from "./callerIdentity.js"
import { checkDnsRebinding, dnsRebindingPolicy, isLoopbackHost } from "./dnsRebinding.js"
import { type EdgeRequest, type EdgeResponse, type KnownHeaders, knownHeaders } from "./edgeExchange.js"
import { checkRoutes, type HttpRoute, routeFor, targetPath } from "./httpRoutes.js"

import type { HeldCallOptions } from "./modern/heldCalls.js"
import { serveSessionlessPost } from "./modern/httpEntry.js"
import type { McpPendingInputs } from "./modern/pendingInputs.js"
import { ModernServing } from "./modern/serving.js"
import { type AuthInfo, jsonRpcError, NodeSessions } from "./nodeSessions.js"
import { listenOn, RawEdge } from "./rawEdge.js"
import type { ReplicaBus } from "./replicaBus.js"
import { McpExposure, type McpServeOptions, type McpServerHandle } from "./serve.js"
import { sessionKey } from "./sessionToken.js"

/**
 * Options of {@link serveHttp}.
 *
 * @since 0.1.0
 */
export interface ServeHttpOptions extends McpServeOptions {
  /** Bind address. Default `"127.0.0.1"`. */
  readonly host?: string
  /** Port; `0` (default) picks a free one (see the handle's `url`). */
  readonly port?: number
  /** Endpoint path. Default `"/mcp"`. */
  readonly path?: string
  /**
   * Accepted `Host` hostnames. Bound to a loopback address, only `localhost`, `127.0.0.1` and `[::1]`
   * (plus these) are accepted: DNS-rebinding protection. Bound elsewhere, any host unless listed here.
   */
  readonly allowedHosts?: readonly string[]
  /** Accepted `Origin` values; by default origins whose hostname is an accepted host. */
  readonly allowedOrigins?: readonly string[]
  /**
   * Sessions without a request for this long are closed. Default 30 minutes. On the node and raw
   * transports without a `bus` the session is over (its id is refused from then on); with a bus only
   * this replica's state is dropped, as another replica may be serving the session.
   */
  readonly sessionIdleMs?: number
  /**
   * How long a session id is valid after it was issued (node and raw transports); past it the client
   * gets 404 and starts a new session. Default 24 hours.
   *
   * @since 0.1.0
   */
  readonly sessionMaxAgeMs?: number
  /** Most concurrent sessions; further `initialize` requests get HTTP 503. Default 10 000. */
  readonly maxSessions?: number
  /** Answer POSTs with plain JSON instead of an SSE stream (no progress or logs during calls). */
  readonly enableJsonResponse?: boolean
  /**
   * On `close()`, how long calls in progress may run before they are cancelled (they then answer with
   * a `Cancelled` error instead of leaving their clients waiting). Default 2000 ms.
   */
  readonly shutdownGraceMs?: number
  /**
   * Bearer-token authentication (`staticTokenAuth`, `jwtAuth`): every request must carry a valid token,
   * and the protected-resource metadata document is served. Required when `host` is not a loopback
   * address, unless `allowUnauthenticated`.
   *
   * @since 0.1.0
   */
  readonly auth?: McpHttpAuth
  /**
   * Serve a non-loopback address without `auth` (e.g. behind a proxy that authenticates). Default
   * `false`: such a server refuses to start.
   *
   * @since 0.1.0
   */
  readonly allowUnauthenticated?: boolean
  /**
   * The resource identifier announced in the protected-resource metadata (the audience tokens are
   * issued for). Default: the endpoint URL.
   *
   * @since 0.1.0
   */
  readonly resourceUrl?: string
  /**
   * The HTTP transport:
   *
   * - `"node"` (default since 0.3.0): the lean session transport with every request parsed and every
   *   answer written by `node:http` (one JSON write per answer, an SSE stream only when a call sends
   *   notifications or requests to the client; signed session ids, so replicas need no sticky sessions);
   * - `"raw"` (opt-in): the same behind a `node:net` edge that parses the hot path itself (a plain
   *   `POST` whose `content-length` body arrived whole) and hands every other request and connection
   *   (GET streams, DELETE, chunked or slow bodies, `Expect`, anything unusual or malformed) to the
   *   `node:http` server, which serves them exactly as `"node"` does;
   * - `"sdk"`: the MCP SDK's (v2) `WebStandardStreamableHTTPServerTransport` (one process only; kept for comparison).
   *
   * @since 0.1.0
   */
  readonly transport?: "raw" | "node" | "sdk"
  /**
   * The secret session ids are signed with (node transport). Replicas behind one load balancer share
   * it (and a {@link ReplicaBus}), so any replica accepts any session. Default: a random key per
   * process (sessions end with the process).
   *
   * @since 0.1.0
   */
  readonly sessionSecret?: string | Uint8Array
  /**
   * What replicas tell each other (node transport): a client's answer to an elicitation or sampling
   * request another replica sent, notifications for a GET stream held by another replica,
   * cancellations and ended sessions. Default: none (one process).
   *
   * @since 0.1.0
   */
  readonly bus?: ReplicaBus
  /**
   * Other handlers on this listener under path prefixes (a web console, metrics), served after the
   * `Host`/`Origin` checks and before MCP dispatch, on every transport; each does its own auth.
   *
   * @since 0.2.0
   */
  readonly routes?: readonly HttpRoute[]
  /**
   * Calls held open while a 2026-07-28 client answers the questions their running upstream asked: how
   * long one waits for its answers (then it is cancelled upstream), how many per caller and per replica,
   * and how long a replica forwarding a retry to the holding one waits for it. Defaults: 5 minutes, 16,
   * 1000, 3000 ms.
   *
   * @since 0.2.0
   */
  readonly heldCalls?: HeldCallOptions
}

/**
 * A running HTTP server.
 *
 * @since 0.1.0
 */
export interface McpHttpServerHandle extends McpServerHandle {
  /** The endpoint, e.g. `http://127.0.0.1:54321/mcp`. */
  readonly url: string
  readonly host: string
  readonly port: number
  /**
   * The underlying `node:http` server. With the raw transport it does not listen itself: it serves the
   * connections the raw edge hands over, and its `headersTimeout`, `requestTimeout` and
   * `keepAliveTimeout` apply to the raw edge's connections too.
   */
  readonly httpServer: HttpServer
  /**
   * The multi round-trip requests (2026-07-28) this server is waiting on a client's retry for, and a
   * way to refuse such a retry on every replica.
   *
   * @since 0.2.0
   */
  readonly pendingInputs: McpPendingInputs
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly server: Server
  lastSeen: number
  /** The authenticated client and scopes that opened it (`sessionOwner`); no other token can use it. */
  clientId?: string
}

/** The SDK transport's default body limit. */
const MAX_BODY_BYTES = 4 * 1024 * 1024

const isJsonBody = (req: EdgeRequest): boolean => {
  const type = req.headers["content-type"]
  return type !== undefined && /^application\/json\s*(;|$)/i.test(type)
}

/**
 * Reads and parses a JSON body straight from the Node stream, so the SDK transport gets `parsedBody`
 * instead of converting the request into a web stream and reading it back (a measurable share of a
 * gateway call, see packages/cli/bench). `undefined` when it is too large or not JSON; the response has
 * then been sent, with the SDK's own status codes and messages.
 */
const readJsonBody = (req: IncomingMessage, res: ServerResponse): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"])
    if (declared > MAX_BODY_BYTES) {
      jsonRpcError(
        res,
        413,
        -32000,
        `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`,
      )
      req.resume()
      return resolve(undefined)
    }
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) tooLarge = true
      else chunks.push(chunk)
    })
    req.on("error", reject)
    req.on("end", () => {
      if (tooLarge) {
        jsonRpcError(
          res,
          413,
          -32000,
          `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`,
        )
        return resolve(undefined)
      }
      try {
        const text =
          chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8")
        resolve(JSON.parse(text))
      } catch {
        jsonRpcError(res, 400, -32700, "Parse error: Invalid JSON")
        resolve(undefined)
      }
    })
  })

const authInfoOf = (caller: McpCaller): AuthInfo => ({
  token: caller.token,
  clientId: caller.clientId,
  scopes: [...caller.scopes],
  ...(caller.expiresAt !== undefined ? { expiresAt: caller.expiresAt } : {}),
  ...(caller.subject !== undefined ? { extra: { subject: caller.subject } } : {}),
})

const METADATA_PATH = "/.well-known/oauth-protected-resource"

/** The `Headers` methods the SDK's transport reads, over Node's header object (no copy). */
class NodeHeaders {
  readonly #raw: IncomingHttpHeaders
  constructor(raw: IncomingHttpHeaders) {
    this.#raw = raw
  }
  get(name: string): string | null {
    const value = this.#raw[name.toLowerCase()]
    return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value
  }
  has(name: string): boolean {
    return this.#raw[name.toLowerCase()] !== undefined
  }
  *entries(): IterableIterator<[string, string]> {
    for (const [key, value] of Object.entries(this.#raw))
      if (value !== undefined) yield [key, Array.isArray(value) ? value.join(", ") : value]
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries()
  }
}

/** A minimal web `Request` for a POST whose body was already parsed (it is never read). */
const webRequestOf = (req: IncomingMessage) => {
  let url = `http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`
  if (!URL.canParse(url)) url = `http://localhost${req.url ?? "/"}`
  return { method: req.method ?? "POST", url, headers: new NodeHeaders(req.headers), body: null }
}

/** A web `Request` for any request of the SDK transport: headers, and the body still to read from the stream. */
const fullWebRequestOf = (req: IncomingMessage): Request => {
  const { url } = webRequestOf(req)
  const headers = new Headers()
  for (const [key, value] of Object.entries(req.headers))
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value)
  const method = req.method ?? "GET"
  return method === "GET" || method === "HEAD" || method === "DELETE"
    ? new Request(url, { method, headers })
    : new Request(url, {
        method,
        headers,
        body: Readable.toWeb(req) as ReadableStream,
        duplex: "half",
      } as RequestInit)
}

/** Writes a web `Response` to a Node response as it comes: headers at once (a GET stream waits long). */
const pipeWebResponse = async (response: Response, res: ServerResponse): Promise<void> => {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, key) => {
    headers[key] = value
  })
  res.writeHead(response.status, headers)
  res.flushHeaders()
  if (!response.body) return void res.end()
  const reader = response.body.getReader()
  res.once("close", () => {
    reader.cancel().catch(() => {})
  })
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      if (!res.write(chunk.value)) await new Promise((resolve) => res.once("drain", resolve))
    res.end()
  } catch (error) {
    res.destroy(error as Error)
  }
}

const EVENT_PREFIX = Buffer.from("event: message\ndata: ")

/**
 * The data of a chunk that is exactly one SSE `message` event with one data line and no id (the
 * SDK's encoding of a JSON-RPC message), or `undefined`.
 */
const soleEventData = (chunk: Uint8Array): Uint8Array | undefined => {
  const n = chunk.byteLength
  if (n <= EVENT_PREFIX.length + 2 || chunk[n - 1] !== 10 || chunk[n - 2] !== 10) return undefined
  for (let i = 0; i < EVENT_PREFIX.length; i++) if (chunk[i] !== EVENT_PREFIX[i]) return undefined
  const data = chunk.subarray(EVENT_PREFIX.length, n - 2)
  return data.indexOf(10) < 0 && data[0] === 123 /* "{" */ ? data : undefined
}

const afterMicrotasks = () => new Promise<undefined>((resolve) => setImmediate(resolve, undefined))

/**
 * Writes a web `Response` to a Node response. An SSE stream's headers go out with its first event, and
 * a stream that ends right after its first chunk (a call answered with no notification before it) goes
 * out in one write, with a `content-length` — instead of headers, event and end of stream separately.
 */
const writeWebResponse = async (response: Response, res: ServerResponse): Promise<void> => {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, key) => {
    headers[key] = value
  })
  if (!response.body) {
    res.writeHead(response.status, headers)
    res.end()
    return
  }
  const reader = response.body.getReader()
  let finished = false
  res.once("close", () => {
    if (!finished) reader.cancel().catch(() => {})
  })
  try {
    const first = await reader.read()
    if (first.done) {
      res.writeHead(response.status, { ...headers, "content-length": "0" })
      res.end()
      return
    }
    const pending = reader.read()
    const next = await Promise.race([pending, afterMicrotasks()])
    if (next?.done) {
      // One SSE event that is the whole answer: send its JSON as a plain JSON response (one write, and
      // the client has no event stream to parse). Anything else stays as it is.
      const json = headers["content-type"] === "text/event-stream" ? soleEventData(first.value) : undefined
      const body = json ?? first.value
      res.writeHead(response.status, {
        ...headers,
        ...(json ? { "content-type": "application/json" } : {}),
        "content-length": String(body.byteLength),
      })
      res.end(body)
      return
    }
    res.writeHead(response.status, headers)
    res.write(first.value)
    let chunk = next ?? (await pending)
    while (!chunk.done) {
      if (!res.write(chunk.value)) await new Promise((resolve) => res.once("drain", resolve))
      chunk = await reader.read()
    }
    res.end()
  } catch (error) {
    if (!res.headersSent) throw error
    res.destroy(error as Error)
  } finally {
    finished = true
  }
}

/**
 * Serves `service` over Streamable HTTP.
 *
 * @example
 * ```ts
 * const handle = await serveHttp(service, { port: 3000 })
 * console.log(`MCP endpoint: ${handle.url}`) // http://127.0.0.1:3000/mcp
 * // ... later
 * handle.notifyToolsChanged()
 * await handle.close()
 * ```
 * @since 0.1.0
 */
export const serveHttp = async (
  service: ToolService,
  options: ServeHttpOptions = {},
): Promise<McpHttpServerHandle> => {
  const host = options.host ?? "127.0.0.1"
  const path = options.path ?? "/mcp"
  if (!path.startsWith("/"))
    throw new ConfigError({ path: "path", reason: `must start with "/", got ${JSON.stringify(path)}` })
  const routes = checkRoutes(options.routes ?? [], path, METADATA_PATH)
  const auth = options.auth
  if (!auth && !options.allowUnauthenticated && !isLoopbackHost(host))
    throw new ConfigError({
      path: "auth",
      reason: `refusing to serve ${host} (not a loopback address) without authentication: configure bearer tokens or JWT validation (auth: staticTokenAuth(...) / jwtAuth(...); in toolplane.toml [server.auth]), bind 127.0.0.1, or set allowUnauthenticated when a proxy in front authenticates`,
    })
  /** Set once listening. */
  let metadataUrl = ""
  let resourceUrl = options.resourceUrl ?? ""
  const policyOptions = {
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  }
  // Set once listening: a wildcard bind accepts its own names with the bound port.
  let policy = dnsRebindingPolicy(host, policyOptions, options.port || undefined)
  /** The last `Host` the policy accepted in a request without `Origin` (reset with the policy). */
  let acceptedHost: string | undefined
  const sessionIdleMs = options.sessionIdleMs ?? 30 * 60_000
  const maxSessions = options.maxSessions ?? 10_000
  const sessionMaxAgeMs = options.sessionMaxAgeMs ?? 24 * 60 * 60_000
  if (!(sessionMaxAgeMs > 0))
    throw new ConfigError({
      path: "sessionMaxAgeMs",
      reason: `must be a positive number of milliseconds, got ${JSON.stringify(options.sessionMaxAgeMs)}`,
    })
  const exposure = new McpExposure(service, options)
  // 2026-07-28 requests (no session) are served statelessly next to the 2025 sessions.
  const modern = new ModernServing(exposure, {
    ...(options.sessionSecret !== undefined ? { secret: options.sessionSecret } : {}),
    ...(options.cacheHints ? { cacheHints: options.cacheHints } : {}),
    ...(options.bus ? { bus: options.bus } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.heldCalls ? { heldCalls: options.heldCalls } : {}),
    ...(options.upstreamTasks ? { upstreamTasks: options.upstreamTasks } : {}),
    ...(options.taskSources ? { taskSources: options.taskSources } : {}),
  })
  const lean =
    options.transport === "sdk"
      ? undefined
      : new NodeSessions({
          exposure,
          key: sessionKey(options.sessionSecret),
          ...(options.bus ? { bus: options.bus } : {}),
          maxSessions,
          maxBodyBytes: MAX_BODY_BYTES,
          enableJsonResponse: options.enableJsonResponse ?? false,
          maxAgeMs: sessionMaxAgeMs,
          ...(options.onError ? { onError: options.onError } : {}),
        })
  if (
    options.transport !== undefined &&
    options.transport !== "raw" &&
    options.transport !== "node" &&
    options.transport !== "sdk"
  )
    throw new ConfigError({
      path: "transport",
      reason: `must be "raw", "node" or "sdk", got ${JSON.stringify(options.transport)}`,
    })
  const sessions = new Map<string, Session>()
  /** `initialize` requests being handled (their sessions are not in `sessions` yet). */
  let pendingSessions = 0
  let closing = false
  let inFlight = 0
  const drained: (() => void)[] = []
  const drain = (ms: number) =>
    inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms)
          drained.push(() => {
            clearTimeout(timer)
            resolve()
          })
        })

  const dropSession = (id: string) => {
    const session = sessions.get(id)
    if (!session) return
    sessions.delete(id)
    void session.server.close().catch(() => {})
  }

  const newSession = (): Session => {
    const server = exposure.createServer()
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, session)
      },
      onsessionclosed: (id) => {
        dropSession(id)
      },
      ...(options.enableJsonResponse ? { enableJsonResponse: true } : {}),
    })
    const session: Session = { transport, server, lastSeen: Date.now() }
    return session
  }

  /**
   * Handles a request: synchronously as far as it can (a raw-edge POST to a session known here is answered
   * or dispatched without a promise); a promise when something has to wait (auth, a body still to read,
   * a session to open or rebuild), for `serve` to catch.
   */
  const handle = (req: EdgeRequest, res: EdgeResponse): Promise<void> | undefined => {
    const known = req.known ?? knownHeaders(req.headers)
    // The verdict depends on the headers and the policy alone: a Host accepted without an Origin stays so.
    const host = known.host
    if (host === undefined || host !== acceptedHost || known.origin !== undefined) {
      const rejected = checkDnsRebinding(known, policy)
      if (rejected !== undefined) return jsonRpcError(res, 403, -32000, `Forbidden: ${rejected}`)
      if (known.origin === undefined) acceptedHost = host
    }
    const url = req.url ?? "/"
    const query = url.indexOf("?")
    const requestPath = query < 0 ? url : url.slice(0, query)
    const route = routes.length > 0 ? routeFor(routes, requestPath) : undefined
    // The raw edge hands routed requests to node:http (see `handOver`), so a route always gets its objects.
    if (route) return route.handle(req as IncomingMessage, res as ServerResponse) ?? undefined
    if (auth && (requestPath === METADATA_PATH || requestPath === `${METADATA_PATH}${path}`)) {
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" })
      res.end(
        JSON.stringify({
          resource: resourceUrl,
          ...(auth.authorizationServers ? { authorization_servers: auth.authorizationServers } : {}),
          ...(auth.scopesSupported ? { scopes_supported: auth.scopesSupported } : {}),
          bearer_methods_supported: ["header"],
        }),
      )
      return
    }
    if (requestPath !== path) return jsonRpcError(res, 404, -32000, "Not found")
    if (closing) return jsonRpcError(res, 503, -32000, "Server is shutting down")
    if (auth) return handleAuthenticated(auth, req, res, known)
    return handleEndpoint(req, res, known, undefined)
  }

  /** A request to the endpoint once its caller is known. */
  const handleEndpoint = (
    req: EdgeRequest,
    res: EdgeResponse,
    known: KnownHeaders,
    authInfo: AuthInfo | undefined,
  ): Promise<void> | undefined => {
    if (req.method === "POST") {
      inFlight++
      res.once("close", requestClosed)
      if (known.sessionId === undefined)
        return serveSessionlessPost(
          modern,
          req,
          res,
          known,
          {
            ...(authInfo ? { authInfo } : {}),
            get headers() {
              return req.headers
            },
          },
          MAX_BODY_BYTES,
          (legacyReq, body) =>
            lean
              ? lean.handle(legacyReq, res, known, authInfo)
              : handleSdk(legacyReq as IncomingMessage, res as ServerResponse, authInfo, body),
        )
    }
    if (lean) return lean.handle(req, res, known, authInfo)
    return handleSdk(req as IncomingMessage, res as ServerResponse, authInfo)
  }

  const requestClosed = () => {
    inFlight--
    if (inFlight === 0) for (const wake of drained.splice(0)) wake()
  }

  const handleAuthenticated = async (
    auth: McpHttpAuth,
    req: EdgeRequest,
    res: EdgeResponse,
    known: KnownHeaders,
  ): Promise<void> => {
    const verdict = await authenticate(auth, known.authorization, metadataUrl)
    if (!verdict.ok) {
      req.resume()
      if (res.headersSent) return
      res.writeHead(verdict.status, {
        "content-type": "application/json",
        "www-authenticate": verdict.challenge,
      })
      res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: verdict.message }, id: null }))
      return
    }
    const authInfo = authInfoOf(verdict.caller)
    ;(req as EdgeRequest & { auth?: AuthInfo }).auth = authInfo
    return handleEndpoint(req, res, known, authInfo)
  }

  /** The SDK transport (only ever with `node:http`'s own request and response). */
  const handleSdk = async (
    req: IncomingMessage,
    res: ServerResponse,
    authInfo: AuthInfo | undefined,
    /** The body of a POST without a session, parsed already (the stream has been read). */
    parsedBody?: unknown,
  ): Promise<void> => {
    const header = req.headers["mcp-session-id"]
    const sessionId = Array.isArray(header) ? header[0] : header
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId)
      if (!session || session.clientId !== sessionOwner(authInfo))
        return jsonRpcError(res, 404, -32001, "Session not found")
      session.lastSeen = Date.now()
      if (req.method === "POST" && isJsonBody(req)) {
        const body = await readJsonBody(req, res)
        if (body === undefined) return
        if (Array.isArray(body) && body.length === 0)
          return jsonRpcError(res, 400, -32600, "Invalid Request: the body is an empty JSON array")
        // A client that goes away before its answer cancels its calls (and their upstream calls).
        const calls = (Array.isArray(body) ? body : [body]).filter(
          (m): m is { id: string | number } =>
            typeof m === "object" &&
            m !== null &&
            (m as { method?: unknown }).method === "tools/call" &&
            "id" in m,
        )
        if (calls.length > 0)
          res.once("close", () => {
            if (res.writableFinished) return
            for (const call of calls) exposure.abortRequest(sessionId, call.id, "the client disconnected")
          })
        // The body parsed here: the transport gets a minimal request, not a converted Node stream.
        await writeWebResponse(
          await session.transport.handleRequest(webRequestOf(req) as unknown as Request, {
            parsedBody: body,
            ...(authInfo ? { authInfo } : {}),
          }),
          res,
        )
      } else
        await pipeWebResponse(
          await session.transport.handleRequest(fullWebRequestOf(req), authInfo ? { authInfo } : undefined),
          res,
        )
      return
    }
    if (req.method !== "POST")
      return jsonRpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required")
    if (parsedBody === undefined) return jsonRpcError(res, 400, -32700, "Parse error: Invalid JSON")
    if (sessions.size + pendingSessions >= maxSessions)
      return jsonRpcError(res, 503, -32000, "Too many sessions")
    // A POST without a session must be `initialize`; the transport rejects anything else.
    pendingSessions++
    let session: Session | undefined
    try {
      session = newSession()
      if (authInfo) session.clientId = sessionOwner(authInfo)
      await session.server.connect(session.transport)
      await writeWebResponse(
        await session.transport.handleRequest(webRequestOf(req) as unknown as Request, {
          parsedBody,
          ...(authInfo ? { authInfo } : {}),
        }),
        res,
      )
    } finally {
      pendingSessions--
      const id = session?.transport.sessionId
      if (session && (id === undefined || sessions.get(id) !== session || closing)) {
        if (id !== undefined && sessions.get(id) === session) sessions.delete(id)
        await session.server.close().catch(() => {})
      }
    }
  }

  const failed = (res: EdgeResponse, error: unknown) => {
    options.onError?.(error)
    jsonRpcError(res, 500, -32603, "Internal error")
  }
  const serve = (req: EdgeRequest, res: EdgeResponse) => {
    let pending: Promise<void> | undefined
    try {
      pending = handle(req, res)
    } catch (error) {
      failed(res, error)
      return
    }
    pending?.catch((error) => failed(res, error))
  }
  // Header and request timeouts are checked every second (node:http's default is every 30 s, so a
  // slow head could hold a connection that much past `headersTimeout`). The keep-alive buffer is
  // node:http's default, given so the raw edge can read it (Node versions without the option ignore it).
  const httpServer = createServer(
    { connectionsCheckingInterval: 1000, keepAliveTimeoutBuffer: 1000 } as Parameters<typeof createServer>[0],
    serve,
  )
  httpServer.keepAliveTimeout = 65_000
  const raw =
    lean && options.transport === "raw"
      ? new RawEdge({
          handle: serve,
          httpServer,
          maxBodyBytes: MAX_BODY_BYTES,
          ...(routes.length > 0
            ? { handOver: (url) => routeFor(routes, targetPath(url)) !== undefined }
            : {}),
        })
      : undefined

  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - sessionIdleMs
      for (const [id, session] of sessions) if (session.lastSeen < cutoff) dropSession(id)
      lean?.sweep(cutoff)
    },
    Math.min(sessionIdleMs, 60_000),
  )
  sweep.unref()

  await lean?.start()
  await modern.start()
  if (raw) await raw.listen(options.port ?? 0, host)
  else await listenOn(httpServer, options.port ?? 0, host)
  const address = (raw ? raw.server : httpServer).address() as AddressInfo
  policy = dnsRebindingPolicy(host, policyOptions, address.port)
  acceptedHost = undefined
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address
  const origin = `http://${isLoopbackHost(host) || /^(0\.0\.0\.0|::)$/.test(address.address) ? (address.family === "IPv6" ? "[::1]" : "127.0.0.1") : urlHost}:${address.port}`
  metadataUrl = `${origin}${METADATA_PATH}${path}`
  resourceUrl ||= `${origin}${path}`
  let closed: Promise<void> | undefined
  return {
    url: `http://${urlHost}:${address.port}${path}`,
    host: address.address,
    port: address.port,
    httpServer,
    pendingInputs: modern.pendingInputs,
    notifyToolsChanged: () => exposure.notifyToolsChanged(),
    connections: () => sessions.size + (lean?.size ?? 0),
    close: () => {
      closed ??= (async () => {
        closing = true
        clearInterval(sweep)
        modern.endListeners()
        // Let calls in progress finish; past the grace period cancel them so each client gets an answer.
        await drain(options.shutdownGraceMs ?? 2000)
        if (inFlight > 0) {
          exposure.abortCalls("the server is shutting down")
          await drain(1000)
        }
        modern.close()
        exposure.dispose()
        await Promise.all([...sessions.values()].map((s) => s.server.close().catch(() => {})))
        sessions.clear()
        await lean?.close()
        await Promise.all([
          raw?.close(),
          new Promise<void>((resolve) => {
            // Not listening with the raw edge (close then reports it, harmlessly); its connections are closed all the same.
            httpServer.close(() => resolve())
            httpServer.closeAllConnections()
          }),
        ])
      })()
      return closed
    },
  }
}
