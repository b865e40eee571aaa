import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer, type Server as HttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { aliasing, argumentOverrides, compositeTools } from "@toolplane/compose"
import { createRunner, type ToolRunner } from "@toolplane/exec"
import {
  applyMiddleware,
  defineEnricher,
  isToolError,
  type Middleware,
  makeContext,
  type ToolResult,
  type ToolService,
} from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { type McpBackend, mcpBackend } from "../src/index.js"
import { relayedText, resultJson, resultSpan } from "../src/internal/resultJson.js"
import { textOf } from "./fixtures/everything.js"

const here = import.meta.dirname
const tsx = (file: string, ...args: string[]) => ({
  command: process.execPath,
  args: ["--conditions=@toolplane/source", "--import", "tsx", join(here, "fixtures", file), ...args],
  cwd: join(here, ".."),
})

/** Whether a process runs (a zombie waiting for its reaper does not). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return true
  }
}

describe("resultSpan", () => {
  it("finds the result member whatever the key order and spacing", () => {
    expect(resultSpan('{"result":{"content":[]},"jsonrpc":"2.0","id":1}')).toBe('{"content":[]}')
    expect(resultSpan('{"jsonrpc":"2.0","id":"a","result":{"content":[]}}')).toBe('{"content":[]}')
    expect(resultSpan(' { "id" : 1 , "result" : { "a" : [ 1 , 2 ] } , "jsonrpc" : "2.0" } ')).toBe(
      '{ "a" : [ 1 , 2 ] }',
    )
  })

  it("skips braces, quotes and backslashes inside strings", () => {
    const result = { content: [{ type: "text", text: 'a "}]{[" \\" \\\\ end\\' }] }
    const message = JSON.stringify({ result, jsonrpc: "2.0", id: 7 })
    expect(resultSpan(message)).toBe(JSON.stringify(result))
    const after = JSON.stringify({ jsonrpc: "2.0", result, id: 'x"}' })
    expect(resultSpan(after)).toBe(JSON.stringify(result))
  })

  it("refuses a message with two result members, none, or not one object", () => {
    expect(resultSpan('{"result":{"a":1},"id":1,"result":{"a":2}}')).toBeNull()
    // An escaped key is still the key it spells.
    expect(resultSpan('{"result":{"a":1},"id":1,"res\\u0075lt":{"a":2}}')).toBeNull()
    expect(resultSpan('{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}')).toBeNull()
    expect(resultSpan('[{"jsonrpc":"2.0","id":1,"result":{}}]')).toBeNull()
    expect(resultSpan("{}")).toBeNull()
  })
})

describe("the lean stdio transport against a hand-written MCP server", () => {
  let backend: McpBackend
  beforeAll(async () => {
    backend = mcpBackend({ name: "raw", stdio: tsx("rawStdioServer.ts") }, { requiresApproval: false })
    await backend.connect()
  })
  afterAll(async () => {
    await backend?.close()
  })
  const call = (text: string, kind?: string) =>
    backend.execute(
      { toolId: "raw/echo", arguments: kind === undefined ? { text } : { text, kind } },
      makeContext(),
    )

  it("keeps the server's own result text, served verbatim when the result is unchanged", async () => {
    const result = await call("hello", "spaced")
    expect(textOf(result)).toBe('hello {"}')
    const text = resultJson(result)
    // The server's spacing, not JSON.stringify's: the bytes it sent.
    expect(text).toBe('{ "content" : [ { "type" : "text", "text" : "hello {\\"}" } ] }')
    expect(JSON.parse(text)).toEqual({ content: [{ type: "text", text: 'hello {"}' }] })
  })

  it("reads a message written in pieces, after a banner line, with CRLF, and a 1 MB one", async () => {
    expect(textOf(await call("in pieces", "split"))).toBe("in pieces")
    expect(textOf(await call("after a banner", "banner"))).toBe("after a banner")
    expect(textOf(await call("crlf", "crlf"))).toBe("crlf")
    const big = await call("0123456789", "big")
    expect(textOf(big)).toBe("0123456789".repeat(200_000))
    expect(JSON.parse(resultJson(big))).toEqual({ content: [{ type: "text", text: textOf(big) }] })
    // Many answers in one read: concurrent calls each get their own.
    const many = await Promise.all(Array.from({ length: 50 }, (_, i) => call(`n${i}`)))
    expect(many.map(textOf)).toEqual(Array.from({ length: 50 }, (_, i) => `n${i}`))
  })

  it("falls back to the SDK's schema when the shape check fails", async () => {
    // No content: the SDK schema's default.
    const empty = await call("x", "noContent")
    expect(empty.content).toEqual([])
    expect(relayedText(empty)).toBeUndefined()
    expect(resultJson(empty)).toBe('{"content":[]}')
    // A text block without its text: rejected, with a typed error.
    const bad = await call("x", "badBlock").then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(isToolError(bad)).toBe(true)
    expect(String((bad as Error).message)).toMatch(/text/)
    // The connection survives.
    expect(textOf(await call("still here"))).toBe("still here")
  })

  it("maps a JSON-RPC error answer to a typed error, and keeps its ids apart from the SDK client's requests", async () => {
    const failed = await call("x", "rpcError").then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(isToolError(failed)).toBe(true)
    expect((failed as Error).message).toMatch(/upstream broke: x/)
    // tools/call answers are taken off the transport; pings and listings still go through the SDK client.
    const [calls, pings, tools] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, (_, i) => call(`c${i}`, i % 2 === 0 ? "slow" : undefined))),
      Promise.all(Array.from({ length: 5 }, () => backend.healthCheck())),
      backend.refresh(),
    ])
    expect(calls.map(textOf)).toEqual(Array.from({ length: 20 }, (_, i) => `c${i}`))
    expect(pings).toEqual([true, true, true, true, true])
    expect(tools.map((t) => t.id)).toEqual(["raw/echo"])
  })

  it("never relays text that has more than the result, or a result the text does not pin down", async () => {
    const extra = await call("x", "extraField")
    expect(relayedText(extra)).toBeUndefined()
    expect(resultJson(extra)).toBe('{"content":[{"type":"text","text":"x"}]}')
    const multiLine = await call("cr", "innerCr")
    expect(textOf(multiLine)).toBe("cr")
    expect(relayedText(multiLine)).toBeUndefined()
    expect(resultJson(multiLine)).toBe('{"content":[{"type":"text","text":"cr"}]}')
    const duplicate = await call("second", "duplicate")
    expect(textOf(duplicate)).toBe("second")
    expect(relayedText(duplicate)).toBeUndefined()
    expect(resultJson(duplicate)).toBe('{"content":[{"type":"text","text":"second"}]}')
  })

  it("with processGroup, stops the server's whole process group on close (the SDK's transport leaves a grandchild behind)", async () => {
    const grandchildAfterClose = async (transport: "node" | "sdk"): Promise<number> => {
      const grouped = mcpBackend(
        {
          name: "grouped",
          stdio: {
            ...tsx("rawStdioServer.ts", "--grandchild"),
            transport,
            processGroup: transport === "node",
          },
        },
        { requiresApproval: false },
      )
      await grouped.connect()
      const answer = await grouped.execute(
        { toolId: "grouped/echo", arguments: { text: "a" } },
        makeContext(),
      )
      expect(textOf(answer)).toBe("a")
      let tail = grouped.status().stderrTail ?? ""
      for (let i = 0; i < 100 && !/grandchild=\d+/.test(tail); i++) {
        await new Promise((r) => setTimeout(r, 20))
        tail = grouped.status().stderrTail ?? ""
      }
      const pid = Number(/grandchild=(\d+)/.exec(tail)![1])
      expect(alive(pid)).toBe(true)
      await grouped.close()
      for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20))
      return pid
    }
    expect(alive(await grandchildAfterClose("node"))).toBe(false)
    const left = await grandchildAfterClose("sdk")
    try {
      expect(alive(left)).toBe(true)
    } finally {
      process.kill(left, "SIGKILL")
    }
  })

  it("fails fast on a command that does not exist", async () => {
    const missing = mcpBackend(
      { name: "missing", stdio: { command: "/nonexistent/toolplane-no-such-server" } },
      { requiresApproval: false },
    )
    const started = Date.now()
    await expect(missing.connect()).rejects.toMatchObject({ _tag: "BackendUnavailable" })
    expect(Date.now() - started).toBeLessThan(1500)
    expect(missing.status().lastError).toMatch(/ENOENT/)
    await missing.close()
  })

  it("still offers the SDK's stdio transport", async () => {
    const sdk = mcpBackend(
      { name: "sdk", stdio: { ...tsx("rawStdioServer.ts"), transport: "sdk" } },
      { requiresApproval: false },
    )
    try {
      await sdk.connect()
      expect(sdk.status().pid).toBeGreaterThan(0)
      const result = await sdk.execute(
        { toolId: "sdk/echo", arguments: { text: "via sdk", kind: "spaced" } },
        makeContext(),
      )
      expect(textOf(result)).toBe('via sdk {"}')
      // The SDK transport keeps no text: the result is encoded again, correctly.
      expect(relayedText(result)).toBeUndefined()
      expect(JSON.parse(resultJson(result))).toEqual({ content: [{ type: "text", text: 'via sdk {"}' }] })
    } finally {
      await sdk.close()
    }
  })
})

/** A middleware that changes results on their way out. */
const onResults =
  (change: (result: ToolResult) => ToolResult): Middleware =>
  (next) => ({
    listTools: (request) => next.listTools(request),
    callTool: async (request) => change(await next.callTool(request)),
  })

