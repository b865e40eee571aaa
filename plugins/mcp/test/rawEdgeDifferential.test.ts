/**
 * The raw edge against `node:http` on hostile input, side by side on loopback: both serve one handler
 * with the same timeouts, and a client sends each the same bytes. Header values with CR, LF, NUL or DEL
 * are refused (500, nothing injected), a head with thousands of lines is read as node:http reads it, a
 * drip-fed head or body and a silent connection time out as node:http's do, an idle connection is closed
 * when node:http closes it, and a client that pipelines requests without reading its answers makes the
 * raw edge stop running them as node:http stops.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { connect, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { EdgeRequest, EdgeResponse } from "../src/server/edgeExchange.js"
import { RawEdge } from "../src/server/rawEdge.js"

const HEADERS_TIMEOUT = 400
const REQUEST_TIMEOUT = 800
const KEEP_ALIVE = 300
/** node:http checks header and request timeouts this often (set low so the test is fast). */
const CHECK_INTERVAL = 100

interface Side {
  readonly name: string
  readonly port: number
  /** The node:http server whose settings apply (the raw edge's hands-off server). */
  readonly httpServer: Server
  /** Requests that reached the handler. */
  runs: number
  close(): Promise<void>
}

/**
 * The handler both sides run: answers `x-value` (percent-decoded) as the `x-echo` header, the number of
 * headers and the body's length; 500 when the header cannot be written. `/big` answers 256 KiB.
 */
const handlerFor = (side: { runs: number }) => (req: EdgeRequest, res: EdgeResponse) => {
  side.runs++
  const answer = (bodyLength: number) => {
    const big = req.url === "/big"
    const text = big
      ? "x".repeat(256 * 1024)
      : `${Object.keys(req.headers).length} headers, ${bodyLength} bytes`
    const value = req.headers["x-value"]
    try {
      res.writeHead(200, {
        "content-type": "text/plain",
        ...(typeof value === "string" ? { "x-echo": decodeURIComponent(value) } : {}),
      })
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" })
      res.end((error as { code?: string }).code ?? "error")
      return
    }
    res.end(text)
  }
  if (req.rawBody !== undefined) return answer(req.rawBody.length)
  let length = 0
  const node = req as unknown as IncomingMessage
  node.on("data", (chunk: Buffer) => {
    length += chunk.length
  })
  node.on("end", () => answer(length))
}

const configured = (server: Server): Server => {
  server.headersTimeout = HEADERS_TIMEOUT
  server.requestTimeout = REQUEST_TIMEOUT
  server.keepAliveTimeout = KEEP_ALIVE
  return server
}

const httpServerOf = (handle: (req: EdgeRequest, res: EdgeResponse) => void) =>
  configured(
    createServer(
      { connectionsCheckingInterval: CHECK_INTERVAL, keepAliveTimeoutBuffer: 1000 } as Parameters<
        typeof createServer
      >[0],
      handle as unknown as (req: IncomingMessage, res: ServerResponse) => void,
    ),
  )

const nodeSide = async (): Promise<Side> => {
  const side = { name: "node:http", port: 0, runs: 0, close: async () => {} } as Side & { port: number }
  const server = httpServerOf(handlerFor(side))
  ;(side as { httpServer: Server }).httpServer = server
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  side.port = (server.address() as { port: number }).port
  side.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  return side
}

const rawSide = async (): Promise<Side> => {
  const side = { name: "raw edge", port: 0, runs: 0, close: async () => {} } as Side & { port: number }
  const handle = handlerFor(side)
  const httpServer = httpServerOf(handle)
  ;(side as { httpServer: Server }).httpServer = httpServer
  const edge = new RawEdge({ handle, httpServer, maxBodyBytes: 4 * 1024 * 1024 })
  await edge.listen(0, "127.0.0.1")
  side.port = (edge.server.address() as { port: number }).port
  side.close = async () => {
    httpServer.closeAllConnections()
    await edge.close()
  }
  return side
}

interface Outcome {
  /** Status lines, header names in order, `x-echo` and `set-cookie` values and bodies, as written. */
  readonly wire: string
  readonly closed: boolean
  /** Milliseconds from the first byte sent until the server closed the connection. */
  readonly closedAfterMs: number | undefined
}

