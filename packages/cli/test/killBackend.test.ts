/**
 * A backend server killed mid-call: an in-process gateway (openGateway over e2e.toml) served with
 * serveHttp, the official MCP SDK client over HTTP. The in-flight call gets BackendUnavailable (an
 * `isError` result carrying the typed error in `_meta["toolplane.dev/error"]`, as plugin-mcp documents),
 * the gateway stays up, the local backend answers, and server-everything comes back on its own.
 */
import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js"
import { type McpBackend, type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/config/load.js"
import { type Gateway, openGateway } from "../src/gateway.js"
import { CURSOR_SECRET, connectHttp, FIXTURES, textOf } from "./helpers/processes.js"

const CONFIG = join(FIXTURES, "e2e.toml")
const ERROR_META = "toolplane.dev/error"

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("killing a backend server mid-call", () => {
  let gateway: Gateway
  let http: McpHttpServerHandle
  let client: Client
  let close: () => Promise<void>

  beforeAll(async () => {
    const config = await loadConfig(CONFIG)
    // No retries: trigger-long-running-operation is annotated read-only, so by default the runner would
    // retry the failed call once the backend is back and the caller would never see BackendUnavailable.
    gateway = await openGateway(
      { ...config, limits: { ...config.limits, retries: 0 } },
      {
        file: CONFIG,
        env: { TOOLPLANE_CURSOR_SECRET: CURSOR_SECRET },
      },
    )
    http = await serveHttp(gateway.service, { watch: (notify) => gateway.onToolsChanged(notify) })
    ;({ client, close } = await connectHttp(new URL(http.url)))
  }, 40_000)

  afterAll(async () => {
    await close?.()
    await http?.close()
    await gateway?.close()
  }, 20_000)

  it("fails the in-flight call with BackendUnavailable, keeps the gateway and the local backend up, and reconnects", async () => {
    const backend = gateway.runner.registry.backend("everything") as McpBackend | undefined
    expect(backend).toBeDefined()
    expect(typeof backend!.status).toBe("function")
    const before = backend!.status()
    expect(before.state).toBe("connected")
    const pid = before.pid!
    expect(pid).toBeGreaterThan(0)
    expect(isAlive(pid)).toBe(true)

    let progressed!: () => void
    const firstProgress = new Promise<void>((resolve) => {
      progressed = resolve
    })
    const inFlight = client
      .callTool(
        { name: "everything.trigger-long-running-operation", arguments: { duration: 10, steps: 20 } },
        CallToolResultSchema,
        { onprogress: () => progressed(), timeout: 30_000 },
      )
      .then(
        (result) => ({ result, error: undefined }),
        (error: Error) => ({ result: undefined, error }),
      )
    await firstProgress
    const killedAt = Date.now()
    process.kill(pid, "SIGKILL")
    const outcome = await inFlight
    const failedAfterMs = Date.now() - killedAt

    // The caller learns at once (not after the 10 s the operation would take) that the backend is gone.
    expect(outcome.error).toBeUndefined()
    const result = outcome.result!
    expect(result.isError).toBe(true)
    const typed = (result._meta as Record<string, { _tag?: string; backend?: string }> | undefined)?.[
      ERROR_META
    ]
    expect(typed?._tag).toBe("BackendUnavailable")
    expect(typed?.backend).toBe("everything")
    expect(textOf(result)).toMatch(/everything/)
    expect(failedAfterMs).toBeLessThan(5000)

    // The gateway stays up: ping, listing and the local backend answer.
    await expect(client.ping()).resolves.toEqual({})
    const local = await client.callTool({ name: "notes.echo", arguments: { message: "still here" } })
    expect(local.isError).toBeFalsy()
    expect(textOf(local)).toBe("notes echo: still here")
    const composite = await client.callTool({ name: "composite.echo_all", arguments: { message: "x" } })
    expect(textOf(composite)).toContain("notes echo: x")

    // server-everything comes back on its own (a new process); poll with a bound.
    const deadline = Date.now() + 20_000
    let echoed: string | undefined
    const failures: string[] = []
    while (Date.now() < deadline) {
      const r = await client.callTool({ name: "everything.echo", arguments: { message: "back again" } })
      if (!r.isError) {
        echoed = textOf(r)
        break
      }
      failures.push(textOf(r))
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(echoed, `everything/echo never recovered; last errors: ${failures.slice(-3).join(" | ")}`).toBe(
      "Echo: back again",
    )
    const after = backend!.status()
    expect(after.state).toBe("connected")
    expect(after.connections).toBeGreaterThanOrEqual(2)
    expect(after.pid).toBeGreaterThan(0)
    expect(after.pid).not.toBe(pid)
    expect(isAlive(pid)).toBe(false)
  }, 40_000)
})
