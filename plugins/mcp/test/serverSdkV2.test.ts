/**
 * The 2025-era serving runs on MCP SDK v2's `Server`: what `createMcpServer` returns, what a request that
 * reaches the SDK's protocol layer (not the direct dispatch of the session transports) is answered by,
 * with this plugin's corrections (readable `-32602`s, no "MCP error" prefix on the wire), and the `"sdk"`
 * HTTP transport (SDK v2's web-standard one) with an SDK v1 client: calls, list changes on the GET
 * stream, and the session's end.
 */
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { InMemoryTransport, type JSONRPCMessage, Server } from "@modelcontextprotocol/server"
import { defineTool } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { createMcpServer, serveHttp } from "../src/index.js"
import { demoService } from "./fixtures/service.js"

/** A server on an in-memory pair, driven by raw JSON-RPC messages (no client-side validation). */
const rawSession = async () => {
  const server = createMcpServer(demoService())
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const answers = new Map<number, Record<string, unknown>>()
  const waiting = new Map<number, (answer: Record<string, unknown>) => void>()
  clientSide.onmessage = (message) => {
    const m = message as Record<string, unknown>
    if (typeof m.id !== "number") return
    answers.set(m.id, m)
    waiting.get(m.id)?.(m)
  }
  await server.connect(serverSide)
  await clientSide.start()
  let next = 1
  const request = (method: string, params: unknown): Promise<Record<string, unknown>> => {
    const id = next++
    const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve))
    void clientSide.send({ jsonrpc: "2.0", id, method, params } as JSONRPCMessage)
    return answered
  }
  const init = await request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
  })
  await clientSide.send({ jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage)
  return { server, init, request, close: () => server.close() }
}

describe("2025-era serving on SDK v2's Server", () => {
  it("createMcpServer returns SDK v2's Server, which negotiates a 2025 revision", async () => {
    const session = await rawSession()
    try {
      expect(session.server).toBeInstanceOf(Server)
      expect(session.init.result).toMatchObject({
        protocolVersion: "2025-11-25",
        serverInfo: { name: "toolplane" },
        capabilities: { tools: { listChanged: true }, logging: {} },
      })
      const called = await session.request("tools/call", { name: "demo.echo", arguments: { text: "v2" } })
      expect(called.result).toMatchObject({ content: [{ type: "text", text: "v2" }] })
    } finally {
      await session.close()
    }
  })

  it("answers params that do not match the method's schema with a readable -32602", async () => {
    const session = await rawSession()
    try {
      expect((await session.request("tools/call", { name: 7 })).error).toEqual({
        code: -32602,
        message: "Invalid params for tools/call: params.name: expected string, received number",
      })
      expect((await session.request("tools/list", { cursor: 3 })).error).toEqual({
        code: -32602,
        message: "Invalid params for tools/list: params.cursor: expected string, received number",
      })
    } finally {
      await session.close()
    }
  })

  it("sends a wire error's message without the MCP error prefix", async () => {
    const session = await rawSession()
    try {
      const answer = await session.request("tools/call", { name: "demo.ecko", arguments: {} })
      const error = answer.error as { code: number; message: string }
      expect(error.code).toBe(-32602)
      expect(error.message).toMatch(/^Unknown tool "demo\.ecko"; did you mean "demo\.echo"/)
    } finally {
      await session.close()
    }
  })

  it("serves an SDK v1 client over the sdk transport: calls, list changes on the GET stream, session end", async () => {
    const service = demoService()
    const handle = await serveHttp(service, { transport: "sdk" })
    const client = new ClientV1({ name: "v1", version: "0" })
    const transport = new StreamableHTTPClientTransport(new URL(handle.url))
    try {
      await client.connect(transport)
      expect(handle.connections()).toBe(1)
      const result = await client.callTool({ name: "demo.echo", arguments: { text: "over sdk" } })
      expect(result.content).toEqual([{ type: "text", text: "over sdk" }])
      const changed = new Promise<void>((resolve) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
      )
      // The GET stream opens after the handshake; give it a moment before the change is sent.
      await new Promise((r) => setTimeout(r, 100))
      service.add(defineTool({ id: "demo/late", handler: () => "late" }))
      handle.notifyToolsChanged()
      await changed
      expect((await client.callTool({ name: "demo.late", arguments: {} })).content).toEqual([
        { type: "text", text: "late" },
      ])
      await transport.terminateSession()
      const deadline = Date.now() + 2000
      while (handle.connections() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      expect(handle.connections()).toBe(0)
    } finally {
      await client.close().catch(() => {})
      await handle.close()
    }
  })
})
