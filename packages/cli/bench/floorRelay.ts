/**
 * The two floors of the gateway-versus-peers benchmark (`peers.bench.ts`): the cheapest relays that still
 * carry the SDK client's Streamable HTTP calls to the benchmark's upstream, so the CPU a gateway spends per
 * call can be read against what a bare relay costs on the same machine in the same rounds. They are floors,
 * not products, and minimal on purpose: no sessions, no validation, no error handling beyond what the
 * benchmark's client needs, nothing a real gateway could ship.
 *
 * - `--http <upstream url>` (the layer-4 floor): each client connection gets its own connection to the
 *   upstream server and bytes are piped both ways; nothing is parsed. The upstream sees the client's HTTP
 *   unchanged (its sessions, its SSE GET stream).
 * - `--stdio <command> [args...]` (the minimal stdio floor): spawns that stdio MCP server once; on
 *   `node:net`, finds each HTTP/1.1 request head by CRLFCRLF and its body by the `content-length` header,
 *   writes a POST body as one line to the server's stdin and writes the line that answers it back as one
 *   `HTTP/1.1 200` `application/json` response with a `content-length`. Answers are matched by the JSON-RPC
 *   id, read as the text after the last `"id":` (the SDK writes `id` last in requests and responses); a
 *   POST without an id (a notification) gets `202`, anything else (the client's SSE GET, a DELETE) `405`.
 *   Assumes what the benchmark's one SDK client sends: no chunked bodies, no batches, no pipelining, ids
 *   unique across its connections; lines the server starts itself (`{"method"…`) are dropped.
 *
 * Both listen on 127.0.0.1 on an ephemeral port, print `floor relay (<kind>) listening at <url>` on
 * stderr, and exit on SIGTERM/SIGINT or when stdin closes (the benchmark went away), killing the stdio
 * server they spawned. Uses only erasable TypeScript, so it runs under plain `node` (type stripping), no
 * loader in the measured process.
 */
import { spawn } from "node:child_process"
import { connect, createServer, type Server, type Socket } from "node:net"

const [mode, ...rest] = process.argv.slice(2)

/** The layer-4 floor: one upstream connection per client connection, bytes piped both ways. */
const layer4 = (upstreamUrl: string): Server => {
  const target = new URL(upstreamUrl)
  return createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname)
    client.on("data", (chunk) => upstream.write(chunk))
    upstream.on("data", (chunk) => client.write(chunk))
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => client.destroy())
    client.on("error", () => {})
    upstream.on("error", () => {})
  })
}

const EMPTY: Buffer = Buffer.alloc(0)
const NOT_ALLOWED = "HTTP/1.1 405 Method Not Allowed\r\nallow: POST\r\ncontent-length: 0\r\n\r\n"
const ACCEPTED = "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n"

/** The JSON-RPC id of a message the SDK wrote (`id` last), as its JSON text; undefined without one. */
const idOf = (json: string): string | undefined => {
  const at = json.lastIndexOf('"id":')
  if (at < 0) return undefined
  return json.slice(at + 5, json.lastIndexOf("}")).trim()
}

let stopUpstream = () => {}

/** The minimal stdio floor: HTTP/1.1 POST bodies as lines to one spawned stdio server, answers by id. */
const stdioRelay = (command: string, args: readonly string[]): Server => {
  const upstream = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] })
  stopUpstream = () => upstream.kill()
  upstream.on("exit", (code) => {
    process.stderr.write(`floor relay: the stdio server exited (${code})\n`)
    process.exit(1)
  })
  const waiting = new Map<string, Socket>()
  let lines = ""
  upstream.stdout.setEncoding("utf8")
  upstream.stdout.on("data", (chunk: string) => {
    lines += chunk
    let nl = lines.indexOf("\n")
    while (nl >= 0) {
      const line = lines.slice(0, nl)
      lines = lines.slice(nl + 1)
      nl = lines.indexOf("\n")
      if (line.startsWith('{"method"')) continue
      const id = idOf(line)
      const client = id === undefined ? undefined : waiting.get(id)
      if (!client) continue
      waiting.delete(id!)
      client.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(line)}\r\n\r\n${line}`,
      )
    }
  })
  return createServer((client) => {
    let pending = EMPTY
    client.on("error", () => {})
    client.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      for (;;) {
        const headEnd = pending.indexOf("\r\n\r\n")
        if (headEnd < 0) return
        const head = pending.toString("latin1", 0, headEnd)
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0)
        const end = headEnd + 4 + length
        if (pending.length < end) return
        const body = pending.toString("utf8", headEnd + 4, end)
        pending = pending.length === end ? EMPTY : pending.subarray(end)
        if (!head.startsWith("POST ")) {
          client.write(NOT_ALLOWED)
          continue
        }
        const id = idOf(body)
        if (id === undefined) client.write(ACCEPTED)
        else waiting.set(id, client)
        upstream.stdin.write(`${body}\n`)
      }
    })
  })
}

const server =
  mode === "--http" && rest[0]
    ? layer4(rest[0])
    : mode === "--stdio" && rest[0]
      ? stdioRelay(rest[0], rest.slice(1))
      : undefined
if (!server) {
  process.stderr.write("usage: floorRelay.ts --http <upstream url> | --stdio <command> [args...]\n")
  process.exit(2)
}
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number }
  process.stderr.write(`floor relay (${mode!.slice(2)}) listening at http://127.0.0.1:${port}/mcp\n`)
})

const stop = () => {
  stopUpstream()
  process.exit(0)
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
process.stdin.on("end", stop)
process.stdin.on("close", stop)
process.stdin.resume()
