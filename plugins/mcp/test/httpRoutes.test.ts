/**
 * `serveHttp`'s `routes`: other handlers under path prefixes of the MCP listener, on every transport (the
 * raw edge hands a routed request, even a hot-path POST, to `node:http`), after the Host/Origin checks and
 * before MCP dispatch, with the MCP endpoint serving beside them; routes that would take the endpoint or
 * the metadata document are refused at start.
 */
import { request } from "node:http"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ConfigError } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type HttpRoute, type McpHttpServerHandle, serveHttp, staticTokenAuth } from "../src/index.js"
import { demoService } from "./fixtures/service.js"

/** A request with any headers (Host included); the status and body. */
const send = (
  url: URL,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers: {
          ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          text += chunk
        })
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on("error", reject)
    req.end(body)
  })

/** Echoes what it got, reading the body as a node:http request stream. */
const echo: HttpRoute = {
  path: "/extra",
  handle: async (req, res) => {
    let body = ""
    req.setEncoding("utf8")
    for await (const chunk of req) body += chunk
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ method: req.method, url: req.url, body }))
  },
}
const failing: HttpRoute = {
  path: "/extra/failing",
  handle: async () => {
    throw new Error("route failed")
  },
}

describe.each(["raw", "node", "sdk"] as const)("serveHttp routes (%s transport)", (transport) => {
  let server: McpHttpServerHandle
  const errors: unknown[] = []

  beforeAll(async () => {
    server = await serveHttp(demoService(), {
      transport,
      routes: [echo, failing],
      auth: staticTokenAuth([{ token: "route-test-token-0123456789", clientId: "c" }]),
      onError: (error) => errors.push(error),
    })
  })
  afterAll(async () => {
    await server?.close()
  })

  it("routes a hot-path POST and a GET below the prefix, with node:http's request, before auth", async () => {
    const base = new URL(server.url)
    const posted = await send(
      new URL("/extra?x=1", base),
      "POST",
      { "content-type": "application/json" },
      '{"a":1}',
    )
    expect(posted.status).toBe(200)
    expect(JSON.parse(posted.body)).toEqual({ method: "POST", url: "/extra?x=1", body: '{"a":1}' })
    const below = await send(new URL("/extra/deeper/path", base), "GET")
    expect(JSON.parse(below.body)).toMatchObject({ method: "GET", url: "/extra/deeper/path" })
    // Not a prefix match: /extras is not below /extra (the MCP server's 404).
    expect((await send(new URL("/extras", base), "GET")).status).toBe(404)
    // The longest route wins; a failing one is a 500, reported to onError.
    expect((await send(new URL("/extra/failing", base), "GET")).status).toBe(500)
    expect(errors.map((e) => (e as Error).message)).toContain("route failed")
  })

  it("checks Host and Origin first, as for the endpoint", async () => {
    const base = new URL(server.url)
    expect((await send(new URL("/extra", base), "GET", { host: `evil.example:${base.port}` })).status).toBe(
      403,
    )
    expect(
      (await send(new URL("/extra", base), "POST", { origin: "http://evil.example" }, "{}")).status,
    ).toBe(403)
    expect((await send(new URL("/extra", base), "GET", { origin: base.origin })).status).toBe(200)
  })

  it("keeps the MCP endpoint serving beside the routes (and its auth)", async () => {
    expect(
      (await send(new URL(server.url), "POST", { "content-type": "application/json" }, "{}")).status,
    ).toBe(401)
    const client = new Client({ name: "beside", version: "1.0.0" })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: "Bearer route-test-token-0123456789" } },
      }),
    )
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    await client.close()
  })
})

describe("serveHttp routes: refused at start", () => {
  it.each([
    ["/mcp", "overlaps the MCP endpoint"],
    ["/mcp/x", "overlaps the MCP endpoint"],
    ["/", "would take the MCP endpoint"],
    ["/console/", 'not end with "/"'],
    ["console", 'must start with "/"'],
    ["/.well-known/oauth-protected-resource", "overlaps the protected-resource metadata path"],
  ])("%s", async (path, reason) => {
    const started = serveHttp(demoService(), { routes: [{ path, handle: () => {} }] })
    await expect(started).rejects.toBeInstanceOf(ConfigError)
    await expect(started).rejects.toThrow(reason)
  })

  it("a prefix routed twice", async () => {
    const handle = () => {}
    await expect(
      serveHttp(demoService(), {
        routes: [
          { path: "/a", handle },
          { path: "/a", handle },
        ],
      }),
    ).rejects.toThrow("routed twice")
  })
})
