/**
 * A child process for `edgeFloor.bench.ts`: answers the same small JSON POST (an MCP `tools/call` of an
 * echo tool) by the server named in argv[2] and prints its URL on stdout:
 *
 * - `"http"`: a bare `node:http` server (read the body, answer a fixed JSON result): the floor of any
 *   server on node:http;
 * - `"net"`: a bare `node:net` server with a minimal HTTP/1.1 parser (headers to CRLFCRLF, `content-length`
 *   body, keep-alive): the floor of a server that parses HTTP itself;
 * - `"node"`, `"raw"`, `"sdk"`: `serveHttp` with that transport, serving one echo tool.
 */
import { createServer } from "node:http"
import { createServer as createNetServer } from "node:net"
import { PerformanceObserver } from "node:perf_hooks"
import { getHeapStatistics } from "node:v8"
import { defineTool, type ToolService, toolOf } from "@toolplane/foundation"
import { z } from "zod"
import { serveHttp } from "../src/index.js"

const kind = process.argv[2] ?? "node"

// The heap probe of `edgeFloor.bench.ts` (BENCH_EDGE_HEAP): SIGHUP collects twice then prints the V8 heap's
// used bytes and the count of collections seen; SIGUSR2 prints them without collecting.
let collections = 0
new PerformanceObserver((list) => {
  collections += list.getEntries().length
}).observe({ entryTypes: ["gc"] })
const printHeap = () => process.stdout.write(`heap ${getHeapStatistics().used_heap_size} ${collections}\n`)
process.on("SIGHUP", () => {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  // The forced collections are reported asynchronously: count them before the window starts.
  setTimeout(() => {
    printHeap()
  }, 50)
})
process.on("SIGUSR2", printHeap)
const answer = (id: string) =>
  `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"hello"}]}}`
/** The request id of a JSON-RPC body, as its JSON text (the bare servers do not parse the rest). */
const idOf = (body: string) => /"id":\s*("[^"]*"|\d+)/.exec(body)?.[1] ?? "null"

if (kind === "http") {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = answer(idOf(Buffer.concat(chunks).toString("utf8")))
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      res.end(body)
    })
  })
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as { port: number }
    process.stdout.write(`http://127.0.0.1:${port}/mcp\n`)
  })
} else if (kind === "net") {
  const server = createNetServer((socket) => {
    let buffer: Buffer = Buffer.alloc(0)
    socket.on("data", (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n")
        if (end < 0) return
        const head = buffer.toString("latin1", 0, end)
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0)
        if (buffer.length < end + 4 + length) return
        const body = answer(idOf(buffer.toString("utf8", end + 4, end + 4 + length)))
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        )
        buffer = buffer.subarray(end + 4 + length)
      }
    })
    socket.on("error", () => {})
  })
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as { port: number }
    process.stdout.write(`http://127.0.0.1:${port}/mcp\n`)
  })
} else {
  const echo = defineTool({
    id: "demo/echo",
    description: "Echoes the text",
    input: z.object({ text: z.string() }),
    handler: ({ text }) => text,
  })
  const tool = toolOf(echo)
  const service: ToolService = {
    listTools: async () => ({ tools: [tool] }),
    callTool: async (request) => echo.invoke(request.arguments ?? {}, request.context),
  }
  const handle = await serveHttp(service, { transport: kind as "node" })
  process.stdout.write(`${handle.url}\n`)
  process.on("SIGTERM", () => {
    handle.close().then(() => process.exit(0))
  })
}