describe("relaying through the runner and the gateway layers (SDK server over stdio)", () => {
  let backend: McpBackend
  let runner: ToolRunner
  beforeAll(async () => {
    backend = mcpBackend({ name: "up", stdio: tsx("relayServer.ts") }, { requiresApproval: false })
    runner = createRunner({
      backends: [backend],
      hideUnsupportedCategories: false,
      enrichers: [
        defineEnricher({
          name: "shout",
          categories: [],
          transformArgs: (id, args) =>
            id === "up/echo" && args.text === "shout" ? { ...args, text: "SHOUT" } : args,
        }),
      ],
    })
    await runner.ready()
  })
  afterAll(async () => {
    await runner?.close()
  })
  const via = (service: ToolService, name: string, args: Record<string, unknown>) =>
    service.callTool({ name, arguments: args, context: makeContext() })

  it("relays an untouched result's text, and one whose arguments an enricher rewrote", async () => {
    const plain = await via(runner, "up/echo", { text: "plain" })
    expect(relayedText(plain)).toBe('{"content":[{"type":"text","text":"plain"}]}')
    expect(resultJson(plain)).toBe('{"content":[{"type":"text","text":"plain"}]}')
    const shouted = await via(runner, "up/echo", { text: "shout" })
    expect(resultJson(shouted)).toBe('{"content":[{"type":"text","text":"SHOUT"}]}')
    const structured = await via(runner, "up/structured", { n: 21 })
    expect(JSON.parse(resultJson(structured))).toEqual({
      content: [{ type: "text", text: '{"doubled":42}' }],
      structuredContent: { doubled: 42 },
    })
    expect(relayedText(structured)).toBeDefined()
  })

  it("relays through aliases and argument overrides, with the answer to the rewritten call", async () => {
    const stack = applyMiddleware(
      runner,
      argumentOverrides({ "up/echo": { text: { value: "injected" } } }),
      aliasing({ "up/echo": "short/say" }),
    )
    const result = await via(stack, "short/say", {})
    expect(resultJson(result)).toBe('{"content":[{"type":"text","text":"injected"}]}')
    expect(relayedText(result)).toBeDefined()
  })

  it("serves what a composite tool built, not a target's text", async () => {
    const stack = applyMiddleware(runner, compositeTools([{ name: "both", tools: ["up/echo", "up/page"] }]))
    const result = await via(stack, "composite/both", { text: "c" })
    expect(relayedText(result)).toBeUndefined()
    const served = JSON.parse(resultJson(result)) as ToolResult
    expect(served.content.map((b) => (b as { text: string }).text)).toEqual([
      "[up/echo]",
      "c",
      "[up/page]",
      "c",
    ])
    expect(served.structuredContent).toBeDefined()
  })

  it("serves the signed continuation cursor, never the upstream's _meta", async () => {
    const result = await via(runner, "up/page", { text: "p" })
    expect(result.nextCursor).toBeDefined()
    const served = JSON.parse(resultJson(result)) as { _meta: Record<string, unknown> }
    expect(served._meta["toolplane.dev/nextCursor"]).toBe(result.nextCursor)
    expect(served._meta["toolplane.dev/nextCursor"]).not.toBe("opaque-upstream-cursor")
  })

  it("serves what a result-changing middleware made, whether it copies or mutates", async () => {
    const cases: [string, Middleware, string][] = [
      [
        "copy with new content",
        onResults((r) => ({ ...r, content: [{ type: "text", text: "replaced" }] })),
        '{"content":[{"type":"text","text":"replaced"}]}',
      ],
      ["copy unchanged", onResults((r) => ({ ...r })), '{"content":[{"type":"text","text":"m"}]}'],
      [
        "a block pushed",
        onResults((r) => {
          ;(r.content as unknown[]).push({ type: "text", text: "more" })
          return r
        }),
        '{"content":[{"type":"text","text":"m"},{"type":"text","text":"more"}]}',
      ],
      [
        "a block replaced",
        onResults((r) => {
          ;(r.content as unknown[])[0] = { type: "text", text: "swapped" }
          return r
        }),
        '{"content":[{"type":"text","text":"swapped"}]}',
      ],
      [
        "a block's text rewritten",
        onResults((r) => {
          ;(r.content[0] as { text: string }).text = "redacted"
          return r
        }),
        '{"content":[{"type":"text","text":"redacted"}]}',
      ],
      [
        "marked as an error",
        onResults((r) => {
          ;(r as { isError?: boolean }).isError = true
          return r
        }),
        '{"content":[{"type":"text","text":"m"}],"isError":true}',
      ],
      [
        "_meta added",
        onResults((r) => ({ ...r, _meta: { seen: true } })),
        '{"content":[{"type":"text","text":"m"}],"_meta":{"seen":true}}',
      ],
    ]
    for (const [what, middleware, expected] of cases) {
      const result = await via(applyMiddleware(runner, middleware), "up/echo", { text: "m" })
      expect(resultJson(result), what).toBe(expected)
    }
  })
})

