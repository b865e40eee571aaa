/**
 * The hand-written upstream client (`Http1Pool`) against `node:http`'s client on hostile answers from a
 * raw TCP server on loopback: header values with CR, LF or NUL, huge heads, bad chunked framing,
 * conflicting lengths, truncated bodies. For each answer both clients must agree: both refuse it, or
 * both read the same status, header and body.
 */
import { request } from "node:http"
import { createServer, type Server, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Http1Pool } from "../src/internal/http1Pool.js"

/** What a client made of an answer. */
type Outcome = { readonly ok: false } | { readonly ok: true; status: number; test?: string; body: string }

let answer: string | Buffer = ""
let server: Server
let port = 0
const sockets = new Set<Socket>()

beforeAll(async () => {
  // Answers every request with `answer`, then closes the connection.
  server = createServer((socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.on("error", () => {})
    let head = ""
    socket.on("data", (chunk: Buffer) => {
      head += chunk.toString("latin1")
      if (!head.includes("\r\n\r\n")) return
      head = ""
      socket.end(answer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as { port: number }).port
})

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const viaNode = (): Promise<Outcome> =>
  new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path: "/", method: "GET", agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("error", () => resolve({ ok: false }))
      res.on("aborted", () => resolve({ ok: false }))
      res.on("end", () => {
        if (!res.complete) return resolve({ ok: false })
        const test = res.headers["x-test"]
        resolve({
          ok: true,
          status: res.statusCode!,
          ...(test !== undefined ? { test: String(test) } : {}),
          body: Buffer.concat(chunks).toString("utf8"),
        })
      })
    })
    req.on("error", () => resolve({ ok: false }))
    req.end()
  })

const viaPool = async (): Promise<Outcome> => {
  const pool = new Http1Pool({ host: "127.0.0.1", port })
  try {
    const res = await pool.request(`GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`)
    const body = await res.text()
    const test = res.header("x-test")
    return { ok: true, status: res.status, ...(test !== undefined ? { test } : {}), body }
  } catch {
    return { ok: false }
  } finally {
    pool.close()
  }
}

const head = (lines: string) => `HTTP/1.1 200 OK\r\n${lines}\r\n\r\n`

const cases: readonly (readonly [string, string | Buffer])[] = [
  ["a plain answer", `${head("content-length: 2\r\nx-test: fine")}ok`],
  ["a bare CR in a header value", `${head("content-length: 2\r\nx-test: a\rb")}ok`],
  ["a NUL in a header value", `${head("content-length: 2\r\nx-test: a\0b")}ok`],
  ["a bare LF ending a header line", `HTTP/1.1 200 OK\r\nx-test: a\ncontent-length: 2\r\n\r\nok`],
  ["a DEL in a header value", `${head("content-length: 2\r\nx-test: a\x7fb")}ok`],
  ["obs-fold", `${head("content-length: 2\r\nx-test: a\r\n b")}ok`],
  ["a space before the colon", `${head("content-length : 2\r\nx-test: a")}ok`],
  ["a head of 20 KiB", `${head(`content-length: 2\r\nx-test: ${"a".repeat(20 * 1024)}`)}ok`],
  ["a head of 80 KiB", `${head(`content-length: 2\r\nx-test: ${"a".repeat(80 * 1024)}`)}ok`],
  ["1,000 header lines", `${head(`content-length: 2\r\n${"x-a: 1\r\n".repeat(1000)}x-test: late`)}ok`],
  ["a chunk size that is not hex", `${head("transfer-encoding: chunked")}zz\r\nok\r\n0\r\n\r\n`],
  ["a chunk longer than its size", `${head("transfer-encoding: chunked")}2\r\nokk\r\n0\r\n\r\n`],
  ["a chunk without its CRLF", `${head("transfer-encoding: chunked")}2\r\nok0\r\n\r\n`],
  ["a 0x chunk size", `${head("transfer-encoding: chunked")}0x2\r\nok\r\n0\r\n\r\n`],
  ["a chunk size with a sign", `${head("transfer-encoding: chunked")}+2\r\nok\r\n0\r\n\r\n`],
  ["a chunked body cut short", `${head("transfer-encoding: chunked")}5\r\nok`],
  ["chunked without the last chunk", `${head("transfer-encoding: chunked")}2\r\nok\r\n`],
  ["a chunk extension", `${head("transfer-encoding: chunked")}2;x=y\r\nok\r\n0\r\n\r\n`],
  ["two different content-lengths", `${head("content-length: 2\r\ncontent-length: 3")}ok`],
  ["two equal content-lengths", `${head("content-length: 2\r\ncontent-length: 2")}ok`],
  ["a list of content-lengths", `${head("content-length: 2, 3")}ok`],
  [
    "content-length and chunked",
    `${head("content-length: 2\r\ntransfer-encoding: chunked")}2\r\nok\r\n0\r\n\r\n`,
  ],
  ["a negative content-length", `${head("content-length: -2")}ok`],
  ["a content-length with a plus", `${head("content-length: +2")}ok`],
  ["a body shorter than its content-length", `${head("content-length: 10")}ok`],
  ["a body longer than its content-length", `${head("content-length: 1")}ok`],
  ["transfer-encoding other than chunked", `${head("transfer-encoding: gzip")}ok`],
  ["a status code of four digits", "HTTP/1.1 2000 OK\r\ncontent-length: 2\r\n\r\nok"],
  ["HTTP/1.0 without a length", "HTTP/1.0 200 OK\r\nx-test: old\r\n\r\nok"],
  ["nothing at all", ""],
  ["a head cut short", "HTTP/1.1 200 OK\r\ncontent-len"],
]

describe("Http1Pool and node:http's client on hostile answers", () => {
  it.each(cases)("agree on %s", async (_what, bytes) => {
    answer = bytes
    const node = await viaNode()
    const pool = await viaPool()
    expect(pool).toEqual(node)
  })

  it("refuses a head over 16 KiB of short lines that node:http reads by dropping lines past its count", async () => {
    // node:http keeps the first 2,000 lines and does not count the rest against its head size; the pool
    // refuses any head over node:http's maxHeaderSize (the stricter answer).
    answer = `${head(`content-length: 2\r\n${"x-a: 1\r\n".repeat(4000)}x-test: late`)}ok`
    expect(await viaNode()).toEqual({ ok: true, status: 200, body: "ok" })
    expect(await viaPool()).toEqual({ ok: false })
  })
})
