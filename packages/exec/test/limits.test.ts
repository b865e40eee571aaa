import { defineEnricher, defineTool, RateLimited } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Semaphore } from "../src/concurrency.js"
import { createRunner } from "../src/index.js"
import { TokenBucket } from "../src/tokenBucket.js"
import { tick } from "./helpers.js"

const gauge = () => {
  const g = { now: 0, max: 0 }
  const def = (id: string) =>
    defineTool({
      id,
      input: z.object({ i: z.number() }),
      handler: async ({ i }) => {
        g.now++
        g.max = Math.max(g.max, g.now)
        await tick(i % 3)
        g.now--
        return "ok"
      },
    })
  return { g, def }
}

describe("concurrency caps", () => {
  it("hold under 1,000 concurrent calls (per tool and per backend, waiting)", async () => {
    const { g, def } = gauge()
    const runner = createRunner({
      backends: [definitionBackend([def("cap/a"), def("cap/b")], { name: "capped" })],
      limits: { tools: { "cap/a": { concurrency: 3 } }, backends: { capped: { concurrency: 5 } } },
    })
    const calls = Array.from({ length: 1000 }, (_, i) =>
      runner.callTool({ name: i % 2 === 0 ? "cap/a" : "cap/b", arguments: { i } }),
    )
    const results = await Promise.allSettled(calls)
    expect(results.every((r) => r.status === "fulfilled")).toBe(true)
    expect(g.max).toBe(5)
    expect(runner.limits.semaphore("backend:capped")?.active).toBe(0)
    expect(runner.limits.semaphore("tool:cap/a")?.active).toBe(0)
  })

  it("per-tool cap alone holds at exactly its limit", async () => {
    const { g, def } = gauge()
    const runner = createRunner({
      backends: [definitionBackend([def("cap/one")])],
      limits: { tools: { "cap/one": { concurrency: 7 } } },
    })
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) => runner.callTool({ name: "cap/one", arguments: { i } })),
    )
    expect(g.max).toBe(7)
  })

  it("rejects with RateLimited in reject mode", async () => {
    const { g, def } = gauge()
    const runner = createRunner({
      backends: [definitionBackend([def("cap/r")])],
      limits: { tools: { "cap/r": { concurrency: { max: 4, mode: "reject" } } } },
    })
    const results = await Promise.allSettled(
      Array.from({ length: 1000 }, (_, i) => runner.callTool({ name: "cap/r", arguments: { i: 2 + i * 3 } })),
    )
    const ok = results.filter((r) => r.status === "fulfilled").length
    const limited = results.filter((r) => r.status === "rejected" && r.reason instanceof RateLimited).length
    expect(ok).toBe(4)
    expect(limited).toBe(996)
    expect(g.max).toBe(4)
  })

  it("a waiting call is released when its caller cancels", async () => {
    const s = new Semaphore("k", { max: 1 })
    expect(s.acquire()).toBeUndefined()
    const controller = new AbortController()
    const waiting = s.acquire(controller.signal, "t/x")!
    expect(s.waiting).toBe(1)
    controller.abort()
    await expect(waiting).rejects.toMatchObject({ _tag: "Cancelled" })
    s.release()
    expect(s.active).toBe(0)
  })
})

describe("rate limits (token bucket)", () => {
  it("rejects once the burst is spent in reject mode, with retryAfterMs", async () => {
    const ping = defineTool({ id: "rl/ping", handler: () => "pong" })
    const runner = createRunner({
      backends: [definitionBackend([ping])],
      limits: { tools: { "rl/ping": { rateLimit: { ratePerSecond: 1, burst: 3, mode: "reject" } } } },
    })
    for (let i = 0; i < 3; i++) await runner.callTool({ name: "rl/ping" })
    const error = await runner.callTool({ name: "rl/ping" }).catch((e) => e)
    expect(error).toBeInstanceOf(RateLimited)
    expect(error.key).toBe("tool:rl/ping")
    expect(error.retryAfterMs).toBeGreaterThan(900)
  })

  it("waits for tokens in wait mode", async () => {
    const ping = defineTool({ id: "rl/wait", handler: () => "pong" })
    const runner = createRunner({
      backends: [definitionBackend([ping], { name: "b" })],
      limits: { backends: { b: { rateLimit: { ratePerSecond: 100, burst: 1 } } } },
    })
    const t0 = performance.now()
    await Promise.all(Array.from({ length: 6 }, () => runner.callTool({ name: "rl/wait" })))
    const elapsed = performance.now() - t0
    expect(elapsed).toBeGreaterThanOrEqual(45)
    expect(elapsed).toBeLessThan(1000)
  })

  it("limits per host named by an enricher from the arguments", async () => {
    const fetchTool = defineTool({
      id: "web/fetch",
      category: "web",
      input: z.object({ url: z.string() }),
      handler: ({ url }) => url,
    })
    const hosts = defineEnricher({
      name: "hosts",
      categories: ["web"],
      rateLimitHost: (_id, args) => new URL(String(args.url)).host,
    })
    const runner = createRunner({
      backends: [definitionBackend([fetchTool])],
      enrichers: [hosts],
      limits: { hosts: { "a.example": { ratePerSecond: 1, burst: 1, mode: "reject" } } },
    })
    await runner.callTool({ name: "web/fetch", arguments: { url: "https://a.example/1" } })
    await expect(
      runner.callTool({ name: "web/fetch", arguments: { url: "https://a.example/2" } }),
    ).rejects.toBeInstanceOf(RateLimited)
    // another host is not limited
    for (let i = 0; i < 5; i++)
      await runner.callTool({ name: "web/fetch", arguments: { url: `https://b.example/${i}` } })
  })

  it("refills at the configured rate (fake clock)", () => {
    let now = 0
    const bucket = new TokenBucket("k", { ratePerSecond: 10, burst: 2, mode: "reject" }, () => now)
    expect(bucket.take()).toBeUndefined()
    expect(bucket.take()).toBeUndefined()
    expect(() => bucket.take()).toThrow(RateLimited)
    now += 100
    expect(bucket.take()).toBeUndefined()
    expect(() => bucket.take()).toThrow(RateLimited)
    now += 10_000
    expect(bucket.tokens).toBe(2)
  })
})
