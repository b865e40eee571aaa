import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { makeContext, type Progress, type ToolResult } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpBackend, mcpBackend } from "../src/index.js"
import { type Expiring, TimeoutQueue } from "../src/internal/timeoutQueue.js"

const here = dirname(fileURLToPath(import.meta.url))
const raw = {
  command: process.execPath,
  args: ["--conditions=@toolplane/source", "--import", "tsx", join(here, "fixtures", "rawStdioServer.ts")],
  cwd: join(here, ".."),
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const textOf = (result: ToolResult) => (result.content[0] as { text: string }).text

/** An item that records when it expired. */
const item = (): Expiring & { expiredAt: number | undefined } => ({
  expiresAt: 0,
  previousExpiring: undefined,
  nextExpiring: undefined,
  expiringIn: undefined,
  expiredAt: undefined,
  expire() {
    this.expiredAt = performance.now()
  },
})

describe("TimeoutQueue: one timer per timeout length", () => {
  it("expires an item at its time, never before, and one disarmed in time never", async () => {
    const queue = new TimeoutQueue()
    const list = queue.list(60)
    const late = item()
    const done = item()
    const started = performance.now()
    list.arm(done)
    list.arm(late)
    list.disarm(done)
    await sleep(200)
    expect(done.expiredAt).toBeUndefined()
    expect(late.expiredAt).toBeDefined()
    expect(late.expiredAt! - started).toBeGreaterThanOrEqual(60)
    expect(queue.size).toBe(0)
    expect(queue.timers).toBe(0)
  })

  it("re-arming moves an item to its new time; later items expire after earlier ones", async () => {
    const queue = new TimeoutQueue()
    const list = queue.list(80)
    const first = item()
    const second = item()
    list.arm(first)
    await sleep(40)
    list.arm(second)
    list.arm(first) // restarted (progress): now due after `second`
    const rearmedAt = performance.now()
    await sleep(250)
    expect(second.expiredAt).toBeDefined()
    expect(first.expiredAt).toBeDefined()
    expect(first.expiredAt!).toBeGreaterThanOrEqual(second.expiredAt!)
    expect(first.expiredAt! - rearmedAt).toBeGreaterThanOrEqual(80)
  })

  it("leaves nothing armed and at most one timer after 10,000 calls that finish in time", async () => {
    const queue = new TimeoutQueue()
    const list = queue.list(30)
    const items = Array.from({ length: 10_000 }, item)
    for (const it of items) {
      list.arm(it)
      list.disarm(it)
    }
    expect(queue.size).toBe(0)
    expect(queue.timers).toBeLessThanOrEqual(1)
    await sleep(80)
    // The one timer fired, found nothing due and was not set again.
    expect(queue.timers).toBe(0)
    expect(items.every((i) => i.expiredAt === undefined)).toBe(true)
    expect(list.head).toBeUndefined()
    expect(list.tail).toBeUndefined()
  })
})

describe("mcpBackend call timeouts and cancellation (shared timers)", () => {
  let backend: McpBackend
  beforeAll(async () => {
    backend = mcpBackend({ name: "raw", stdio: raw }, { requiresApproval: false, callTimeoutMs: 150 })
    await backend.connect()
  })
  afterAll(async () => {
    await backend?.close()
  })
  const call = (kind: string | undefined, ctx = makeContext()) =>
    backend.execute(
      { toolId: "raw/echo", arguments: kind === undefined ? { text: "x" } : { text: "x", kind } },
      ctx,
    )
  const cancelledIds = async (): Promise<unknown[]> =>
    JSON.parse(textOf(await call("cancelled"))) as unknown[]

  it("times a call out at its timeout, not before, and cancels it on the server", async () => {
    const before = (await cancelledIds()).length
    const started = performance.now()
    await expect(call("hang")).rejects.toMatchObject({ _tag: "Timeout", toolId: "raw/echo", timeoutMs: 150 })
    const took = performance.now() - started
    expect(took).toBeGreaterThanOrEqual(149)
    expect(took).toBeLessThan(1000)
    expect((await cancelledIds()).length).toBe(before + 1)
  })

  it("times calls out while other calls come and go, each at its own time", async () => {
    const hung = call("hang")
    const fast = await Promise.all(Array.from({ length: 200 }, () => call(undefined)))
    expect(fast.every((r) => textOf(r) === "x")).toBe(true)
    await expect(hung).rejects.toMatchObject({ _tag: "Timeout" })
  })

  it("a progress notification restarts the timeout (240 ms of work, 150 ms timeout)", async () => {
    const seen: Progress[] = []
    const result = await call("progress", makeContext({ onProgress: (p) => seen.push(p) }))
    expect(textOf(result)).toBe("x")
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3, 4])
  })

  it("a cancelled call's timer does not fire: Cancelled, one notifications/cancelled, no Timeout later", async () => {
    const before = (await cancelledIds()).length
    const controller = new AbortController()
    const ctx = makeContext({ signal: controller.signal })
    const pending = call("hang", ctx)
    setTimeout(() => controller.abort(new Error("stop")), 30)
    await expect(pending).rejects.toMatchObject({ _tag: "Cancelled" })
    await sleep(250)
    const ids = await cancelledIds()
    expect(ids.length).toBe(before + 1)
    // The connection is fine and later calls are not disturbed by a stale timer.
    expect(textOf(await call(undefined))).toBe("x")
  })

  it("a context deadline is a hard limit (its own timer; progress does not restart it)", async () => {
    const started = performance.now()
    await expect(call("progress", makeContext({ timeoutMs: 100 }))).rejects.toMatchObject({ _tag: "Timeout" })
    // Restarted by progress, the call would have succeeded after its 240 ms of work; the bound only checks
    // that the deadline did not wait for the work (loose: a loaded machine stalls timers).
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it("a call whose signal aborted before it was sent fails with Cancelled at once", async () => {
    const controller = new AbortController()
    controller.abort(new Error("early"))
    await expect(call(undefined, makeContext({ signal: controller.signal }))).rejects.toMatchObject({
      _tag: "Cancelled",
    })
  })
})
