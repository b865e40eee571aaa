/**
 * Two `serveHttp` replicas (node transport) sharing a session secret and a `memoryReplicaBus`, and an
 * MCP SDK client whose requests are routed between them per request (no affinity): a resource
 * subscription made on one replica is notified on the GET stream held by the other; an elicitation sent
 * by one is answered through the other; a cancellation sent to the other cancels the call; list changes
 * are sent once, by the replica holding the GET stream; a session ended on one is gone on both; ids
 * not signed with the shared secret are refused.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js"
import { defineTool, type ResourceCatalog } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpHttpServerHandle, memoryReplicaBus, serveHttp } from "../src/index.js"
import { demoService } from "./fixtures/service.js"

/** A catalog with one subscribable resource; `fire()` reports an update to its subscribers. */
const fakeCatalog = () => {
  const subscribers = new Set<string>()
  const listeners = new Set<(uri: string, subs: readonly string[]) => void>()
  const empty = async () => ({ items: [] })
  const catalog: ResourceCatalog = {
    capabilities: () => ({ resources: { subscribe: true } }),
    listResources: async () => ({ items: [{ uri: "demo://clock", name: "clock" }] }),
    listResourceTemplates: empty,
    readResource: async (uri) => ({ contents: [{ uri, text: "now" }] }),
    subscribe: async (_uri, subscriber) => {
      subscribers.add(subscriber)
    },
    unsubscribe: async (_uri, subscriber) => {
      subscribers.delete(subscriber)
    },
    unsubscribeAll: async (subscriber) => {
      subscribers.delete(subscriber)
    },
    onResourceUpdated: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    listPrompts: empty,
    getPrompt: async () => ({ messages: [] }),
    complete: async () => ({ values: [] }),
    onListChanged: () => () => {},
    close: () => {},
  }
  return {
    catalog,
    subscribers,
    fire: () => {
      for (const listener of listeners) listener("demo://clock", [...subscribers])
    },
  }
}

type Route = (method: string, rpc: string) => 0 | 1

