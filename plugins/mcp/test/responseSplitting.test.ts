/**
 * A forged bearer token cannot write into the response: a JWT whose protected header carries CR LF (in a
 * `crit` entry, which `jose` names in its error before any signature check) is answered with one `401`
 * whose `WWW-Authenticate` holds fixed text only, on every transport, and the raw edge refuses to write a
 * header value with CR, LF or NUL as `node:http` does.
 */
import { connect } from "node:net"
import { exportJWK, generateKeyPair } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { jwtAuth, type McpHttpServerHandle, serveHttp } from "../src/index.js"
import { demoService } from "./fixtures/service.js"

const INJECTED = "x\r\nSet-Cookie: pwned=1\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nX-Injected: yes"

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

/** A token `jose` refuses for its `crit` header before it checks the (made-up) signature. */
const forgedToken = () =>
  `${b64({ alg: "ES256", kid: "k1", crit: [INJECTED], [INJECTED]: 1 })}.${b64({ sub: "x", exp: 9e9 })}.${Buffer.alloc(64).toString("base64url")}`

/** Sends `request` on a fresh connection and returns every byte the server wrote until it went quiet. */
const rawExchange = (port: number, request: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    let data = ""
    let quiet: ReturnType<typeof setTimeout> | undefined
    const done = () => {
      socket.destroy()
      resolve(data)
    }
    socket.on("data", (chunk: Buffer) => {
      data += chunk.toString("latin1")
      clearTimeout(quiet)
      quiet = setTimeout(done, 150)
    })
    socket.on("close", () => {
      clearTimeout(quiet)
      resolve(data)
    })
    socket.on("error", reject)
    socket.write(request)
  })

describe.each([undefined, "node", "raw", "sdk"] as const)(
  "a forged token on the %s transport",
  (transport) => {
    let server: McpHttpServerHandle
    beforeAll(async () => {
      const { publicKey } = await generateKeyPair("ES256")
      const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" }
      server = await serveHttp(demoService(), {
        ...(transport ? { transport } : {}),
        auth: jwtAuth({
          jwks: { keys: [jwk] },
          issuer: "https://auth.test",
          audience: "https://gw.test/mcp",
        }),
      })
    })
    afterAll(() => server.close())

    it("gets one 401 with a fixed challenge, and nothing injected on the wire", async () => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
      const wire = await rawExchange(
        server.port,
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\ncontent-type: application/json\r\n` +
          `accept: application/json, text/event-stream\r\nauthorization: Bearer ${forgedToken()}\r\n` +
          `content-length: ${body.length}\r\n\r\n${body}`,
      )
      expect(wire.toLowerCase()).not.toContain("set-cookie")
      expect(wire).not.toContain("X-Injected")
      expect(wire.match(/HTTP\/1\.1 \d{3}/g)).toEqual(["HTTP/1.1 401"])
      const challenge = /\r\nwww-authenticate: ([^\r\n]*)\r\n/i.exec(wire)?.[1]
      expect(challenge).toMatch(
        /^Bearer error="invalid_token", error_description="[ -!#-[\]-~]*", resource_metadata="/,
      )
    })
  },
)
