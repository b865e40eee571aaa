import { createServer as createHttpServer, type Server as HttpServer } from "node:http"
import { type AddressInfo, createServer, type Server, type Socket } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { NodeStreamableHttpTransport } from "../src/client/nodeHttpTransport.js"
import { Http1Error, Http1Pool } from "../src/internal/http1Pool.js"

const post = (body: string, path = "/mcp") =>
  `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

const closers: (() => void)[] = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

const listen = async <S extends Server | HttpServer>(server: S): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  closers.push(() => {
    if ("closeAllConnections" in server) server.closeAllConnections()
    server.close()
  })
  return (server.address() as AddressInfo).port
}

/** A raw TCP server: `onRequest` gets each request's text (head and body as received) and its socket. */
const rawServer = async (onRequest: (request: string, socket: Socket, connection: number) => void) => {
  let connections = 0
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    const connection = ++connections
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.on("error", () => {})
    let buffer = ""
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1")
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n")
        if (end < 0) return
        const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0)
        if (buffer.length < end + 4 + length) return
        const request = buffer.slice(0, end + 4 + length)
        buffer = buffer.slice(end + 4 + length)
        onRequest(request, socket, connection)
      }
    })
  })
  const port = await listen(server)
  closers.push(() => {
    for (const s of sockets) s.destroy()
  })
  return { port, connections: () => connections }
}

const poolFor = (port: number, options: { maxHeaderBytes?: number; maxBodyBytes?: number } = {}) => {
  const pool = new Http1Pool({ host: "127.0.0.1", port, ...options })
  closers.push(() => pool.close())
  return pool
}

const failure = async (promise: Promise<unknown>): Promise<Http1Error> => {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(Http1Error)
    return error as Http1Error
  }
  throw new Error("expected a failure")
}

describe("Http1Pool against node:http on 127.0.0.1", () => {
  it("reuses one kept-alive socket for sequential requests and reads content-length bodies", async () => {
    let connections = 0
    const seen: string[] = []
    const server = createHttpServer((req, res) => {
      let body = ""
      req.on("data", (c) => {
        body += c
      })
      req.on("end", () => {
        seen.push(`${req.method} ${req.url} ${req.headers["content-type"]} ${body}`)
        res.writeHead(200, { "content-type": "application/json" }).end(`{"echo":${body}}`)
      })
    })
    server.on("connection", () => connections++)
    const pool = poolFor(await listen(server))
    for (let i = 0; i < 5; i++) {
      const res = await pool.request(post(`{"n":${i},"t":"é"}`))
      expect(res.status).toBe(200)
      expect(res.header("content-type")).toBe("application/json")
      expect(JSON.parse(await res.text())).toEqual({ echo: { n: i, t: "é" } })
    }
    expect(connections).toBe(1)
    expect(pool.size).toBe(1)
    expect(seen[4]).toBe('POST /mcp application/json {"n":4,"t":"é"}')
  })

  it("opens more sockets for concurrent requests and keeps them for reuse", async () => {
    let connections = 0
    const server = createHttpServer((req, res) => {
      req.resume()
      req.on("end", () => setTimeout(() => res.end("ok"), 20))
    })
    server.on("connection", () => connections++)
    const pool = poolFor(await listen(server))
    const texts = await Promise.all(
      Array.from({ length: 4 }, async () => (await pool.request(post("{}"))).text()),
    )
    expect(texts).toEqual(["ok", "ok", "ok", "ok"])
    expect(connections).toBe(4)
    await Promise.all(Array.from({ length: 4 }, async () => (await pool.request(post("{}"))).text()))
    expect(connections).toBe(4)
  })

  it("decodes chunked bodies, whole and streamed, with a character split across chunks", async () => {
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      const bytes = Buffer.from("data: héllo\n\n")
      const split = bytes.indexOf(0xc3) + 1 // in the middle of "é"
      res.write(bytes.subarray(0, split))
      setTimeout(() => {
        res.write(bytes.subarray(split))
        res.end("data: end\n\n")
      }, 10)
    })
    const pool = poolFor(await listen(server))
    const whole = await pool.request(post("{}"))
    expect(whole.header("transfer-encoding")).toBe("chunked")
    expect(await whole.text()).toBe("data: héllo\n\ndata: end\n\n")
    const streamed = await pool.request(post("{}"))
    const parts: string[] = []
    await new Promise<void>((resolve, reject) =>
      streamed.stream(
        (text) => parts.push(text),
        (error) => (error ? reject(error) : resolve()),
      ),
    )
    expect(parts.join("")).toBe("data: héllo\n\ndata: end\n\n")
    expect(parts.length).toBeGreaterThan(1)
    expect(pool.size).toBe(1)
  })

  it("fails a body over maxBodyBytes and drops the socket", async () => {
    const server = createHttpServer((_req, res) => res.end("x".repeat(5000)))
    const pool = poolFor(await listen(server), { maxBodyBytes: 1000 })
    const res = await pool.request(post("{}"))
    const error = await failure(res.text())
    expect(error.code).toBe("HPE_TOO_LARGE")
    expect(error.message).toMatch(/over 1000 bytes/)
    expect(pool.size).toBe(0)
    // The next request works on a new socket.
    const again = await pool.request(post("{}"))
    expect(again.status).toBe(200)
    again.discard()
  })
})

describe("Http1Pool against a raw TCP server (malformed and dying answers)", () => {
  const answer = (head: string, body = "") => `${head}\r\n\r\n${body}`

  it.each([
    ["a bad status line", "HTTP/2 200 OK\r\ncontent-length: 0", /bad status line/],
    ["an HTTP/1.2 status line", "HTTP/1.2 200 OK\r\ncontent-length: 0", /bad status line/],
    [
      "a status code that is no number",
      "HTTP/1.1 2x0 OK\r\ncontent-length: 0",
      /bad status line "HTTP\/1.1 2x0 OK"/,
    ],
    ["a reason phrase without its space", "HTTP/1.1 200OK\r\ncontent-length: 0", /bad status line/],
    ["a bare CR in the reason phrase", "HTTP/1.1 200 O\rK\r\ncontent-length: 0", /bad status line/],
    ["a bad header line", "HTTP/1.1 200 OK\r\nno colon here\r\ncontent-length: 0", /bad header line/],
    ["a header line without a name", "HTTP/1.1 200 OK\r\n: x\r\ncontent-length: 0", /bad header line ": x"/],
    [
      "a header name that is no token",
      "HTTP/1.1 200 OK\r\nBad Name: x\r\ncontent-length: 0",
      /bad header name "bad name"/,
    ],
    [
      "a colon only on the next line",
      "HTTP/1.1 200 OK\r\nno-colon\r\ncontent-length: 0",
      /bad header line "no-colon"/,
    ],
    ["a non-numeric content-length", "HTTP/1.1 200 OK\r\ncontent-length: 12x", /bad content-length/],
    [
      "conflicting content-lengths",
      "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3",
      /content-length given twice/,
    ],
  ])("rejects %s with HPE_INVALID", async (_name, head, message) => {
    const server = await rawServer((_r, socket) => socket.write(answer(head, "ok")))
    const error = await failure(poolFor(server.port).request(post("{}")))
    expect(error.code).toBe("HPE_INVALID")
    expect(error.message).toMatch(message)
  })

  it("rejects a bad chunk size and bytes after the end of an answer", async () => {
    const server = await rawServer((_r, socket) =>
      socket.write(answer("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked", "zz\r\nhello\r\n0\r\n\r\n")),
    )
    const res = await poolFor(server.port).request(post("{}"))
    expect((await failure(res.text())).message).toMatch(/bad chunk size/)
    const extra = await rawServer((_r, socket) =>
      socket.write(answer("HTTP/1.1 200 OK\r\ncontent-length: 2", "okEXTRA")),
    )
    const res2 = await poolFor(extra.port).request(post("{}"))
    expect((await failure(res2.text())).message).toMatch(/data after the end/)
  })

  it("folds header names to lower case, joins repeated values, and takes a body that came with its head at once", async () => {
    const server = await rawServer((_r, socket) =>
      socket.write(answer("HTTP/1.1 200 OK\r\nX-Tag:  a \r\nx-tag: b\r\nContent-Length: 2", "ok")),
    )
    const pool = poolFor(server.port)
    const res = await pool.request(post("{}"))
    expect(res.header("x-tag")).toBe("a, b")
    expect(res.header("content-length")).toBe("2")
    expect(res.header("X-Tag")).toBeUndefined()
    expect(res.textNow()).toBe("ok")
    // The body was taken: the socket went back to the pool.
    const again = await pool.request(post("{}"))
    expect(again.textNow()).toBe("ok")
  })

  it("reads a status line without a reason phrase", async () => {
    const server = await rawServer((_r, socket) => socket.write(answer("HTTP/1.1 204\r\nx: y")))
    const res = await poolFor(server.port).request(post("{}"))
    expect(res.status).toBe(204)
    expect(res.textNow()).toBe("")
  })

  it("leaves a body that has not arrived to text()", async () => {
    const server = await rawServer((_r, socket) => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhe")
      setTimeout(() => socket.write("llo"), 50)
    })
    const res = await poolFor(server.port).request(post("{}"))
    expect(res.textNow()).toBeUndefined()
    expect(await res.text()).toBe("hello")
  })

  it("caps the response head", async () => {
    const server = await rawServer((_r, socket) =>
      socket.write(`HTTP/1.1 200 OK\r\nx-big: ${"a".repeat(3000)}\r\n`),
    )
    const error = await failure(poolFor(server.port, { maxHeaderBytes: 1024 }).request(post("{}")))
    expect(error.code).toBe("HPE_TOO_LARGE")
  })

  it("fails the call when the server dies mid-answer, and answers the next call on a new socket", async () => {
    const server = await rawServer((_r, socket, connection) => {
      if (connection === 1) {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"partial":')
        setTimeout(() => socket.destroy(), 10)
      } else socket.write(answer("HTTP/1.1 200 OK\r\ncontent-length: 2", "ok"))
    })
    const pool = poolFor(server.port)
    const res = await pool.request(post("{}"))
    const error = await failure(res.text())
    expect(error.code).toBe("ECONNRESET")
    expect(error.message).toMatch(/closed before the response ended/)
    expect(await (await pool.request(post("{}"))).text()).toBe("ok")
    expect(server.connections()).toBe(2)
  })

  it("fails (without retrying) when a fresh socket closes before answering", async () => {
    const server = await rawServer((_r, socket) => socket.destroy())
    const error = await failure(poolFor(server.port).request(post("{}")))
    expect(error.code).toBe("ECONNRESET")
    expect(server.connections()).toBe(1)
  })

  it("sends a request again on a new socket when a reused one closes before answering", async () => {
    let requests = 0
    const server = await rawServer((_r, socket, connection) => {
      requests++
      // The first connection answers once, then closes when reused (an idle timeout racing the reuse).
      if (connection === 1 && requests > 1) socket.destroy()
      else socket.write(answer("HTTP/1.1 200 OK\r\ncontent-length: 2", "ok"))
    })
    const pool = poolFor(server.port)
    expect(await (await pool.request(post("{}"))).text()).toBe("ok")
    expect(await (await pool.request(post("{}"))).text()).toBe("ok")
    expect(server.connections()).toBe(2)
    expect(requests).toBe(3)
  })

  it("reads a body framed by the end of the connection and does not reuse that socket", async () => {
    const server = await rawServer((_r, socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"a":')
      setTimeout(() => socket.end("1}"), 5)
    })
    const pool = poolFor(server.port)
    expect(await (await pool.request(post("{}"))).text()).toBe('{"a":1}')
    expect(await (await pool.request(post("{}"))).text()).toBe('{"a":1}')
    expect(server.connections()).toBe(2)
  })

  it("skips interim 1xx answers, splits heads across packets, honours connection: close and keep-alive timeouts", async () => {
    const server = await rawServer((_r, socket, connection) => {
      if (connection === 1) {
        socket.write("HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-")
        setTimeout(() => socket.write("length: 2\r\nconnection: close\r\n\r\nok"), 5)
      } else if (connection === 2)
        socket.write(answer("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nkeep-alive: timeout=1", "ok"))
      else socket.write(answer("HTTP/1.1 204 No Content"))
    })
    const pool = poolFor(server.port)
    const first = await pool.request(post("{}"))
    expect(first.header("link")).toBeUndefined()
    expect(first.header("connection")).toBe("close")
    expect(await first.text()).toBe("ok")
    expect(await (await pool.request(post("{}"))).text()).toBe("ok")
    // timeout=1 leaves no idle time to reuse it in: a third socket.
    const third = await pool.request(post("{}"))
    expect(third.status).toBe(204)
    expect(await third.text()).toBe("")
    expect(server.connections()).toBe(3)
  })

  it("fails requests in flight when the pool is closed", async () => {
    const server = await rawServer(() => {})
    const pool = poolFor(server.port)
    const pending = pool.request(post("{}"))
    await new Promise((r) => setTimeout(r, 20))
    pool.close()
    expect((await failure(pending)).message).toMatch(/transport was closed/)
    expect((await failure(pool.request(post("{}")))).message).toMatch(/transport was closed/)
  })
})

describe("NodeStreamableHttpTransport on the pool", () => {
  it("writes obs-text header values as single bytes and the body as UTF-8", async () => {
    const heads: Buffer[] = []
    const server = await rawServer((request, socket) => {
      heads.push(Buffer.from(request, "latin1"))
      const body = `{"jsonrpc":"2.0","id":1,"result":{}}`
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      )
    })
    const transport = new NodeStreamableHttpTransport(new URL(`http://127.0.0.1:${server.port}/mcp`), {
      headers: { "x-name": "caf\u00e9" },
      standaloneStream: false,
    })
    closers.push(() => void transport.close())
    await transport.start()
    await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { text: "é" } })
    const raw = heads[0]!
    expect(raw.includes(Buffer.from("x-name: caf\xe9\r\n", "latin1"))).toBe(true)
    const body = raw.subarray(raw.indexOf("\r\n\r\n") + 4)
    expect(JSON.parse(body.toString("utf8")).params.text).toBe("é")
    expect(Number(/content-length: (\d+)/.exec(raw.toString("latin1"))![1])).toBe(body.length)
  })

  it("refuses configured headers that would inject into the request head", () => {
    expect(
      () =>
        new NodeStreamableHttpTransport(new URL("http://127.0.0.1:1/mcp"), {
          headers: { "x-a": "1\r\nx-b: 2" },
        }),
    ).toThrow(TypeError)
  })

  it("posts one request with our headers, configured ones replacing ours, and refuses an injecting session id", async () => {
    const requests: string[] = []
    const server = await rawServer((request, socket) => {
      requests.push(request)
      const id = /"id":(\d+)/.exec(request)?.[1]
      const body = `{"jsonrpc":"2.0","id":${id},"result":{}}`
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: ${requests.length === 1 ? "s1" : "bad\u0001"}\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      )
    })
    const transport = new NodeStreamableHttpTransport(new URL(`http://127.0.0.1:${server.port}/mcp?x=1`), {
      headers: { Accept: "application/json", "x-token": "t" },
      standaloneStream: false,
    })
    closers.push(() => void transport.close())
    const answers: unknown[] = []
    transport.onmessage = (m) => answers.push(m)
    transport.onerror = () => {}
    await transport.start()
    await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" })
    expect(JSON.parse(JSON.stringify(answers))).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }])
    expect(transport.sessionId).toBe("s1")
    const head = requests[0]!.split("\r\n\r\n")[0]!
    expect(head.split("\r\n")[0]).toBe("POST /mcp?x=1 HTTP/1.1")
    expect(head).toMatch(/\r\nAccept: application\/json\r\n/)
    expect(head).not.toMatch(/text\/event-stream/)
    expect(head).toMatch(/\r\nx-token: t\r\n/)
    const length = Buffer.byteLength(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }))
    expect(head.endsWith(`\r\ncontent-length: ${length}`)).toBe(true)
    // The server sent a session id that is not a valid header value: the answer is refused on arrival
    // (as node:http's client refuses it), and the id is not taken.
    await expect(transport.send({ jsonrpc: "2.0", id: 2, method: "ping" })).rejects.toThrow(
      /bad header value for "mcp-session-id"/,
    )
    expect(transport.sessionId).toBe("s1")
    expect(requests).toHaveLength(2)
  })
})