describe("serveHttp replicas sharing a session secret and a bus", () => {
  const secret = "replica-secret-0123456789abcdef"
  const bus = memoryReplicaBus()
  const service = demoService()
  service.add(
    defineTool({
      id: "demo/ask",
      description: "Asks the user",
      handler: async (_args, ctx) => {
        const answer = await ctx.client.elicitInput!({
          message: "proceed?",
          requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
        })
        return JSON.stringify(answer)
      },
    }),
  )
  const catalogs = [fakeCatalog(), fakeCatalog()]
  let replicas: McpHttpServerHandle[] = []
  /** Which replica each request went to: `[replica, "POST tools/call"]`. */
  const log: [number, string][] = []
  let route: Route = () => 0

  /** A fetch that sends each request to the replica `route` picks. */
  const routedFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const method = init?.method ?? "GET"
    let rpc = ""
    if (typeof init?.body === "string") {
      const m = JSON.parse(init.body) as { method?: string; params?: { name?: string } }
      rpc = m.method ?? "response"
      if (m.method === "tools/call") rpc += ` ${m.params?.name}`
    }
    const replica = route(method, rpc)
    log.push([replica, `${method} ${rpc}`.trim()])
    const url = new URL(String(input instanceof Request ? input.url : input))
    return fetch(replicas[replica]!.url + url.search, init)
  }

  const connect = async () => {
    const client = new Client({ name: "rr", version: "1" }, { capabilities: { elicitation: {} } })
    await client.connect(new StreamableHTTPClientTransport(new URL(replicas[0]!.url), { fetch: routedFetch }))
    return client
  }

  beforeAll(async () => {
    replicas = await Promise.all(
      catalogs.map(({ catalog }) => serveHttp(service, { sessionSecret: secret, bus, catalog })),
    )
  })
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()))
  })

  it("notifies a subscription made on one replica on the GET stream held by the other", async () => {
    // GET streams to replica 1, everything else to replica 0.
    route = (method) => (method === "GET" ? 1 : 0)
    const client = await connect()
    const updates: string[] = []
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri)
    })
    await new Promise((r) => setTimeout(r, 100)) // the GET stream opens after initialize
    expect(log.some(([replica, what]) => replica === 1 && what === "GET")).toBe(true)
    await client.subscribeResource({ uri: "demo://clock" })
    expect(catalogs[0]!.subscribers.size).toBe(1)
    expect(catalogs[1]!.subscribers.size).toBe(0)
    catalogs[0]!.fire()
    const end = Date.now() + 3000
    while (updates.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20))
    await new Promise((r) => setTimeout(r, 100))
    expect(updates).toEqual(["demo://clock"])

    // List changes: each replica tells its own GET streams only, so the client hears one per change.
    let changed = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++
    })
    replicas[0]!.notifyToolsChanged()
    replicas[1]!.notifyToolsChanged()
    await new Promise((r) => setTimeout(r, 200))
    expect(changed).toBe(1)
    await client.close()
  })

  it("answers an elicitation sent by one replica through the other, and cancels across replicas", async () => {
    // Requests alternate strictly between the replicas.
    let n = 0
    route = () => (n++ % 2) as 0 | 1
    const client = await connect()
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { ok: true } }))
    for (let i = 0; i < 2; i++) {
      const before = log.length
      const result = await client.callTool({ name: "demo.ask", arguments: {} })
      expect(result.isError, JSON.stringify(result)).toBeFalsy()
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual({
        action: "accept",
        content: { ok: true },
      })
      const call = log.slice(before).find(([, what]) => what === "POST tools/call demo.ask")!
      const answer = log.slice(before).find(([, what]) => what === "POST response")!
      expect(answer[0]).not.toBe(call[0])
    }

    // A call on one replica, its cancellation (notifications/cancelled) posted to the other.
    const abortedBefore = service.aborted.length
    const controller = new AbortController()
    const call = client
      .callTool({ name: "demo.slow", arguments: { steps: 50, delayMs: 100 } }, undefined, {
        signal: controller.signal,
      })
      .catch((error: unknown) => error)
    await new Promise((r) => setTimeout(r, 150))
    controller.abort("changed my mind")
    expect(String(await call)).toMatch(/changed my mind|abort/i)
    const started = log.findLast(([, what]) => what === "POST tools/call demo.slow")!
    const cancelled = log.findLast(([, what]) => what === "POST notifications/cancelled")!
    expect(cancelled[0]).not.toBe(started[0])
    const end = Date.now() + 3000
    while (service.aborted.length === abortedBefore && Date.now() < end)
      await new Promise((r) => setTimeout(r, 20))
    expect(service.aborted.length).toBe(abortedBefore + 1)
    await client.close()
  })

  it("ends a session on both replicas, and refuses ids not signed with the shared secret", async () => {
    route = () => 0
    const client = await connect()
    const transport = client.transport as StreamableHTTPClientTransport
    const id = transport.sessionId!
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    }
    const ping = (replica: number, session: string) =>
      fetch(replicas[replica]!.url, {
        method: "POST",
        headers: { ...headers, "mcp-session-id": session },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      })
    // Replica 1 has never seen the session: it rebuilds it from the signed id.
    expect((await ping(1, id)).status).toBe(200)
    const tampered = `${id.slice(0, -3)}${id.endsWith("A") ? "B" : "A"}${id.slice(-2)}`
    expect((await ping(1, tampered)).status).toBe(404)
    const other = await serveHttp(service, { sessionSecret: "another-secret-0123456789abcdef" })
    try {
      const init = await fetch(other.url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "x", version: "1" },
          },
        }),
      })
      const foreign = init.headers.get("mcp-session-id")!
      expect(foreign).toBeTruthy()
      expect((await ping(0, foreign)).status).toBe(404)
    } finally {
      await other.close()
    }
    await transport.terminateSession()
    await new Promise((r) => setTimeout(r, 50))
    expect((await ping(0, id)).status).toBe(404)
    expect((await ping(1, id)).status).toBe(404)
    await client.close()
  })
})
