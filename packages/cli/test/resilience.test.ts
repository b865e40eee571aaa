/**
 * A backend that is down at start no longer stops the gateway: one dead MCP backend (nothing listens on
 * its port) and two live ones (a module, an MCP SDK server). The live ones serve at once, health reports
 * the dead one down; when a server starts on its port, the gateway reconnects, sends
 * `notifications/tools/list_changed`, and its tools are listed and callable.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { type McpBackend, type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { parseConfig } from "../src/config/load.js"
import { type Gateway, type GatewayEvent, openGateway } from "../src/gateway.js"
import { type SdkConformanceServer, startSdkConformanceServer } from "./fixtures/conformanceResources.js"
import { FIXTURES, REPO, TSX, textOf } from "./helpers/processes.js"

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

const ping = defineTool({
  id: "late/ping",
  description: "Answers pong",
  input: z.object({}),
  annotations: { readOnlyHint: true },
  handler: () => "pong",
})

describe("a backend down at start", () => {
  let sdk: SdkConformanceServer | undefined
  let gateway: Gateway | undefined
  let served: McpHttpServerHandle | undefined
  let late: McpHttpServerHandle | undefined

  afterAll(async () => {
    await served?.close()
    await gateway?.close()
    await late?.close()
    await sdk?.close()
  })

  it("is served without, reported down, reconnected with backoff and then listed", async () => {
    sdk = await startSdkConformanceServer()
    const port = await freePort()
    const config = parseConfig(
      [
        "[[backends]]",
        'name = "local"',
        'module = "./tools.ts"',
        "",
        "[[backends]]",
        'name = "sdk"',
        `mcp = { url = "${sdk.url}" }`,
        "",
        "[[backends]]",
        'name = "late"',
        `mcp = { url = "http://127.0.0.1:${port}/mcp" }`,
        "require_approval = false",
        "",
        "[aliases]",
        '"late/ping" = "alias/late_ping"',
        "",
      ].join("\n"),
    )
    const events: GatewayEvent[] = []
    gateway = await openGateway(config, {
      baseDir: FIXTURES,
      env: { TOOLPLANE_CURSOR_SECRET: "resilience-secret-0123456789" },
      reconnect: true,
      reconnectDelayMs: { initial: 100, max: 400 },
      connectTimeoutMs: 5000,
      onEvent: (e) => events.push(e),
    })
    expect(events.find((e) => e.type === "failed")).toMatchObject({ backend: "late" })
    expect(
      events.some((e) => e.type === "warning" && /serving without alias of late\/ping/.test(e.message)),
    ).toBe(true)
    const health = await gateway.health()
    expect(health.late).toMatchObject({ healthy: false, tools: 0 })
    expect(health.late!.error).toMatch(/reconnecting/)
    expect(health.local!.healthy).toBe(true)

    served = await serveHttp(gateway.service, {
      catalog: gateway.catalog,
      watch: (notify) => gateway!.onToolsChanged(notify),
    })
    const client = new Client({ name: "t", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)))
    let changed = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++
    })
    const before = (await client.listTools()).tools.map((t) => t.name)
    expect(before).toContain("notes.echo")
    expect(before.some((n) => n.startsWith("late."))).toBe(false)
    // The live MCP backend serves its prompts at once.
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain("sdk.test_simple_prompt")

    // The dead backend's server comes up.
    const runner = createRunner({ backends: [localBackend([ping], { name: "late", approval: "never" })] })
    late = await serveHttp(runner, { port, naming: "name" })
    const until = Date.now() + 10_000
    while (changed === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    expect(changed).toBeGreaterThan(0)
    const after: string[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor ? { cursor } : {})
      after.push(...page.tools.map((t) => t.name))
      cursor = page.nextCursor
    } while (cursor)
    expect(after).toContain("late.ping")
    expect((await client.callTool({ name: "late.ping", arguments: {} })).content).toEqual([
      { type: "text", text: "pong" },
    ])
    expect((await gateway.health()).late).toMatchObject({ healthy: true, tools: 1 })
    expect(
      events.filter((e) => e.type === "connected").map((e) => (e as { backend: string }).backend),
    ).toContain("late")
    await client.close()
  }, 40_000)
})

/** The SDK v2 test server of plugin-mcp (`--legacy reject`: MCP 2026-07-28 only). */
const MODERN = join(REPO, "plugins", "mcp", "test", "fixtures", "modernServer.ts")

const until = async (check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> => {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time")
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe("a 2026-07-28 backend", () => {
  let gateway: Gateway | undefined
  let upstream: ChildProcess | undefined

  afterAll(async () => {
    await gateway?.close()
    upstream?.kill()
  })

  it("serves without it while it is down, reconnects to it, and reconnects after it is killed", async () => {
    const port = await freePort()
    const events: GatewayEvent[] = []
    gateway = await openGateway(
      parseConfig(
        [
          "[[backends]]",
          'name = "late"',
          `mcp = { url = "http://127.0.0.1:${port}/mcp" }`,
          "require_approval = false",
          'protocol = "2026-07-28"',
          "",
          "[[backends]]",
          'name = "mstdio"',
          `mcp = { command = ${JSON.stringify(TSX)}, args = [${JSON.stringify(MODERN)}, "--legacy", "reject"] }`,
          "require_approval = false",
          "",
        ].join("\n"),
      ),
      {
        baseDir: REPO,
        env: { TOOLPLANE_CURSOR_SECRET: "modern-resilience-secret-0123456789" },
        reconnect: true,
        reconnectDelayMs: { initial: 100, max: 400 },
        connectTimeoutMs: 10_000,
        onEvent: (e) => events.push(e),
      },
    )
    expect(events.find((e) => e.type === "failed")).toMatchObject({ backend: "late" })
    expect((await gateway.health()).late).toMatchObject({ healthy: false })
    const call = (id: string, args: Record<string, unknown>) =>
      gateway!.service.callTool({ name: id, arguments: args })

    upstream = spawn(TSX, [MODERN, "--http", "--legacy", "reject", "--port", String(port)], {
      stdio: "ignore",
    })
    await until(async () => (await gateway!.health()).late?.healthy === true)
    const late = gateway.runner.registry.backend("late") as McpBackend
    expect(late.status().protocolVersion).toBe("2026-07-28")
    expect(textOf(await call("late/echo", { text: "up" }))).toBe("up")

    const mstdio = gateway.runner.registry.backend("mstdio") as McpBackend
    const pid = mstdio.status().pid!
    process.kill(pid, "SIGKILL")
    await until(() => mstdio.status().state === "connected" && mstdio.status().pid !== pid)
    expect(mstdio.status().protocolVersion).toBe("2026-07-28")
    expect(textOf(await call("mstdio/echo", { text: "again" }))).toBe("again")
  }, 40_000)
})
