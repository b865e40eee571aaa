/**
 * A plain round-robin reverse proxy (node:http, loopback, no sticky sessions) in front of replicas: each
 * request goes to the next replica; like common load balancers it tries the next one when a connection
 * is refused. Records which replica got each request.
 */
import { createServer, type IncomingMessage, request, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface ProxyHop {
  readonly replica: number
  /** The HTTP method. */
  readonly method: string
  /** The JSON-RPC method (with the tool's name for `tools/call`; `response` for a client's answer). */
  readonly jsonrpc: string
}

/** A round-robin reverse proxy over `targets`; records which replica got each request. */
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
        const m = JSON.parse(body.toString("utf8")) as { method?: string; id?: unknown; result?: unknown }
        jsonrpc = m.method ?? (m.result !== undefined ? "response" : "?")
        if (m.method === "tools/call")
          jsonrpc += ` ${(m as { params?: { name?: string } }).params?.name ?? ""}`
      } catch {}
      const attempt = (tries: number) => {
        const replica = next++ % targets.length
        const target = targets[replica]!
        hops.push({ replica, method: req.method ?? "", jsonrpc })
        const upstream = request(
          {
            host: target.hostname,
            port: target.port,
            path: req.url,
            method: req.method,
            headers: { ...req.headers, host: target.host },
            // A fresh connection per request: reusing a kept-alive socket races the replica's idle close
            // (ECONNRESET, a spurious 502), which no load balancer under test should add.
            agent: false,
          },
          (up: IncomingMessage) => {
            res.writeHead(up.statusCode ?? 502, up.headers)
            up.pipe(res)
            up.on("error", () => res.destroy())
            up.on("aborted", () => res.destroy())
          },
        )
        upstream.on("error", (error: NodeJS.ErrnoException) => {
          // Connection refused: nothing reached that replica, try the next one (what load balancers do).
          if (error.code === "ECONNREFUSED" && tries < targets.length) {
            hops.pop()
            return attempt(tries + 1)
          }
          if (!res.headersSent) {
            res.writeHead(502, { "content-type": "application/json" })
            res.end(
              JSON.stringify({
                jsonrpc: "2.0",
                error: {
                  code: -32000,
                  message: `bad gateway: ${error.code} (replica ${replica}, ${jsonrpc})`,
                },
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