/** What a server answers when `chunks` are written `gapMs` apart; waits `waitMs` after the last one. */
const exchange = async (
  port: number,
  chunks: readonly string[],
  options: { readonly gapMs?: number; readonly waitMs?: number } = {},
): Promise<Outcome> => {
  const socket: Socket = connect(port, "127.0.0.1")
  socket.setNoDelay(true)
  let wire = ""
  let closedAt: number | undefined
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()))
  const started = Date.now()
  socket.on("data", (chunk: Buffer) => {
    wire += chunk.toString("latin1")
  })
  socket.on("error", () => {})
  const closed = new Promise<void>((resolve) =>
    socket.on("close", () => {
      closedAt ??= Date.now()
      resolve()
    }),
  )
  for (const chunk of chunks) {
    if (closedAt !== undefined) break
    socket.write(chunk)
    if (options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs))
  }
  await Promise.race([closed, new Promise((r) => setTimeout(r, options.waitMs ?? 300))])
  socket.destroy()
  return {
    wire: normalise(wire),
    closed: closedAt !== undefined,
    closedAfterMs: closedAt === undefined ? undefined : closedAt - started,
  }
}

/**
 * The wire without what legitimately differs: dates, header case, keep-alive and framing headers (a body
 * is compared decoded, whether it came with a `content-length` or chunked), and the reason phrase
 * (node:http keeps the one of a `writeHead` that threw).
 */
const normalise = (wire: string): string => {
  const out: string[] = []
  let at = 0
  while (at < wire.length) {
    const end = wire.indexOf("\r\n\r\n", at)
    if (end < 0) break
    const lines = wire.slice(at, end).split("\r\n")
    const headers = new Map<string, string>()
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":")
      headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim())
    }
    out.push(lines[0]!.replace(/^(HTTP\/1\.1 \d{3}) .*$/, "$1"))
    for (const [name, value] of headers)
      if (!/^(date|connection|keep-alive|content-length|transfer-encoding)$/.test(name))
        out.push(`${name}: ${value}`)
    at = end + 4
    let body = ""
    if (headers.get("transfer-encoding") === "chunked") {
      for (;;) {
        const lineEnd = wire.indexOf("\r\n", at)
        if (lineEnd < 0) break
        const size = Number.parseInt(wire.slice(at, lineEnd), 16)
        body += wire.slice(lineEnd + 2, lineEnd + 2 + size)
        at = lineEnd + 2 + size + 2
        if (size === 0 || Number.isNaN(size)) break
      }
    } else {
      const length = Number(headers.get("content-length") ?? 0)
      body = wire.slice(at, at + length)
      at += length
    }
    out.push(`body: ${body}`)
  }
  if (at < wire.length) out.push(`rest: ${wire.slice(at)}`)
  return out.join("\n")
}

const post = (port: number, extra: string, body = "{}", path = "/") =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

