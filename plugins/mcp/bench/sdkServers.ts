/**
 * A child process for `sdkServers.bench.ts`: a bare MCP SDK server on the 2025 protocol (sessions over
 * Streamable HTTP, one echo tool `demo.echo`), on SDK v1 (`McpServer` + `StreamableHTTPServerTransport`)
 * or SDK v2 (`McpServer` + `WebStandardStreamableHTTPServerTransport` behind a `node:http` ↔ fetch bridge,
 * what a Node server without `@modelcontextprotocol/node` does), as argv[2] says ("v1" or "v2"); prints its
 * URL on stdout.
 */
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server"
import { z } from "zod"

const era = process.argv[2] === "v2" ? "v2" : "v1"
const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })
const echo = async ({ text }: { text: string }) => ({ content: [{ type: "text" as const, text }] })

const v1 = () => {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  return async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === "POST" ? JSON.parse((await readBody(req)).toString("utf8")) : undefined
    const id = req.headers["mcp-session-id"]
    let transport = typeof id === "string" ? sessions.get(id) : undefined
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => void sessions.set(sid, transport!),
      })
      const server = new V1McpServer({ name: "bench-v1", version: "0" })
      server.registerTool("demo.echo", { inputSchema: { text: z.string() } }, echo)
      await server.connect(transport)
    }
    await transport.handleRequest(req, res, body)
  }
}

const v2 = () => {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()
  return async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === "POST" ? await readBody(req) : undefined
    const id = req.headers["mcp-session-id"]
    let transport = typeof id === "string" ? sessions.get(id) : undefined
    if (transport === undefined) {
      transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => void sessions.set(sid, transport!),
      })
      const server = new McpServer({ name: "bench-v2", version: "0" })
      server.registerTool("demo.echo", { inputSchema: z.object({ text: z.string() }) }, echo)
      await server.connect(transport)
    }
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string") headers.set(name, value)
      else if (Array.isArray(value)) headers.set(name, value.join(", "))
    const response = await transport.handleRequest(
      new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, {
        method: req.method ?? "GET",
        headers,
        ...(body !== undefined ? { body } : {}),
      }),
    )
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()))
    if (response.body === null) return void res.end()
    for await (const chunk of response.body) res.write(chunk)
    res.end()
  }
}

const handle = era === "v2" ? v2() : v1()
const server = createServer((req, res) => {
  handle(req, res).catch((error) => {
    if (!res.headersSent) res.writeHead(500)
    res.end(String(error))
  })
})
server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("no port")
  process.stdout.write(`http://127.0.0.1:${address.port}/mcp\n`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
