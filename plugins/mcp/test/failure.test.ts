import { BackendRegistry, makeContext } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { McpBackend, McpBackendStatus } from "../src/index.js"
import { everything, textOf } from "./fixtures/everything.js"

describe("an MCP server dying mid-call", () => {
  let alpha: McpBackend
  let beta: McpBackend
  const registry = new BackendRegistry()
  beforeAll(async () => {
    alpha = everything("alpha", { reconnect: { initialDelayMs: 100, maxDelayMs: 1000 } })
    beta = everything("beta")
    await Promise.all([registry.register(alpha), registry.register(beta)])
  })
  afterAll(async () => {
    await Promise.all([alpha?.close(), beta?.close()])
  })

  it("fails the in-flight call with BackendUnavailable, keeps other backends answering, and reconnects", async () => {
    const before = alpha.status()
    expect(before.state).toBe("connected")
    const pid = before.pid!
    expect(pid).toBeGreaterThan(0)
    const states: McpBackendStatus["state"][] = []
    const unsubscribe = alpha.onStatusChange((s) => states.push(s.state))

    let progressed!: () => void
    const firstProgress = new Promise<void>((resolve) => (progressed = resolve))
    const inFlight = alpha.execute(
      { toolId: "alpha/trigger-long-running-operation", arguments: { duration: 20, steps: 100 } },
      makeContext({ onProgress: () => progressed() }),
    )
    const outcome = inFlight.then(
      () => "resolved",
      (error) => error,
    )
    await firstProgress
    const killedAt = Date.now()
    process.kill(pid, "SIGKILL")

    const error = await outcome
    expect(error).toMatchObject({ _tag: "BackendUnavailable", backend: "alpha" })
    expect(Date.now() - killedAt).toBeLessThan(2000)

    // The other backend keeps answering, through the registry too.
    const viaRegistry = registry.resolve("beta/echo")!
    const echoed = await viaRegistry.backend.execute(
      { toolId: "beta/echo", arguments: { message: "still up" } },
      makeContext(),
    )
    expect(textOf(echoed)).toBe("Echo: still up")

    // The dead one comes back on its own, in a new process, with the same tools.
    await alpha.connect()
    const after = alpha.status()
    expect(after.state).toBe("connected")
    expect(after.connections).toBe(2)
    expect(after.pid).not.toBe(pid)
    expect(states).toContain("reconnecting")
    const again = await alpha.execute({ toolId: "alpha/echo", arguments: { message: "back" } }, makeContext())
    expect(textOf(again)).toBe("Echo: back")
    expect((await alpha.toolSchemas()).length).toBe((await beta.toolSchemas()).length)
    expect(registry.resolve("alpha/echo")).toBeDefined()
    unsubscribe()
  })

  it("reports BackendUnavailable while a server cannot be started, and retries with backoff", async () => {
    const broken = (await import("../src/index.js")).mcpBackend(
      {
        name: "broken",
        stdio: {
          command: process.execPath,
          args: ["-e", "console.error('no such server'); process.exit(3)"],
        },
      },
      { reconnect: { initialDelayMs: 50, maxDelayMs: 100, maxAttempts: 3 }, connectTimeoutMs: 5000 },
    )
    try {
      await expect(broken.toolSchemas()).rejects.toMatchObject({
        _tag: "BackendUnavailable",
        backend: "broken",
      })
      await expect(
        broken.execute({ toolId: "broken/x", arguments: {} }, makeContext()),
      ).rejects.toMatchObject({ _tag: "BackendUnavailable" })
      expect(await broken.healthCheck()).toBe(false)
      await expect.poll(() => broken.status().state, { timeout: 5000 }).toBe("failed")
      expect(broken.status().attempts).toBe(3)
      expect(broken.status().lastError).toContain("no such server")
    } finally {
      await broken.close()
    }
  })
})