describe("the raw edge and node:http on hostile input", () => {
  let node: Side
  let raw: Side
  beforeAll(async () => {
    ;[node, raw] = await Promise.all([nodeSide(), rawSide()])
  })
  afterAll(async () => {
    await Promise.all([node.close(), raw.close()])
  })

  const both = async (run: (side: Side) => Promise<Outcome>) => {
    const [a, b] = await Promise.all([run(node), run(raw)])
    return { node: a, raw: b }
  }

  it.each([
    ["CR LF and a second response", "a%0D%0ASet-Cookie%3A%20pwned%3D1%0D%0A%0D%0AHTTP%2F1.1%20200%20OK"],
    ["a bare LF", "a%0Aset-cookie%3A%20x%3D1"],
    ["a bare CR", "a%0Db"],
    ["NUL", "a%00b"],
    ["DEL", "a%7Fb"],
    ["a visible value (written)", "plain%20value%09tab"],
  ])("writes a header value with %s as node:http does", async (_what, value) => {
    const got = await both((side) => exchange(side.port, [post(side.port, `x-value: ${value}\r\n`)]))
    expect(got.raw.wire).toEqual(got.node.wire)
    expect(got.raw.wire).not.toMatch(/set-cookie/i)
    expect(got.raw.wire.match(/HTTP\/1\.1 \d+/g)).toHaveLength(1)
  })

  it.each([99, 101, 1_001, 2_100])("reads a head with %i header lines as node:http does", async (lines) => {
    // The line past node:http's count limit would be read by an edge without one.
    const filler = Array.from({ length: lines - 3 }, (_, i) => `x-${i}: 1\r\n`).join("")
    const got = await both((side) =>
      exchange(side.port, [post(side.port, `${filler}x-value: late\r\n`)], { waitMs: 500 }),
    )
    expect(got.raw.wire).toEqual(got.node.wire)
    expect(got.raw.wire).toMatch(/^HTTP\/1\.1 (200|431)/)
  })

  it("times out a drip-fed head as node:http does", async () => {
    const request = post(0, "x-value: slow\r\nx-pad: abcdefghijklmnopqrstuvwxyz\r\n")
    const got = await both((side) =>
      exchange(side.port, [...request.slice(0, 60)], { gapMs: 25, waitMs: 3000 }),
    )
    expect(got.raw.wire).toEqual(got.node.wire)
    expect(got.raw.wire).toMatch(/^HTTP\/1\.1 408/)
    expect(got.raw.closed && got.node.closed).toBe(true)
    // Within node:http's own check interval of each other (and of headersTimeout).
    expect(Math.abs(got.raw.closedAfterMs! - got.node.closedAfterMs!)).toBeLessThanOrEqual(
      CHECK_INTERVAL + 60,
    )
    expect(got.raw.closedAfterMs!).toBeLessThan(HEADERS_TIMEOUT + CHECK_INTERVAL + 150)
  })

  it("times out a drip-fed body as node:http does", async () => {
    const request = post(0, "", JSON.stringify({ pad: "x".repeat(80) }))
    const cut = request.indexOf("\r\n\r\n") + 4
    const got = await both((side) =>
      exchange(side.port, [request.slice(0, cut), ...request.slice(cut, cut + 60)], {
        gapMs: 25,
        waitMs: 3000,
      }),
    )
    expect(got.raw.wire).toEqual(got.node.wire)
    expect(got.raw.closed && got.node.closed).toBe(true)
    expect(Math.abs(got.raw.closedAfterMs! - got.node.closedAfterMs!)).toBeLessThanOrEqual(
      CHECK_INTERVAL + 60,
    )
  })

  it("answers a connection that sends nothing as node:http does", async () => {
    const got = await both((side) => exchange(side.port, [], { waitMs: 3000 }))
    expect(got.raw.wire).toEqual(got.node.wire)
    expect(got.raw.wire).toMatch(/^HTTP\/1\.1 408/)
    expect(got.raw.closedAfterMs!).toBeGreaterThanOrEqual(HEADERS_TIMEOUT - 20)
    expect(got.raw.closedAfterMs!).toBeLessThanOrEqual(got.node.closedAfterMs! + 60)
  })

  it("closes an idle kept-alive connection when node:http does", async () => {
    const got = await both((side) =>
      exchange(side.port, [post(side.port, "x-value: once\r\n")], { waitMs: 4000 }),
    )
    expect(got.raw.wire).toEqual(got.node.wire)
    expect(got.raw.closed && got.node.closed).toBe(true)
    expect(Math.abs(got.raw.closedAfterMs! - got.node.closedAfterMs!)).toBeLessThan(150)
  })

  it("closes a connection after maxRequestsPerSocket requests as node:http does", async () => {
    for (const side of [node, raw]) side.httpServer.maxRequestsPerSocket = 2
    try {
      const got = await both((side) =>
        exchange(
          side.port,
          [1, 2, 3].map((i) => post(side.port, `x-value: r${i}\r\n`)),
          {
            gapMs: 50,
            waitMs: 500,
          },
        ),
      )
      expect(got.raw.wire).toEqual(got.node.wire)
      expect(got.raw.wire.match(/HTTP\/1\.1 \d+/g)?.length).toBeGreaterThanOrEqual(2)
    } finally {
      for (const side of [node, raw]) side.httpServer.maxRequestsPerSocket = 0
    }
  })

  it("stops running pipelined requests from a client that does not read, as node:http does", async () => {
    // 2 KiB requests: a read holds a few dozen of them, so reading less means running fewer.
    const pipelined = post(0, "", JSON.stringify({ pad: "p".repeat(2000) }), "/big")
    const runs: Record<string, number> = {}
    await Promise.all(
      [node, raw].map(async (side) => {
        const before = side.runs
        const socket = connect(side.port, "127.0.0.1")
        socket.pause() // never read
        socket.on("error", () => {})
        await new Promise<void>((resolve) => socket.once("connect", () => resolve()))
        socket.write(pipelined.repeat(3000))
        await new Promise((r) => setTimeout(r, 1500))
        runs[side.name] = side.runs - before
        socket.destroy()
      }),
    )
    // node:http runs what it has read when its write buffer fills, then stops reading; so must the raw edge.
    expect(runs["node:http"]).toBeLessThan(1000)
    expect(runs["raw edge"]).toBeLessThanOrEqual(runs["node:http"]! + 16)
  })
})
