/**
 * SEP-2243 parameter headers on the client side: a modern `tools/call` mirrors each argument whose
 * inputSchema property is annotated with `x-mcp-header` into an `Mcp-Param-<name>` header, encoded as
 * the spec says (plain visible ASCII, or `=?base64?…?=` of the UTF-8 for anything else), and omits it for
 * an absent argument. A real loopback HTTP server (a minimal 2026-07-28 server) records the headers.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { makeContext } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { encodeParamHeaderValue } from "../src/client/paramHeaders.js"
import { mcpBackend } from "../src/index.js"

const TOOLS = [
  {
    name: "route",
    inputSchema: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        priority: { type: "integer", "x-mcp-header": "Priority" },
        verbose: { type: "boolean", "x-mcp-header": "Verbose" },
        label: { type: "string", "x-mcp-header": "Label" },
        query: { type: "string" },
      },
    },
  },
]

let server: Server
let url: string
const calls: IncomingHttpHeaders[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end()
      return
    }
    let body = ""
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8")
    })
    req.on("end", () => {
      const m = JSON.parse(body) as { id?: number; method: string }
      if (m.id === undefined) {
        res.writeHead(202).end()
        return
      }
      const result =
        m.method === "server/discover"
          ? {
              supportedVersions: ["2026-07-28"],
              capabilities: { tools: {} },
              serverInfo: { name: "param-headers", version: "1.0.0" },
            }
          : m.method === "tools/list"
            ? // 2026-07-28 requires the cache fields on a listing (SDK v2's client checks them)
              { tools: TOOLS, ttlMs: 0, cacheScope: "private" }
            : m.method === "tools/call"
              ? (calls.push(req.headers), { content: [{ type: "text", text: "ok" }] })
              : {}
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { resultType: "complete", ...result } }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

const paramHeaders = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith("mcp-param-")))

const b64 = (value: string) => `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`

describe("Mcp-Param headers of a modern tools/call", () => {
  for (const transport of ["node", "fetch"] as const)
    it(`mirrors annotated arguments, encoded per the spec (${transport} transport)`, async () => {
      const backend = mcpBackend(
        { name: "p", http: { url, transport } },
        { protocol: "2026-07-28", reconnect: false, requiresApproval: false },
      )
      try {
        await backend.connect()
        calls.length = 0
        await backend.execute(
          {
            toolId: "p/route",
            arguments: { region: "us-west1", priority: 42, verbose: false, label: "Hello, 世界", query: "x" },
          },
          makeContext(),
        )
        await backend.execute(
          {
            toolId: "p/route",
            arguments: { region: " padded ", priority: 1, label: "a\r\nX-Injected: 1" },
          },
          makeContext(),
        )
        expect(calls.map(paramHeaders)).toEqual([
          {
            "mcp-param-region": "us-west1",
            "mcp-param-priority": "42",
            "mcp-param-verbose": "false",
            "mcp-param-label": b64("Hello, 世界"),
          },
          {
            "mcp-param-region": b64(" padded "),
            "mcp-param-priority": "1",
            "mcp-param-label": b64("a\r\nX-Injected: 1"),
          },
        ])
        expect(calls[1]!["x-injected"]).toBeUndefined()
      } finally {
        await backend.close()
      }
    }, 15_000)
})

describe("encodeParamHeaderValue", () => {
  it("sends visible ASCII as it is and base64-encodes everything else", () => {
    expect(encodeParamHeaderValue("us west 1")).toBe("us west 1")
    expect(encodeParamHeaderValue("")).toBe("")
    expect(encodeParamHeaderValue("a\tb")).toBe(b64("a\tb"))
    expect(encodeParamHeaderValue("trailing ")).toBe(b64("trailing "))
    expect(encodeParamHeaderValue("=?base64?eA==?=")).toBe(b64("=?base64?eA==?="))
    expect(encodeParamHeaderValue("é")).toBe(b64("é"))
  })
})
