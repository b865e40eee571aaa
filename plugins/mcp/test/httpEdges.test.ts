/**
 * HTTP edge cases of `serveHttp`, with raw requests: a 413 closes the connection honestly, malformed
 * params are `-32602` with a readable message, an empty JSON array is `-32600`, a client that
 * disconnects cancels its call, and an upstream error reaches the client with one "MCP error" prefix.
 */
import { randomUUID } from "node:crypto"
import { createServer, type Server as HttpServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import {
  type ExecutionContext,
  type ResourceCatalog,
  resourceProviderOf,
  type ToolService,
} from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { type McpHttpServerHandle, mcpBackend, serveHttp } from "../src/index.js"
import { demoService } from "./fixtures/service.js"

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }

describe.each(["raw", "node", "sdk"] as const)("serveHttp edge cases (%s transport)", (transport) => {
  const service = demoService()
  let server: McpHttpServerHandle
  let session: string

  const post = (body: string, signal?: AbortSignal) =>
    fetch(server.url, {
      method: "POST",
      headers: { ...HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      body,
      ...(signal ? { signal } : {}),
    })

  beforeAll(async () => {
    server = await serveHttp(service, { transport })
    const init = await fetch(server.url, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    })
    session = init.headers.get("mcp-session-id")!
    await init.text()
    await (await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).text()
  })

  afterAll(async () => {
    await server?.close()
  })

  it("answers malformed params with -32602 and a readable message", async () => {
    const call = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: 5 } }),
    )
    expect(await call.json()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: {
        code: -32602,
        message: "Invalid params for tools/call: params.name: expected string, received number",
      },
    })
    const list = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { cursor: 5 } }),
    )
    expect(((await list.json()) as { error: { code: number; message: string } }).error).toEqual({
      code: -32602,
      message: "Invalid params for tools/list: params.cursor: expected string, received number",
    })
  })

  it("answers an empty JSON array with -32600", async () => {
    const res = await post("[]")
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600)
  })

  it("answers a too large body with 413 and Connection: close", async () => {
    const status = await new Promise<{ status: number; connection: string | undefined }>(
      (resolve, reject) => {
        const req = request(server.url, {
          method: "POST",
          headers: { ...HEADERS, "mcp-session-id": session, "content-length": String(5 * 1024 * 1024) },
        })
        req.on("response", (res) => {
          res.resume()
          resolve({ status: res.statusCode!, connection: res.headers.connection })
        })
        req.on("error", reject)
        req.write(Buffer.alloc(64 * 1024, 97))
      },
    )
    expect(status).toEqual({ status: 413, connection: "close" })
  })

  // The SDK's own transport refuses a sessionless non-initialize POST before it reads the body.
  it.each([
    ["in a session", true],
    ...(transport === "sdk" ? [] : [["without a session", false] as const]),
  ] as const)(
    "answers a too large body sent without a length (chunked) with 413 (%s)",
    async (_, inSession) => {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(server.url, {
          method: "POST",
          headers: { ...HEADERS, ...(inSession ? { "mcp-session-id": session } : {}) },
        })
        req.on("response", (res) => {
          let body = ""
          res.setEncoding("utf8")
          res.on("data", (chunk: string) => {
            body += chunk
          })
          res.on("end", () => resolve({ status: res.statusCode!, body }))
        })
        // The server may answer and close before the whole body is written.
        req.on("error", (error) => (error.message.includes("EPIPE") ? undefined : reject(error)))
        req.end(Buffer.alloc(5 * 1024 * 1024, 32))
      })
      expect(answer.status).toBe(413)
      expect(answer.body).toContain("Payload Too Large: Request body must not exceed 4194304 bytes")
    },
  )

  it("cancels the call of a client that disconnects before the answer", async () => {
    const before = service.aborted.length
    const controller = new AbortController()
    const pending = post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "demo.slow", arguments: { steps: 50, delayMs: 100 } },
      }),
      controller.signal,
    )
      .then((res) => res.text())
      .catch(() => undefined)
    await new Promise((r) => setTimeout(r, 300))
    // fetch's abort closes the connection: the gateway must cancel the call, not let it run 5 s.
    controller.abort()
    await pending
    await expect.poll(() => service.aborted.length, { timeout: 5000 }).toBeGreaterThan(before)
  })
})

