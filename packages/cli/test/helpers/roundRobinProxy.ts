/**
 * A plain round-robin reverse proxy (node:http, loopback, no sticky sessions) in front of replicas: each
 * request goes to the next replica; like common load balancers it tries the next one when a connection
 * is refused. Records which replica got each request.
 */
import { createServer, type IncomingMessage, request, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface ProxyHop {
  readonly replica: number
  /** The JSON-RPC method (with the tool's name for `tools/call`). */
  readonly jsonrpc: string
}

export const roundRobinProxy = async (targets: readonly URL[]) => {
  const hops: ProxyHop[] = []
  let next = 0
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      let jsonrpc = ""
      try {
        const m = JSON.parse(body.toString("utf8")) as { method?: string; params?: { name?: string } }
        jsonrpc = `${m.method ?? "?"}${m.method === "tools/call" ? ` ${m.params?.name ?? ""}` : ""}`
      } catch {}
      const attempt = (tries: number) => {
        const replica = next++ % targets.length
        const target = targets[replica]!
        hops.push({ replica, jsonrpc })
        const upstream = request(
          {
            host: target.hostname,
            port: target.port,
            path: req.url,
            method: req.method,
            headers: { ...req.headers, host: target.host },
            agent: false,
          },
          (up: IncomingMessage) => {
            res.writeHead(up.statusCode ?? 502, up.headers)
            up.pipe(res)
            up.on("error", () => res.destroy())
          },
        )
        upstream.on("error", (error: NodeJS.ErrnoException) => {
          if (error.code === "ECONNREFUSED" && tries < targets.length) {
            hops.pop()
            return attempt(tries + 1)
          }
          if (!res.headersSent) {
            res.writeHead(502, { "content-type": "application/json" })
            res.end(
              JSON.stringify({
                jsonrpc: "2.0",
                error: { code: -32000, message: `bad gateway: ${error.code}` },
                id: null,
              }),
            )
          } else res.destroy()
        })
        res.on("close", () => {
          if (!res.writableFinished) upstream.destroy()
        })
        upstream.end(body)
      }
      attempt(1)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    hops,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
