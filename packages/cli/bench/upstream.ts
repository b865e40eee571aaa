/**
 * The upstream MCP server of the gateway benchmark, run as its own process: an SDK `McpServer` with one
 * trivial `echo` tool, a session (server + StreamableHTTPServerTransport) per client on `node:http`,
 * bound to 127.0.0.1 on an ephemeral port — the shape of the SDK's own examples. Prints its URL as the
 * first line of stdout; exits when stdin closes (its parent went away) or on SIGTERM.
 *
 * Flags: `--json` answers each request with one `application/json` body (the SDK's `enableJsonResponse`)
 * instead of an SSE stream; `--stdio` serves the same tool over stdio instead (the upstream a gateway
 * spawns; used by `peers.bench.ts`).
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { z } from "zod"

const makeServer = (): McpServer => {
  const server = new McpServer({ name: "bench-upstream", version: "1.0.0" })
  server.registerTool(
    "echo",
    {
      description: "Echoes the text",
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  )
  return server
}

const json = process.argv.includes("--json")

if (process.argv.includes("--stdio")) {
  await makeServer().connect(new StdioServerTransport())
} else {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const http = createServer(async (req, res) => {
    try {
      const id = req.headers["mcp-session-id"] as string | undefined
      const existing = id ? sessions.get(id) : undefined
      if (existing) return await existing.handleRequest(req, res)
      if (id) {
        res.writeHead(404).end()
        return
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (sid) => {
          sessions.set(sid, transport)
        },
        onsessionclosed: (sid) => {
          sessions.delete(sid)
        },
      })
      await makeServer().connect(transport)
      await transport.handleRequest(req, res)
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error))
    }
  })
  http.keepAliveTimeout = 65_000
  http.listen(0, "127.0.0.1", () => {
    const { port } = http.address() as AddressInfo
    process.stdout.write(`http://127.0.0.1:${port}/mcp\n`)
  })

  const stop = () => {
    http.closeAllConnections()
    http.close()
    process.exit(0)
  }
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
  process.stdin.on("end", stop)
  process.stdin.on("close", stop)
  process.stdin.resume()
}
