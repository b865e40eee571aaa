/**
 * Real clients of both protocol eras against one endpoint: the MCP SDK v2 client
 * (`@modelcontextprotocol/client`) pinned to 2026-07-28 (stateless, no session) and in `auto`
 * negotiation (`server/discover` first), and the SDK v1 client (`initialize` and a session), each
 * listing, calling, reading, getting a prompt and completing against `serveHttp` of the conformance
 * toolset and against `toolplane serve` fronting it. The v2 client also answers a multi round-trip
 * elicitation (its auto-fulfilment) and the sessions count shows the stateless era opens none.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { resourceCatalog } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { localBackend } from "@toolplane/plugin-local"
import { type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  conformanceProvider,
  type SdkConformanceServer,
  startSdkConformanceServer,
} from "./fixtures/conformanceResources.js"
import { conformanceTools } from "./fixtures/conformanceTools.js"
import { modernPost } from "./helpers/modernPost.js"
import { type HttpGateway, startHttpGateway, stopAllGateways } from "./helpers/processes.js"

type Era = "v2 pinned 2026-07-28" | "v2 auto" | "v1 (2025-11-25)"

/** The calls each client makes, in the shape both SDKs share. */
interface AnyClient {
  listTools(): Promise<{ tools: { name: string }[] }>
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>
  readResource(params: { uri: string }): Promise<{ contents: { text?: string; blob?: string }[] }>
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: unknown[] }>
  complete(params: unknown): Promise<{ completion: { values: string[] } }>
  close(): Promise<void>
}

const connect = async (
  era: Era,
  url: string,
): Promise<{ client: AnyClient; version: string | undefined }> => {
  if (era === "v1 (2025-11-25)") {
    const client = new ClientV1({ name: "v1", version: "1.0.0" })
    await client.connect(new TransportV1(new URL(url)))
    return {
      client: client as unknown as AnyClient,
      version: client.getServerVersion() ? "2025-11-25" : undefined,
    }
  }
  const client = new ClientV2(
    { name: "v2", version: "2.0.0" },
    {
      capabilities: { elicitation: {} },
      versionNegotiation: { mode: era === "v2 auto" ? "auto" : { pin: "2026-07-28" } },
    },
  )
  client.setRequestHandler("elicitation/create", async () => ({
    action: "accept",
    content: { name: "Alice" },
  }))
  await client.connect(new TransportV2(new URL(url)))
  return { client: client as unknown as AnyClient, version: client.getNegotiatedProtocolVersion() }
}

const ERAS: Era[] = ["v2 pinned 2026-07-28", "v2 auto", "v1 (2025-11-25)"]

/** The same checks against one endpoint, per client era. */
const suite = (target: () => { url: string; sessions?: () => number }) => {
  it.each(ERAS)("%s: lists, calls, reads, gets a prompt and completes", async (era) => {
    const { url, sessions } = target()
    const before = sessions?.()
    const { client, version } = await connect(era, url)
    try {
      expect(version).toBe(era === "v1 (2025-11-25)" ? "2025-11-25" : "2026-07-28")
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toContain("test_simple_text")
      const called = (await client.callTool({ name: "test_simple_text", arguments: {} })) as {
        content: { text: string }[]
      }
      expect(called.content[0]!.text).toBe("This is a simple text response for testing.")
      const read = await client.readResource({ uri: "test://static-text" })
      expect(read.contents[0]!.text).toBe("This is the content of the static text resource.")
      const prompt = await client.getPrompt({
        name: "test_prompt_with_arguments",
        arguments: { arg1: "a", arg2: "b" },
      })
      expect(prompt.messages.length).toBeGreaterThan(0)
      const completed = await client.complete({
        ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
        argument: { name: "arg1", value: "p" },
      })
      expect(Array.isArray(completed.completion.values)).toBe(true)
      // The stateless era opens no session on the server; the 2025 one does.
      if (sessions && before !== undefined)
        expect(sessions() - before).toBe(era === "v1 (2025-11-25)" ? 1 : 0)
    } finally {
      await client.close()
    }
  })

  it("the v2 client answers a multi round-trip elicitation and gets the complete result", async () => {
    const { client } = await connect("v2 pinned 2026-07-28", target().url)
    try {
      const result = (await client.callTool({
        name: "test_input_required_result_elicitation",
        arguments: {},
      })) as {
        content: { text: string }[]
      }
      expect(result.content[0]!.text).toBe("Hello, Alice!")
    } finally {
      await client.close()
    }
  })
}

/** The conformance provider, plus resource updates a test emits. */
const updates = (() => {
  const listeners = new Set<(uri: string) => void>()
  return {
    emit: (uri: string) => {
      for (const l of listeners) l(uri)
    },
    provider: {
      ...conformanceProvider,
      onResourceUpdated: (listener: (uri: string) => void) => {
        listeners.add(listener)
        return () => listeners.delete(listener)
      },
    },
  }
})()

