/**
 * The request and response `serveHttp`'s request handling and the lean session transport use: the
 * subset of `node:http`'s `IncomingMessage` and `ServerResponse` they touch, so the same code (DNS
 * rebinding, auth, path, sessions, answers) serves requests parsed by `node:http` and by the raw edge
 * (`rawEdge.ts`), whose requests arrive with their body already read.
 *
 * @internal
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http"

/**
 * The request headers the request handling reads on every request, as fixed fields (the first value of a
 * repeated header, as `headers` gives it): the raw edge recognises them while it checks the head, so the
 * full `headers` record is only built when something asks for it (an auth hook or a `context` option).
 */
export interface KnownHeaders {
  readonly host: string | undefined
  readonly origin: string | undefined
  readonly accept: string | undefined
  readonly contentType: string | undefined
  readonly contentLength: string | undefined
  readonly sessionId: string | undefined
  readonly protocolVersion: string | undefined
  readonly authorization: string | undefined
  /** `Mcp-Method` and `Mcp-Name` (2026-07-28 requests); absent when the edge did not read them. */
  readonly mcpMethod?: string | undefined
  readonly mcpName?: string | undefined
}

const first = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value

/** The known headers of a `node:http` request (read from its `headers`). */
export const knownHeaders = (headers: IncomingHttpHeaders): KnownHeaders => ({
  host: headers.host,
  origin: headers.origin,
  accept: first(headers.accept),
  contentType: first(headers["content-type"]),
  contentLength: first(headers["content-length"]),
  sessionId: first(headers["mcp-session-id"]),
  protocolVersion: first(headers["mcp-protocol-version"]),
  authorization: first(headers.authorization),
  mcpMethod: first(headers["mcp-method"]),
  mcpName: first(headers["mcp-name"]),
})

/** A request: `node:http`'s `IncomingMessage`, or a raw-edge request with its whole body in `rawBody`. */
export interface EdgeRequest {
  readonly method?: string | undefined
  readonly url?: string | undefined
  /** Every header (a raw-edge request builds this record on first read). */
  readonly headers: IncomingHttpHeaders
  /** The headers read on every request, when the edge recognised them already (raw edge). */
  readonly known?: KnownHeaders
  /** The whole body, when the edge has read it already (raw edge); then the stream methods are unused. */
  readonly rawBody?: Buffer
  resume(): unknown
  on(event: string, listener: (...args: never[]) => void): unknown
}

/** A response: `node:http`'s `ServerResponse`, or a raw-edge response writing to the socket itself. */
export interface EdgeResponse {
  readonly headersSent: boolean
  readonly writableFinished: boolean
  writeHead(status: number, headers?: OutgoingHttpHeaders): unknown
  write(chunk: string | Uint8Array): boolean
  end(chunk?: string | Uint8Array): unknown
  flushHeaders(): void
  once(event: "close" | "drain", listener: () => void): unknown
  destroy(error?: Error): unknown
}

/**
 * Reads a request's body from its Node stream, keeping at most `maxBytes`: the body, or `undefined` when
 * it was longer (the caller answers 413 in its protocol's shape).
 */
export const readBodyUpTo = (req: EdgeRequest, maxBytes: number): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) chunks.push(chunk)
    })
    req.on("error", reject)
    req.on("end", () => {
      if (size > maxBytes) return resolve(undefined)
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
    })
  })
