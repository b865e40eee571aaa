/**
 * Session ids on the node transport: an ended session stays ended for every spelling of its id (a
 * non-canonical base64url variant decodes to the same bytes), across a restart with the same secret,
 * and on a replica that starts after the end; ids expire after `sessionMaxAgeMs`, and a session idle
 * past `sessionIdleMs` is over (one process).
 */
import { afterEach, describe, expect, it } from "vitest"
import { type McpHttpServerHandle, memoryReplicaBus, serveHttp } from "../src/index.js"
import { demoService } from "./fixtures/service.js"

const SECRET = "a-shared-session-secret-0123456789"
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
}

const initialize = async (url: string): Promise<string> => {
  const res = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  })
  await res.text()
  const id = res.headers.get("mcp-session-id")
  expect(id).toBeTruthy()
  return id!
}

const ping = async (url: string, session: string): Promise<number> => {
  const res = await fetch(url, {
    method: "POST",
    headers: { ...HEADERS, "mcp-session-id": session },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  })
  await res.text()
  return res.status
}

const end = async (url: string, session: string): Promise<number> => {
  const res = await fetch(url, { method: "DELETE", headers: { ...HEADERS, "mcp-session-id": session } })
  await res.text()
  return res.status
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** Spellings of `id` that lenient base64url decoding reads as the same bytes. */
const variants = (id: string): string[] => {
  const last = BASE64URL.indexOf(id.at(-1)!)
  // The tag's last character carries 2 bits of the 16 bytes; its low 4 bits are padding.
  const sameBytes = BASE64URL[(last & ~15) | ((last & 15) ^ 1)]!
  return [`${id.slice(0, -1)}${sameBytes}`, `${id}=`, `${id}==`]
}

const servers: McpHttpServerHandle[] = []
const serve = async (options: Parameters<typeof serveHttp>[1]) => {
  const server = await serveHttp(demoService(), options)
  servers.push(server)
  return server
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

describe("session ids", () => {
  it("refuses every spelling of an ended session's id", async () => {
    const server = await serve({})
    const id = await initialize(server.url)
    for (const variant of variants(id)) expect(variant).not.toBe(id)
    expect(await end(server.url, id)).toBe(200)
    expect(await ping(server.url, id)).toBe(404)
    for (const variant of variants(id)) expect(await ping(server.url, variant)).toBe(404)
  })

  it("refuses a non-canonical spelling of a live session's id", async () => {
    const server = await serve({})
    const id = await initialize(server.url)
    expect(await ping(server.url, id)).toBe(200)
    for (const variant of variants(id)) expect(await ping(server.url, variant)).toBe(404)
  })

  it("keeps an ended session ended after a restart with the same secret", async () => {
    const first = await serve({ sessionSecret: SECRET })
    const id = await initialize(first.url)
    expect(await end(first.url, id)).toBe(200)
    await first.close()
    const second = await serve({ sessionSecret: SECRET })
    expect(await ping(second.url, id)).toBe(404)
  })

  it("keeps a session ended on one replica ended on a replica started after the end", async () => {
    const bus = memoryReplicaBus()
    const a = await serve({ sessionSecret: SECRET, bus })
    const ended = await initialize(a.url)
    const live = await initialize(a.url)
    expect(await end(a.url, ended)).toBe(200)
    const b = await serve({ sessionSecret: SECRET, bus })
    expect(await ping(b.url, ended)).toBe(404)
    // A session the fleet still has is served by the new replica (rebuilt from its id).
    expect(await ping(b.url, live)).toBe(200)
  })

  it("refuses an id older than sessionMaxAgeMs", async () => {
    const server = await serve({ sessionMaxAgeMs: 1000 })
    const id = await initialize(server.url)
    expect(await ping(server.url, id)).toBe(200)
    await new Promise((r) => setTimeout(r, 2100))
    expect(await ping(server.url, id)).toBe(404)
  })

  it("ends a session idle past sessionIdleMs (one process)", async () => {
    const server = await serve({ sessionIdleMs: 200 })
    const id = await initialize(server.url)
    expect(await ping(server.url, id)).toBe(200)
    await new Promise((r) => setTimeout(r, 700))
    expect(await ping(server.url, id)).toBe(404)
  })
})