describe("clients of both eras against one endpoint", () => {
  let direct: McpHttpServerHandle
  let toolsOnly: McpHttpServerHandle
  let sdk: SdkConformanceServer
  let gateway: HttpGateway
  let workDir: string

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "toolplane-eras-"))
    const runner = createRunner({
      backends: [localBackend(conformanceTools, { name: "conformance", approval: "never" })],
    })
    await runner.ready()
    direct = await serveHttp(runner, {
      naming: "name",
      catalog: resourceCatalog([{ name: "conformance", provider: updates.provider }], {
        promptNames: "name",
      }),
    })
    toolsOnly = await serveHttp(runner, { naming: "name" })
    sdk = await startSdkConformanceServer()
    const config = join(workDir, "gateway.toml")
    writeFileSync(
      config,
      [
        "[server]",
        'tool_names = "name"',
        "[server.cache]",
        "list_ttl_ms = 1234",
        'cache_scope = "private"',
        "[[backends]]",
        'name = "conformance"',
        `mcp = { url = "${toolsOnly.url}" }`,
        "require_approval = false",
        "[[backends]]",
        'name = "sdk"',
        `mcp = { url = "${sdk.url}" }`,
        "require_approval = false",
        "",
      ].join("\n"),
    )
    gateway = await startHttpGateway(config)
  }, 60_000)

  afterAll(async () => {
    await gateway?.stop()
    await stopAllGateways()
    await direct?.close()
    await toolsOnly?.close()
    await sdk?.close()
    if (workDir) rmSync(workDir, { recursive: true, force: true })
  }, 30_000)

  it("cache hints on listings and reads: the defaults, and [server.cache] of toolplane serve", async () => {
    const hints = async (url: string, method: string, params: Record<string, unknown> = {}) => {
      const { result } = (await modernPost(url, method, params)).body
      return { ttlMs: result?.ttlMs, cacheScope: result?.cacheScope, resultType: result?.resultType }
    }
    expect(await hints(direct.url, "tools/list")).toEqual({
      ttlMs: 30_000,
      cacheScope: "public",
      resultType: "complete",
    })
    expect(await hints(direct.url, "prompts/list")).toEqual({
      ttlMs: 30_000,
      cacheScope: "public",
      resultType: "complete",
    })
    expect(await hints(direct.url, "resources/read", { uri: "test://static-text" })).toEqual({
      ttlMs: 0,
      cacheScope: "public",
      resultType: "complete",
    })
    expect(await hints(gateway.url.href, "tools/list")).toEqual({
      ttlMs: 1234,
      cacheScope: "private",
      resultType: "complete",
    })
    // not cacheable: no hints, but a resultType
    expect(await hints(direct.url, "tools/call", { name: "test_simple_text", arguments: {} })).toEqual({
      ttlMs: undefined,
      cacheScope: undefined,
      resultType: "complete",
    })
  })

  it("subscriptions/listen: acknowledged, then only the list changes asked for, tagged with the subscription id", async () => {
    const abort = new AbortController()
    const response = await fetch(direct.url, {
      method: "POST",
      signal: abort.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: {
          notifications: {
            toolsListChanged: true,
            resourceSubscriptions: ["test://watched-resource", "test://no-such-resource"],
          },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    })
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    const reader = response.body!.getReader()
    const events: Record<string, unknown>[] = []
    let buffer = ""
    const next = async () => {
      while (!buffer.includes("\n\n")) {
        const { value, done } = await reader.read()
        if (done) throw new Error("the listen stream ended")
        buffer += new TextDecoder().decode(value)
      }
      const [event, ...rest] = buffer.split("\n\n")
      buffer = rest.join("\n\n")
      const data = event!
        .split("\n")
        .find((l) => l.startsWith("data: "))!
        .slice(6)
      events.push(JSON.parse(data) as Record<string, unknown>)
      return events.at(-1) as { method: string; params: Record<string, unknown> }
    }
    const ack = await next()
    expect(ack.method).toBe("notifications/subscriptions/acknowledged")
    // an unknown resource is left out of what the stream will carry
    expect(ack.params.notifications).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ["test://watched-resource"],
    })
    direct.notifyToolsChanged()
    const changed = await next()
    expect(changed.method).toBe("notifications/tools/list_changed")
    expect(changed.params._meta).toEqual({ "io.modelcontextprotocol/subscriptionId": "listen-1" })
    updates.emit("test://static-text") // not asked for: not on the stream
    updates.emit("test://watched-resource")
    const updated = await next()
    expect(updated).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: {
        uri: "test://watched-resource",
        _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" },
      },
    })
    abort.abort()
  })

  describe("serveHttp", () => suite(() => ({ url: direct.url, sessions: () => direct.connections() })))
  describe("toolplane serve", () => suite(() => ({ url: gateway.url.href })))
})
