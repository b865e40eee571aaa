/**
 * The raw edge of `serveHttp` (`transport: "raw"`) on real sockets: any split of a request stream into
 * chunks gives the same answers, pipelined requests are answered in order, requests off the hot path
 * (smuggling attempts, malformed heads, oversized heads and bodies, `Expect`, GET) get exactly what the
 * node transport answers, slow heads time out with 408, a client gone mid-body runs nothing, and
 * keep-alive connections are reused by node:http's agent and by fetch.
 */
import { Agent, request } from "node:http"
import { connect, type Socket } from "node:net"
import type { ToolService } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpHttpServerHandle, serveHttp } from "../src/index.js"
import { parseHead, requestHeaders } from "../src/server/rawEdge.js"
import { demoService } from "./fixtures/service.js"

const VERSION = "2025-11-25"

/** A demo service counting the calls that reach it. */
const countingService = () => {
  const demo = demoService()
  const counter = { calls: 0 }
  const service: ToolService = {
    ...demo,
    callTool: (req) => {
      counter.calls++
      return demo.callTool(req)
    },
  }
  return { service, counter }
}

const initialize = async (url: string): Promise<string> => {
  const init = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  })
  const session = init.headers.get("mcp-session-id")!
  await init.text()
  return session
}

/** The bytes of a `tools/call` of `demo.echo` POSTed to `path`. */
const callRequest = (
  port: number,
  session: string,
  id: number,
  text: string,
  extra = "",
  path = "/mcp",
): string => {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "demo.echo", arguments: { text } },
  })
  return (
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
    `accept: application/json, text/event-stream\r\nmcp-protocol-version: ${VERSION}\r\n` +
    `mcp-session-id: ${session}\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  )
}

interface Answer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/** Parses HTTP/1.1 responses (content-length or chunked bodies; 1xx have none) from `data`. */
const parseResponses = (data: Buffer): { answers: Answer[]; rest: Buffer } => {
  const answers: Answer[] = []
  let at = 0
  for (;;) {
    const end = data.indexOf("\r\n\r\n", at)
    if (end < 0) break
    const lines = data.toString("latin1", at, end).split("\r\n")
    const status = Number(lines[0]!.split(" ")[1])
    const headers: Record<string, string> = {}
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":")
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
    }
    let next = end + 4
    let body = ""
    if (status >= 200 && headers["content-length"] !== undefined) {
      const length = Number(headers["content-length"])
      if (data.length < next + length) break
      body = data.toString("utf8", next, next + length)
      next += length
    } else if (headers["transfer-encoding"] === "chunked") {
      let cursor = next
      let complete = false
      for (;;) {
        const lineEnd = data.indexOf("\r\n", cursor)
        if (lineEnd < 0) break
        const size = Number.parseInt(data.toString("latin1", cursor, lineEnd), 16)
        if (data.length < lineEnd + 2 + size + 2) break
        body += data.toString("utf8", lineEnd + 2, lineEnd + 2 + size)
        cursor = lineEnd + 2 + size + 2
        if (size === 0) {
          complete = true
          break
        }
      }
      if (!complete) break
      next = cursor
    }
    answers.push({ status, headers, body })
    at = next
  }
  return { answers, rest: data.subarray(at) }
}

/** A raw connection: writes chunks, collects what comes back until `count` answers or the close. */
const exchange = async (
  port: number,
  chunks: readonly (string | Buffer)[],
  options: { readonly count?: number; readonly gapMs?: number; readonly timeoutMs?: number } = {},
): Promise<{ answers: Answer[]; closed: boolean }> => {
  const socket: Socket = connect(port, "127.0.0.1")
  socket.setNoDelay(true)
  let data = Buffer.alloc(0)
  let closed = false
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, options.timeoutMs ?? 5000)
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk])
      if (options.count !== undefined && parseResponses(data).answers.length >= options.count) {
        clearTimeout(timer)
        resolve()
      }
    })
    socket.on("close", () => {
      closed = true
      clearTimeout(timer)
      resolve()
    })
    socket.on("error", () => {})
  })
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()))
  for (const chunk of chunks) {
    socket.write(chunk)
    if (options.gapMs !== undefined) await new Promise((r) => setTimeout(r, options.gapMs))
  }
  await done
  // A close right after the last answer: give it a moment to arrive.
  if (!closed) await new Promise((r) => setTimeout(r, 50))
  socket.destroy()
  return { answers: parseResponses(data).answers, closed }
}

/** A small deterministic PRNG (mulberry32), so a failing split can be reproduced from its seed. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** `bytes` cut at `cuts` random places. */
const split = (bytes: Buffer, cuts: number, random: () => number): Buffer[] => {
  const at = [
    ...new Set(Array.from({ length: cuts }, () => 1 + Math.floor(random() * (bytes.length - 1)))),
  ].sort((a, b) => a - b)
  const parts: Buffer[] = []
  let from = 0
  for (const cut of at) {
    parts.push(bytes.subarray(from, cut))
    from = cut
  }
  parts.push(bytes.subarray(from))
  return parts
}

const texts = (answers: readonly Answer[]) =>
  answers.map((a) => {
    const message = JSON.parse(a.body) as { id: number; result: { content: { text: string }[] } }
    return `${message.id}:${message.result.content[0]!.text}`
  })

describe("serveHttp raw edge", () => {
  const { service, counter } = countingService()
  let raw: McpHttpServerHandle
  let node: McpHttpServerHandle
  let rawSession: string
  let nodeSession: string

  beforeAll(async () => {
    raw = await serveHttp(service, { transport: "raw" })
    node = await serveHttp(service, { transport: "node" })
    rawSession = await initialize(raw.url)
    nodeSession = await initialize(node.url)
  })

  afterAll(async () => {
    await Promise.all([raw.close(), node.close()])
  })

  it("gives the same answers, in order, for any split of a pipelined request stream", async () => {
    const stream = Buffer.from(
      [1, 2, 3, 4].map((id) => callRequest(raw.port, rawSession, id, `t${id}é`)).join(""),
    )
    const expected = ["1:t1é", "2:t2é", "3:t3é", "4:t4é"]
    const whole = await exchange(raw.port, [stream], { count: 4 })
    expect(texts(whole.answers)).toEqual(expected)
    for (let seed = 1; seed <= 12; seed++) {
      const random = prng(seed)
      const parts = split(stream, 1 + Math.floor(random() * 12), random)
      const got = await exchange(raw.port, parts, { count: 4, gapMs: 1 })
      expect({ seed, answers: texts(got.answers) }).toEqual({ seed, answers: expected })
    }
    // One byte at a time (each a separate read on the server).
    const first = Buffer.from(callRequest(raw.port, rawSession, 9, "bytewise"))
    const bytewise = await exchange(
      raw.port,
      [...first].map((b) => Buffer.from([b])),
      {
        count: 1,
        gapMs: 0.2,
        timeoutMs: 10_000,
      },
    )
    expect(texts(bytewise.answers)).toEqual(["9:bytewise"])
  }, 30_000)

  it("answers on the raw edge the same as the node transport (status, content type, JSON body)", async () => {
    const rawAnswer = await exchange(raw.port, [callRequest(raw.port, rawSession, 5, "same")], { count: 1 })
    const nodeAnswer = await exchange(node.port, [callRequest(node.port, nodeSession, 5, "same")], {
      count: 1,
    })
    expect(rawAnswer.answers[0]!.status).toBe(200)
    expect(rawAnswer.answers[0]!.headers["content-type"]).toBe("application/json")
    expect(rawAnswer.answers[0]!.headers.date).toMatch(/GMT$/)
    expect(rawAnswer.answers[0]!.headers["keep-alive"]).toBe(nodeAnswer.answers[0]!.headers["keep-alive"])
    expect(rawAnswer.answers[0]!.headers["keep-alive"]).toBe("timeout=65")
    expect(rawAnswer.answers[0]!.body).toBe(nodeAnswer.answers[0]!.body)
  })

  const malformed: readonly [string, (port: number, session: string) => string][] = [
    [
      "content-length and transfer-encoding (smuggling)",
      (port, session) =>
        callRequest(port, session, 20, "x", "transfer-encoding: chunked\r\n").replace(
          /\r\n\r\n[\s\S]*$/,
          `\r\n\r\n0\r\n\r\n${callRequest(port, session, 21, "smuggled")}`,
        ),
    ],
    ["two content-lengths", (port, session) => callRequest(port, session, 22, "x", "content-length: 3\r\n")],
    [
      "a negative content-length",
      (port, session) =>
        callRequest(port, session, 23, "x").replace(/content-length: \d+/, "content-length: -1"),
    ],
    [
      "a huge content-length",
      (port, session) =>
        callRequest(port, session, 24, "x").replace(
          /content-length: \d+/,
          "content-length: 99999999999999999999",
        ),
    ],
    ["an obs-fold line", (port, session) => callRequest(port, session, 25, "x", "x-folded: a\r\n b\r\n")],
    ["a bare LF", (port, session) => callRequest(port, session, 26, "x", "x-bare: a\nx-other: b\r\n")],
    ["bare LF line endings", (port, session) => callRequest(port, session, 33, "x").replaceAll("\r\n", "\n")],
    ["a header name with a space", (port, session) => callRequest(port, session, 27, "x", "x bad: a\r\n")],
    [
      "a control character in a value",
      (port, session) => callRequest(port, session, 28, "x", "x-ctl: a\u0001b\r\n"),
    ],
    ["no host", (port, session) => callRequest(port, session, 30, "x").replace(/Host: [^\r]*\r\n/, "")],
    [
      "a header block over the limit (431)",
      (port, session) => callRequest(port, session, 31, "x", `x-big: ${"a".repeat(20_000)}\r\n`),
    ],
    [
      "a declared body over the cap (413)",
      (port, session) =>
        callRequest(port, session, 32, "x").replace(
          /content-length: \d+[\s\S]*$/,
          "content-length: 5000000\r\n\r\n",
        ),
    ],
  ]

  it.each(malformed)(
    "refuses %s exactly as the node transport does, and runs nothing",
    async (_what, make) => {
      const before = counter.calls
      const rawAnswer = await exchange(raw.port, [make(raw.port, rawSession)], { timeoutMs: 3000 })
      const nodeAnswer = await exchange(node.port, [make(node.port, nodeSession)], { timeoutMs: 3000 })
      const shape = (r: { answers: Answer[]; closed: boolean }) => ({
        statuses: r.answers.map((a) => a.status),
        bodies: r.answers.map((a) => a.body),
        closed: r.closed,
      })
      expect(rawAnswer.answers.length).toBeGreaterThan(0)
      expect(rawAnswer.answers[0]!.status).toBeGreaterThanOrEqual(400)
      expect(shape(rawAnswer)).toEqual(shape(nodeAnswer))
      expect(counter.calls).toBe(before)
    },
  )

  it("serves an HTTP/1.0 request through node:http, as the node transport does", async () => {
    const make = (port: number, session: string) =>
      callRequest(port, session, 29, "old").replace("HTTP/1.1\r\n", "HTTP/1.0\r\n")
    const rawAnswer = await exchange(raw.port, [make(raw.port, rawSession)], { timeoutMs: 3000 })
    const nodeAnswer = await exchange(node.port, [make(node.port, nodeSession)], { timeoutMs: 3000 })
    expect(texts(rawAnswer.answers)).toEqual(["29:old"])
    expect(rawAnswer.closed).toBe(true)
    expect(rawAnswer.answers[0]!.headers["content-length"]).toBe(
      nodeAnswer.answers[0]!.headers["content-length"],
    )
    expect(nodeAnswer.closed).toBe(true)
  })

  it("answers 100-continue and the call after it through node:http", async () => {
    const got = await exchange(
      raw.port,
      [callRequest(raw.port, rawSession, 40, "cont", "expect: 100-continue\r\n")],
      {
        count: 2,
      },
    )
    expect(got.answers.map((a) => a.status)).toEqual([100, 200])
    expect(texts(got.answers.slice(1))).toEqual(["40:cont"])
  })

  it("answers a POST on the raw edge, then hands the connection to node:http for a GET on it", async () => {
    const get = `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${raw.port}\r\naccept: application/json\r\nmcp-session-id: ${rawSession}\r\n\r\n`
    const post = callRequest(raw.port, rawSession, 41, "before")
    const got = await exchange(raw.port, [post + get + callRequest(raw.port, rawSession, 42, "after")], {
      count: 3,
    })
    expect(got.answers.map((a) => a.status)).toEqual([200, 406, 200])
    expect(texts([got.answers[0]!, got.answers[2]!])).toEqual(["41:before", "42:after"])
  })

  it("closes the connection after answering a request with connection: close", async () => {
    const got = await exchange(
      raw.port,
      [callRequest(raw.port, rawSession, 43, "bye", "connection: close\r\n")],
      {
        timeoutMs: 3000,
      },
    )
    expect(texts(got.answers)).toEqual(["43:bye"])
    expect(got.answers[0]!.headers.connection).toBe("close")
    expect(got.closed).toBe(true)
  })

  it("answers 408 and closes a connection whose head does not arrive in time (slowloris)", async () => {
    raw.httpServer.headersTimeout = 300
    try {
      const started = Date.now()
      const got = await exchange(raw.port, [callRequest(raw.port, rawSession, 44, "slow").slice(0, 60)], {
        timeoutMs: 4000,
      })
      expect(got.answers.map((a) => a.status)).toEqual([408])
      expect(got.closed).toBe(true)
      expect(Date.now() - started).toBeLessThan(3000)
    } finally {
      raw.httpServer.headersTimeout = 60_000
    }
  })

  it("closes a kept-alive connection left idle past keepAliveTimeout", async () => {
    raw.httpServer.keepAliveTimeout = 300
    try {
      const started = Date.now()
      const got = await exchange(raw.port, [callRequest(raw.port, rawSession, 47, "idle")], {
        timeoutMs: 4000,
      })
      expect(texts(got.answers)).toEqual(["47:idle"])
      expect(got.closed).toBe(true)
      expect(Date.now() - started).toBeLessThan(3000)
    } finally {
      raw.httpServer.keepAliveTimeout = 65_000
    }
  })

  it("answers a body that does not arrive within requestTimeout as the node transport does", async () => {
    for (const side of [raw, node]) {
      side.httpServer.headersTimeout = 200
      side.httpServer.requestTimeout = 300
    }
    try {
      const [onRaw, onNode] = await Promise.all(
        [raw, node].map((side) => {
          const whole = callRequest(side.port, side === raw ? rawSession : nodeSession, 48, "slow body")
          return exchange(side.port, [whole.slice(0, whole.length - 5)], { timeoutMs: 2500 })
        }),
      )
      expect(onRaw!.answers.map((a) => a.status)).toEqual([408])
      expect(onNode!.answers.map((a) => a.status)).toEqual([408])
      expect(onRaw!.closed).toBe(onNode!.closed)
    } finally {
      for (const side of [raw, node]) {
        side.httpServer.headersTimeout = 60_000
        side.httpServer.requestTimeout = 300_000
      }
    }
  })

  it("runs nothing for a client that goes away mid-body, and keeps serving", async () => {
    const before = counter.calls
    const whole = callRequest(raw.port, rawSession, 45, "cut")
    const socket = connect(raw.port, "127.0.0.1")
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()))
    socket.write(whole.slice(0, whole.length - 10))
    await new Promise((r) => setTimeout(r, 50))
    socket.destroy()
    await new Promise((r) => setTimeout(r, 50))
    expect(counter.calls).toBe(before)
    const after = await exchange(raw.port, [callRequest(raw.port, rawSession, 46, "still")], { count: 1 })
    expect(texts(after.answers)).toEqual(["46:still"])
    expect(counter.calls).toBe(before + 1)
  })

  it("keeps connections alive for node:http's agent and for fetch", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const reused: boolean[] = []
    try {
      for (let id = 50; id < 55; id++) {
        const body = callRequest(raw.port, rawSession, id, `k${id}`).split("\r\n\r\n")[1]!
        const text = await new Promise<string>((resolve, reject) => {
          const req = request(
            raw.url,
            {
              method: "POST",
              agent,
              headers: {
                "content-type": "application/json",
                accept: "application/json, text/event-stream",
                "mcp-session-id": rawSession,
                "mcp-protocol-version": VERSION,
              },
            },
            (res) => {
              let data = ""
              res.setEncoding("utf8")
              res.on("data", (c: string) => {
                data += c
              })
              res.on("end", () => resolve(data))
            },
          )
          req.on("error", reject)
          req.end(body)
          reused.push(req.reusedSocket)
        })
        expect(text).toContain(`"text":"k${id}"`)
      }
    } finally {
      agent.destroy()
    }
    expect(reused).toEqual([false, true, true, true, true])
    for (let id = 60; id < 65; id++) {
      const res = await fetch(raw.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": rawSession,
          "mcp-protocol-version": VERSION,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "demo.echo", arguments: { text: `f${id}` } },
        }),
      })
      expect(await res.text()).toContain(`"text":"f${id}"`)
    }
  })
})

describe("serveHttp raw edge: the request's header record", () => {
  const { service } = countingService()
  const seen: { raw: Record<string, unknown>[]; node: Record<string, unknown>[] } = { raw: [], node: [] }
  let raw: McpHttpServerHandle
  let node: McpHttpServerHandle
  let rawSession: string
  let nodeSession: string

  beforeAll(async () => {
    // A `context` option reads `info.headers`: the record the raw edge builds on demand.
    const capture = (into: Record<string, unknown>[]) => (info: { headers?: Record<string, unknown> }) => {
      into.push({ ...info.headers })
      return {}
    }
    raw = await serveHttp(service, { transport: "raw", context: capture(seen.raw) })
    node = await serveHttp(service, { transport: "node", context: capture(seen.node) })
    rawSession = await initialize(raw.url)
    nodeSession = await initialize(node.url)
  })

  afterAll(async () => {
    await Promise.all([raw.close(), node.close()])
  })

  /** The record each server's `context` saw for the same extra header lines (host and session named alike). */
  const records = async (extra: string) => {
    const got: Record<string, unknown>[][] = []
    for (const [server, session, into] of [
      [raw, rawSession, seen.raw],
      [node, nodeSession, seen.node],
    ] as const) {
      into.length = 0
      const answer = await exchange(server.port, [callRequest(server.port, session, 7, "h", extra)], {
        count: 1,
      })
      expect(texts(answer.answers)).toEqual(["7:h"])
      got.push(
        into.map((record) =>
          Object.fromEntries(
            Object.entries(record).map(([k, v]) => [
              k,
              k === "host" ? "HOST" : k === "mcp-session-id" ? "SESSION" : v,
            ]),
          ),
        ),
      )
    }
    return { raw: got[0]!, node: got[1]! }
  }

  const cases: readonly [string, string][] = [
    ["plain headers", ""],
    [
      "mixed-case names, padded, empty and tab-delimited values, obs-text",
      "X-Custom:   spaced  value  \r\nx-empty:\r\nX-Tab:\tv\t\r\nx-latin: caf\u00e9\r\nUser-Agent: raw/1\r\n",
    ],
    ["a header repeated in another case (node:http joins it)", "X-Dup: a\r\nx-dup: b\r\n"],
    [
      "forty headers with a repeat after the thirty-second",
      `${Array.from({ length: 40 }, (_, i) => `x-h${i}: ${i}\r\n`).join("")}X-H3: again\r\n`,
    ],
    ["a header named like an Object.prototype member", "constructor: c\r\n"],
  ]

  it.each(cases)("is the same record as node:http's for %s", async (_what, extra) => {
    const { raw: rawRecords, node: nodeRecords } = await records(extra)
    expect(rawRecords).toHaveLength(1)
    // Same names, values and order.
    expect(rawRecords.map((r) => Object.entries(r))).toEqual(nodeRecords.map((r) => Object.entries(r)))
  })
})

describe("parseHead", () => {
  const head = (lines: readonly string[], maxBody = 1000) => {
    const text = `POST /mcp?x=1 HTTP/1.1\r\n${lines.join("\r\n")}`
    // As the edge calls it: the head, its CRLF CRLF, and what follows (a body).
    return parseHead(`${text}\r\n\r\n{"x":1}\r\n`, text.length, maxBody)
  }

  it("recognises the headers the request handling reads, in any case, and builds the record on demand", () => {
    const parsed = head([
      "HOST: a:1",
      "Accept: application/json, text/event-stream",
      "Content-Type:  application/json ",
      "MCP-Session-Id: s1",
      "mcp-protocol-version: 2025-11-25",
      "Authorization: Bearer t",
      "Origin: http://a:1",
      "X-Other: o",
      "Content-Length: 12",
      "Connection: Close",
    ])!
    expect(parsed.url).toBe("/mcp?x=1")
    expect(parsed.length).toBe(12)
    expect(parsed.close).toBe(true)
    expect(parsed.known).toEqual({
      host: "a:1",
      origin: "http://a:1",
      accept: "application/json, text/event-stream",
      contentType: "application/json",
      contentLength: "12",
      sessionId: "s1",
      protocolVersion: "2025-11-25",
      authorization: "Bearer t",
    })
    expect(Object.entries(requestHeaders(parsed))).toEqual([
      ["host", "a:1"],
      ["accept", "application/json, text/event-stream"],
      ["content-type", "application/json"],
      ["mcp-session-id", "s1"],
      ["mcp-protocol-version", "2025-11-25"],
      ["authorization", "Bearer t"],
      ["origin", "http://a:1"],
      ["x-other", "o"],
      ["content-length", "12"],
      ["connection", "Close"],
    ])
  })

  it("recognises Mcp-Method and Mcp-Name (2026-07-28), not other names of their lengths", () => {
    const parsed = head([
      "host: a",
      "content-length: 1",
      "MCP-Method:  tools/call ",
      "Mcp-Name: echo",
      "mcp-nome: x",
      "mcp-methox: y",
    ])!
    expect(parsed.known.mcpMethod).toBe("tools/call")
    expect(parsed.known.mcpName).toBe("echo")
    const other = head(["host: a", "content-length: 1", "mcp-nome: x", "mcp-methox: y"])!
    expect(other.known.mcpMethod).toBeUndefined()
    expect(other.known.mcpName).toBeUndefined()
  })

  it.each([
    ["no host", ["content-length: 1"]],
    ["no content-length", ["host: a"]],
    ["a repeated header", ["host: a", "content-length: 1", "X-A: 1", "x-a: 2"]],
    ["a repeated known header", ["host: a", "content-length: 1", "Host: b"]],
    [
      "a repeat among many headers",
      ["host: a", "content-length: 1", ...Array.from({ length: 50 }, (_, i) => `x-${i}: v`), "X-7: w"],
    ],
    ["__proto__", ["host: a", "content-length: 1", "__proto__: x"]],
    ["constructor", ["host: a", "content-length: 1", "Constructor: x"]],
    ["transfer-encoding", ["host: a", "content-length: 1", "Transfer-Encoding: chunked"]],
    ["expect", ["host: a", "content-length: 1", "expect: 100-continue"]],
    ["upgrade", ["host: a", "content-length: 1", "upgrade: websocket"]],
    ["connection: upgrade", ["host: a", "content-length: 1", "connection: upgrade"]],
    ["a signed content-length", ["host: a", "content-length: +1"]],
    ["an empty content-length", ["host: a", "content-length:"]],
    ["sixteen digits", ["host: a", "content-length: 0000000000000001"]],
    ["a body over the cap", ["host: a", "content-length: 1001"]],
  ])("hands over a head with %s", (_what, lines) => {
    expect(head(lines)).toBeUndefined()
  })

  it("keeps many distinct headers, and two names with the same hash are no repeat", () => {
    // "x-an" and "X-C0" hash alike (31 × "a" + "n" = 31 × "c" + "0"), before and past the set threshold.
    const early = head(["host: a", "content-length: 0", "x-an: 1", "X-C0: 2"])!
    expect(requestHeaders(early)).toEqual({ host: "a", "content-length": "0", "x-an": "1", "x-c0": "2" })
    const many = Array.from({ length: 60 }, (_, i) => `x-${i}: ${i}`)
    const late = head(["host: a", "content-length: 0", ...many, "x-an: 1", "X-C0: 2"])!
    expect(Object.keys(requestHeaders(late))).toHaveLength(64)
  })
})