describe("errors relayed from an upstream MCP server", () => {
  let upstream: HttpServer
  let served: McpHttpServerHandle
  let close: () => Promise<void>

  beforeAll(async () => {
    const sessions = new Map<string, StreamableHTTPServerTransport>()
    upstream = createServer(async (req, res) => {
      const id = req.headers["mcp-session-id"]
      const existing = typeof id === "string" ? sessions.get(id) : undefined
      if (existing) return existing.handleRequest(req, res)
      const server = new McpServer({ name: "up", version: "1" })
      server.registerPrompt("needs", { argsSchema: { who: z.string() } }, async ({ who }) => ({
        messages: [{ role: "user", content: { type: "text", text: who } }],
      }))
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, transport)
        },
      })
      await server.connect(transport)
      await transport.handleRequest(req, res)
    })
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve))
    const backend = mcpBackend({
      name: "up",
      http: { url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp` },
    })
    await backend.connect()
    const provider = resourceProviderOf(backend)!
    // A minimal catalog over the one provider (compose's resourceCatalog is not a dependency here).
    const catalog: ResourceCatalog = {
      capabilities: () => provider.capabilities(),
      listResources: async () => ({ items: [] }),
      listResourceTemplates: async () => ({ items: [] }),
      readResource: (uri, ctx) => provider.readResource!(uri, ctx),
      subscribe: async () => {},
      unsubscribe: async () => {},
      unsubscribeAll: async () => {},
      onResourceUpdated: () => () => {},
      listPrompts: async ({ context }) => ({ items: await provider.listPrompts!(context) }),
      getPrompt: (name, args, ctx) => provider.getPrompt!(name, args, ctx),
      complete: (request, ctx) => provider.complete!(request, ctx),
      onListChanged: () => () => {},
      close: () => {},
    }
    served = await serveHttp(demoService(), { catalog })
    close = async () => {
      await served.close()
      await backend.close()
      upstream.closeAllConnections()
      await new Promise<void>((resolve) => upstream.close(() => resolve()))
    }
  })

  afterAll(async () => {
    await close?.()
  })

  it('shows the upstream message with one "MCP error" prefix', async () => {
    const client = new Client({ name: "t", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)))
    const error = await client.getPrompt({ name: "needs", arguments: {} }).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error?.message).toMatch(/^MCP error -32602: /)
    expect(error?.message.match(/MCP error/g)).toHaveLength(1)
    await client.close()
  })
})

describe("progress across a retried call", () => {
  it("stays monotonic when the second attempt starts counting again", async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
    const service: ToolService = {
      listTools: async () => ({ tools: [] }),
      callTool: async ({ context }) => {
        const ctx = context as ExecutionContext
        // Attempt 1 reports 1..3 of 3 and fails; attempt 2 (a retry below the server) reports 1..2 of 2.
        for (const p of [1, 2, 3]) {
          ctx.reportProgress({ progress: p, total: 3 })
          await sleep(20)
        }
        for (const p of [1, 2]) {
          ctx.reportProgress({ progress: p, total: 2, message: `retry step ${p}` })
          await sleep(20)
        }
        return { content: [{ type: "text", text: "done" }] }
      },
    }
    const server = await serveHttp(service, { naming: { toMcp: (t) => t.name, fromMcp: (n) => `x/${n}` } })
    const client = new Client({ name: "t", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    const seen: number[] = []
    await client.callTool({ name: "anything", arguments: {} }, undefined, {
      onprogress: (p) => {
        seen.push(p.progress)
      },
    })
    expect(seen).toEqual([1, 2, 3, 4, 5])
    await client.close()
    await server.close()
  })
})
