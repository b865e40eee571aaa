/**
 * The relay fast path end to end: a gateway (`serveHttp`, node transport) over a runner whose backend is
 * a hand-written MCP server that lays its JSON out unlike `JSON.stringify` answers a single `tools/call`
 * with the upstream's exact bytes as its `result` member (as a JSON body, and as an SSE event once the
 * response has switched); a result a middleware changed is served changed; batches and the SDK transport
 * encode as before. Raw HTTP bodies are checked (an SDK client would parse them again).
 */
import { join } from "node:path"
import { createRunner, type ToolRunner } from "@toolplane/exec"
import { applyMiddleware, type Middleware, type ToolService, toContext } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpHttpServerHandle, mcpBackend, serveHttp } from "../src/index.js"

const here = import.meta.dirname
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }
/** What the upstream writes for `{ text: "hi", kind: "spaced" }` as its result member, byte for byte. */
const SPACED = '{ "content" : [ { "type" : "text", "text" : "hi {\\"}" } ] }'
/** The same result, encoded again. */
const ENCODED = '{"content":[{"type":"text","text":"hi {\\"}"}]}'

/** A raw client session against a gateway. */
const rawSession = async (server: McpHttpServerHandle) => {
  const init = await fetch(server.url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  })
  const session = init.headers.get("mcp-session-id")!
  await init.text()
  const post = async (body: unknown) => {
    const res = await fetch(server.url, {
      method: "POST",
      headers: { ...HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify(body),
    })
    return {
      type: res.headers.get("content-type"),
      length: res.headers.get("content-length"),
      body: await res.text(),
    }
  }
  await post({ jsonrpc: "2.0", method: "notifications/initialized" })
  return post
}

const call = (id: string | number, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "raw.echo", arguments: args },
})

/** Logs on each call before it runs: the gateway's answer switches to SSE. */
const logging: Middleware = (next) => ({
  listTools: (request) => next.listTools(request),
  callTool: (request) => {
    toContext(request.context).log({ level: "info", data: "calling" })
    return next.callTool(request)
  },
})

/** Replaces each result's content. */
const replacing: Middleware = (next) => ({
  listTools: (request) => next.listTools(request),
  callTool: async (request) => ({
    ...(await next.callTool(request)),
    content: [{ type: "text", text: "replaced" }],
  }),
})

describe("a gateway relaying an MCP upstream's result text", () => {
  let runner: ToolRunner
  const servers: McpHttpServerHandle[] = []
  const serve = async (service: ToolService, transport: "node" | "sdk" = "node") => {
    const server = await serveHttp(service, { transport })
    servers.push(server)
    return rawSession(server)
  }

  beforeAll(async () => {
    const backend = mcpBackend(
      {
        name: "raw",
        stdio: {
          command: process.execPath,
          args: [
            "--conditions=@toolplane/source",
            "--import",
            "tsx",
            join(here, "fixtures", "rawStdioServer.ts"),
          ],
          cwd: join(here, ".."),
        },
      },
      { requiresApproval: false },
    )
    runner = createRunner({ backends: [backend], hideUnsupportedCategories: false })
    await runner.ready()
  })
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()))
    await runner?.close()
  })

  it("answers a single tools/call with the upstream's exact result bytes, in a JSON body", async () => {
    const post = await serve(runner)
    for (const id of [7, 'a"id']) {
      const answer = await post(call(id, { text: "hi", kind: "spaced" }))
      expect(answer.type).toBe("application/json")
      expect(answer.body).toBe(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${SPACED}}`)
      expect(Number(answer.length)).toBe(Buffer.byteLength(answer.body))
    }
    // Multi-byte text: content-length counts bytes.
    const wide = await post(call(8, { text: "żółw 🐢" }))
    expect(Number(wide.length)).toBe(Buffer.byteLength(wide.body))
    expect(JSON.parse(wide.body).result).toEqual({ content: [{ type: "text", text: "żółw 🐢" }] })
  })

  it("writes the same bytes as one SSE event when the response switched to SSE", async () => {
    const post = await serve(applyMiddleware(runner, logging))
    const answer = await post(call(9, { text: "hi", kind: "spaced" }))
    expect(answer.type).toBe("text/event-stream")
    const events = answer.body.split("\n\n").filter((e) => e.length > 0)
    expect(events).toHaveLength(2)
    expect(events[0]).toMatch(/^event: message\ndata: \{.*"notifications\/message"/)
    expect(events[1]).toBe(`event: message\ndata: {"jsonrpc":"2.0","id":9,"result":${SPACED}}`)
  })

  it("serves a result a middleware changed, changed", async () => {
    const post = await serve(applyMiddleware(runner, replacing))
    const answer = await post(call(10, { text: "hi", kind: "spaced" }))
    expect(answer.body).toBe(
      '{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"replaced"}]}}',
    )
  })

  it("encodes tool failures and errors as before", async () => {
    const post = await serve(runner)
    const failed = JSON.parse((await post(call(11, { text: "x", kind: "rpcError" }))).body)
    expect(failed.id).toBe(11)
    expect(failed.result.isError).toBe(true)
    const missing = JSON.parse(
      (
        await post({
          jsonrpc: "2.0",
          id: 12,
          method: "tools/call",
          params: { name: "raw.nope", arguments: {} },
        })
      ).body,
    )
    expect(missing.id).toBe(12)
    expect(missing.error ?? missing.result.isError).toBeTruthy()
  })

  it("encodes the answers of a batch together, as before", async () => {
    const post = await serve(runner)
    const answer = await post([call(20, { text: "hi", kind: "spaced" }), call(21, { text: "b" })])
    expect(answer.body).toBe(
      `[{"jsonrpc":"2.0","id":20,"result":${ENCODED}},{"jsonrpc":"2.0","id":21,"result":{"content":[{"type":"text","text":"b"}]}}]`,
    )
  })

  it("the SDK transport encodes the result again", async () => {
    const post = await serve(runner, "sdk")
    const answer = await post(call(30, { text: "hi", kind: "spaced" }))
    const body = answer.type === "text/event-stream" ? answer.body.split("data: ")[1]!.trim() : answer.body
    expect(JSON.parse(body)).toEqual({ jsonrpc: "2.0", id: 30, result: JSON.parse(ENCODED) })
    expect(body).not.toContain(SPACED)
  })
})