/** An SDK McpServer per session over Streamable HTTP on 127.0.0.1, answering with JSON or SSE. */
const sdkHttpServer = async (json: boolean): Promise<{ url: string; close: () => Promise<void> }> => {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const http: HttpServer = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"] as string | undefined
    const existing = id ? sessions.get(id) : undefined
    if (existing) return existing.handleRequest(req, res)
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: json,
      onsessioninitialized: (sid) => {
        sessions.set(sid, transport)
      },
    })
    const server = new McpServer({ name: "relay-http", version: "1.0.0" })
    server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: "text", text }],
    }))
    await server.connect(transport)
    await transport.handleRequest(req, res)
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => {})
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    },
  }
}

describe("relaying over Streamable HTTP (SDK server)", () => {
  it.each([
    ["JSON answers", true],
    ["SSE answers", false],
  ])("keeps the text of %s with the node transport, not with fetch", async (_what, json) => {
    const server = await sdkHttpServer(json)
    const node = mcpBackend({ name: "node", http: { url: server.url } }, { requiresApproval: false })
    const fetched = mcpBackend(
      { name: "fetched", http: { url: server.url, transport: "fetch" } },
      { requiresApproval: false },
    )
    try {
      const viaNode = await node.execute({ toolId: "node/echo", arguments: { text: 'a "b"' } }, makeContext())
      expect(relayedText(viaNode)).toBe('{"content":[{"type":"text","text":"a \\"b\\""}]}')
      const viaFetch = await fetched.execute(
        { toolId: "fetched/echo", arguments: { text: 'a "b"' } },
        makeContext(),
      )
      expect(relayedText(viaFetch)).toBeUndefined()
      expect(resultJson(viaFetch)).toBe(resultJson(viaNode))
    } finally {
      await Promise.all([node.close(), fetched.close()])
      await server.close()
    }
  })
})
