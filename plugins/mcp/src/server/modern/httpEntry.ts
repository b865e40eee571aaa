/**
 * The HTTP entry of stateless serving: a POST without `Mcp-Session-Id` is parsed once and classified;
 * a 2026-07-28 request is checked against its standard headers and served by {@link ModernServing}
 * (one JSON answer, or an SSE stream when the request sends progress or log messages first); anything
 * else goes on to the 2025 transport with its body already parsed.
 *
 * @internal
 */

import { sessionOwner } from "../callerIdentity.js"
import { type EdgeRequest, type EdgeResponse, type KnownHeaders, readBodyUpTo } from "../edgeExchange.js"
import { CallController } from "../serve.js"
import { errorMessage, ModernProtocolError } from "./errors.js"
import { checkStandardHeaders } from "./headers.js"
import { classifyPost, type ModernEnvelope, readEnvelope } from "./negotiation.js"
import { checkParamHeaders } from "./paramHeaderCheck.js"
import type { ModernCaller, ModernServing, ModernSink } from "./serving.js"

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)

const writeJson = (res: EdgeResponse, status: number, message: unknown) => {
  if (res.headersSent) return
  const body = JSON.stringify(message)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}

/** The answer of one request: plain JSON, or SSE once a notification comes first. */
class HttpSink implements ModernSink {
  #streaming = false
  #done = false
  constructor(readonly res: EdgeResponse) {}
  get done(): boolean {
    return this.#done
  }
  notify(message: Record<string, unknown>): void {
    if (this.#done) return
    if (!this.#streaming) {
      this.#streaming = true
      this.res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    }
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
  }
  answer(message: Record<string, unknown>, status: number): void {
    if (this.#done) return
    this.#done = true
    if (this.#streaming) this.res.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
    else writeJson(this.res, status, message)
  }
}

/** Reads a POST's body (the raw edge has it already); `undefined` after answering a refusal. */
const readBody = (
  req: EdgeRequest,
  res: EdgeResponse,
  maxBytes: number,
): Promise<Buffer | undefined> | Buffer => {
  if (req.rawBody !== undefined) return req.rawBody
  return readBodyUpTo(req, maxBytes).then((body) => {
    if (body === undefined)
      writeJson(
        res,
        413,
        errorMessage(null, -32000, `Payload Too Large: Request body must not exceed ${maxBytes} bytes`),
      )
    return body
  })
}

/** A request whose body was read here, for the 2025 transport (it reads `rawBody` instead of the stream). */
const withBody = (req: EdgeRequest, body: Buffer): EdgeRequest =>
  req.rawBody !== undefined
    ? req
    : new Proxy(req, { get: (target, key) => (key === "rawBody" ? body : Reflect.get(target, key, target)) })

/**
 * The key of a stateless request in its server's in-flight table (`ModernServing.inFlight`), so that a
 * client's `notifications/cancelled` (a POST of its own) reaches the call it names. A caller is the
 * token's owner (client, subject, scopes); unauthenticated callers (loopback) share one namespace, as
 * they share everything else.
 */
const inFlightKey = (caller: ModernCaller, id: string | number): string =>
  `${sessionOwner(caller.authInfo) ?? ""}\n${typeof id}:${id}`

/**
 * Serves a POST without a session: statelessly when it is a 2026-07-28 request, otherwise by `legacy`
 * (given the request with its body read, and the parsed body).
 */
export const serveSessionlessPost = async (
  serving: ModernServing,
  req: EdgeRequest,
  res: EdgeResponse,
  known: KnownHeaders,
  caller: ModernCaller,
  maxBytes: number,
  legacy: (req: EdgeRequest, body: unknown) => Promise<void> | undefined,
): Promise<void> => {
  if (Number(known.contentLength) > maxBytes) return legacy(req, undefined)
  const raw = await readBody(req, res, maxBytes)
  if (raw === undefined) return
  let body: unknown
  try {
    body = JSON.parse(raw.toString("utf8"))
  } catch {
    return legacy(withBody(req, raw), undefined)
  }
  // The standard headers from what the edge recognised (the raw edge builds the full record only on a
  // read of `req.headers`); an edge that did not read one leaves it to the record.
  const header = (name: string): string | undefined =>
    (name === "mcp-method"
      ? known.mcpMethod
      : name === "mcp-name"
        ? known.mcpName
        : name === "mcp-protocol-version"
          ? known.protocolVersion
          : undefined) ?? first(req.headers[name])
  const headers: { protocolVersion?: string; method?: string; name?: string } = {}
  if (known.protocolVersion !== undefined) headers.protocolVersion = known.protocolVersion
  const mcpMethod = header("mcp-method")
  if (mcpMethod !== undefined) headers.method = mcpMethod
  const mcpName = header("mcp-name")
  if (mcpName !== undefined) headers.name = mcpName
  const era = classifyPost(body, headers)
  if (era.kind === "legacy") return legacy(withBody(req, raw), body)
  if (era.kind === "reject") {
    const id = typeof era.id === "string" || typeof era.id === "number" ? era.id : null
    return writeJson(
      res,
      era.error.httpStatus,
      errorMessage(id, era.error.code, era.error.message, era.error.data),
    )
  }
  const message = era.message
  const method = message.method as string
  const id = message.id as string | number | undefined
  const params = (
    typeof message.params === "object" && message.params !== null ? message.params : undefined
  ) as Record<string, unknown> | undefined
  // The envelope first (a missing or unsupported version is its own error), then the headers against it.
  const envelope = readEnvelope(params)
  let refusal: ModernProtocolError | undefined =
    envelope instanceof ModernProtocolError ? envelope : undefined
  if (
    refusal === undefined &&
    id !== undefined &&
    !(method === "server/discover" && params?._meta === undefined)
  )
    refusal = checkStandardHeaders(
      header,
      method,
      params,
      (envelope as { protocolVersion: string }).protocolVersion,
    )
  if (refusal === undefined && method === "tools/call" && typeof params?.name === "string") {
    const found = serving.paramHeadersOf(params.name)
    const declarations = Array.isArray(found) ? found : await found
    if (declarations.length > 0) refusal = checkParamHeaders(header, declarations, params.arguments)
  }
  if (refusal !== undefined) {
    if (id === undefined) {
      res.writeHead(refusal.httpStatus, { "content-length": "0" })
      res.end()
      return
    }
    return writeJson(res, refusal.httpStatus, errorMessage(id, refusal.code, refusal.message, refusal.data))
  }
  const inFlight = serving.inFlight
  if (id === undefined) {
    const requestId = (params as { requestId?: unknown } | undefined)?.requestId
    if (
      method === "notifications/cancelled" &&
      (typeof requestId === "string" || typeof requestId === "number")
    )
      inFlight.get(inFlightKey(caller, requestId))?.cancel(new Error("the client cancelled the request"))
    res.writeHead(202, { "content-length": "0" })
    res.end()
    return
  }
  const sink = new HttpSink(res)
  const controller = new CallController()
  res.once("close", () => {
    if (!sink.done) controller.cancel(new Error("the client disconnected"))
  })
  const key = inFlightKey(caller, id)
  inFlight.set(key, controller)
  try {
    await serving.serve(message, caller, sink, controller, envelope as ModernEnvelope)
  } finally {
    if (inFlight.get(key) === controller) inFlight.delete(key)
  }
}
