import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BackendRegistry, makeContext } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpBackend, type McpBackendStatus, mcpBackend } from "../src/index.js"
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
      {
        reconnect: { initialDelayMs: 50, maxDelayMs: 100, maxAttempts: 3, initialAttempts: 3 },
        connectTimeoutMs: 5000,
      },
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

describe("a server that never starts", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolplane-spawns-"))
  const log = join(dir, "spawns.log")
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  /** A "server" that records each start in `file` and exits at once. */
  const crashing = (name: string, file: string, reconnect?: { initialAttempts?: number }) =>
    mcpBackend(
      {
        name,
        stdio: {
          command: process.execPath,
          args: ["-e", `require("node:fs").appendFileSync(${JSON.stringify(file)}, "x"); process.exit(1)`],
        },
      },
      { reconnect: { initialDelayMs: 20, maxDelayMs: 40, ...reconnect }, connectTimeoutMs: 5000 },
    )
  const spawns = (file: string) => {
    try {
      return readFileSync(file, "utf8").length
    } catch {
      return 0
    }
  }
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

  it("is not respawned in the background after its first connect fails", async () => {
    const backend = crashing("never", log)
    try {
      await expect(backend.toolSchemas()).rejects.toMatchObject({ _tag: "BackendUnavailable" })
      expect(backend.status().state).toBe("failed")
      await sleep(800)
      expect(spawns(log)).toBe(1)
      expect(backend.status().state).toBe("failed")
      // A use tries again, once.
      await expect(backend.connect()).rejects.toMatchObject({ _tag: "BackendUnavailable" })
      await sleep(300)
      expect(spawns(log)).toBe(2)
    } finally {
      await backend.close()
    }
  })

  it("makes `initialAttempts` attempts, and close() stops retries", async () => {
    const counted = join(dir, "three.log")
    const three = crashing("three", counted, { initialAttempts: 3 })
    await expect(three.toolSchemas()).rejects.toMatchObject({ _tag: "BackendUnavailable" })
    await expect.poll(() => three.status().state, { timeout: 5000 }).toBe("failed")
    await sleep(300)
    expect(spawns(counted)).toBe(3)
    await three.close()

    const closing = join(dir, "closing.log")
    const forever = crashing("forever", closing, { initialAttempts: Number.POSITIVE_INFINITY })
    await expect(forever.toolSchemas()).rejects.toMatchObject({ _tag: "BackendUnavailable" })
    await forever.close()
    const after = spawns(closing)
    await sleep(500)
    expect(spawns(closing)).toBe(after)
    expect(forever.status().state).toBe("closed")
  })
})
