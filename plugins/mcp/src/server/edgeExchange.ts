/**
 * The request and response `serveHttp`'s request handling and the lean session transport use: the
 * subset of `node:http`'s `IncomingMessage` and `ServerResponse` they touch, so the same code (DNS
 * rebinding, auth, path, sessions, answers) serves requests parsed by `node:http` and by the raw edge
 * (`rawEdge.ts`), whose requests arrive with their body already read.
 *
 * @internal
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http"

/** A request: `node:http`'s `IncomingMessage`, or a raw-edge request with its whole body in `rawBody`. */
export interface EdgeRequest {
  readonly method?: string | undefined
  readonly url?: string | undefined
  readonly headers: IncomingHttpHeaders
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
