/**
 * Serving the Prometheus exposition text: on a listener of its own (`[metrics] listen`) or on a path of
 * the gateway's HTTP server (`[metrics] path`, behind the gateway's bearer-token auth when configured).
 *
 * @since 0.1.0
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { HttpRoute, McpHttpAuth } from "@toolplane/plugin-mcp"
import type { Registry } from "prom-client"

const answer = async (registry: Registry, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD" }).end()
    return
  }
  try {
    const text = await registry.metrics()
    res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" })
    res.end(req.method === "HEAD" ? undefined : text)
  } catch (error) {
    res.writeHead(500, { "content-type": "text/plain" }).end(`metrics failed: ${(error as Error).message}\n`)
  }
}

/**
 * A metrics listener on `host:port` answering `GET /metrics` (and `GET /`).
 *
 * @since 0.1.0
 */
export const listenMetrics = async (
  registry: Registry,
  listen: string,
): Promise<{ readonly url: string; close(): Promise<void> }> => {
  const colon = listen.lastIndexOf(":")
  const host = listen.slice(0, colon).replace(/^\[|\]$/g, "")
  const port = Number(listen.slice(colon + 1))
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]
    if (path !== "/metrics" && path !== "/") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found; metrics are at /metrics\n")
      return
    }
    void answer(registry, req, res)
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve()
    })
  })
  const address = server.address()
  const bound = typeof address === "object" && address !== null ? address.port : port
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/**
 * The route of `GET <path>` on the gateway's own HTTP server (`serveHttp`'s `routes`, so behind its
 * `Host`/`Origin` checks on every transport). With `auth`, a valid bearer token is required (Prometheus
 * sends one with `authorization` in its scrape config).
 *
 * @since 0.2.0
 */
export const metricsRoute = (path: string, registry: Registry, auth: McpHttpAuth | undefined): HttpRoute => ({
  path,
  handle: (req, res) => {
    if ((req.url ?? "").split("?")[0] !== path) {
      res.writeHead(404, { "content-type": "text/plain" }).end(`not found; metrics are at ${path}\n`)
      return
    }
    if (auth === undefined) return answer(registry, req, res)
    const header = req.headers.authorization
    const token = header?.startsWith("Bearer ") ? header.slice(7) : undefined
    return auth.verify(token).then((result) => {
      if ("error" in result) res.writeHead(401, { "www-authenticate": "Bearer" }).end()
      else return answer(registry, req, res)
    })
  },
})
