import { fc, test as fcTest } from "@fast-check/vitest"
import { Cancelled, defineEnricher, defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { createRunner } from "../src/index.js"
import { deferred, tick } from "./helpers.js"
import { makeRunner, outcome, settle } from "./prefetchFixture.js"

const opArb = fc.record({
  caller: fc.constantFrom("A", "B"),
  tool: fc.constantFrom("kv/get", "kv/list", "kv/put", "kv/secret", "kv/limited", "kv/touch"),
  key: fc.constantFrom("a", "b", "c"),
  value: fc.constantFrom("x", "y"),
})

const argsOf = (op: { tool: string; key: string; value: string }) =>
  op.tool === "kv/list" ? {} : op.tool === "kv/put" ? { key: op.key, value: op.value } : { key: op.key }

describe("prefetch: property over random call sequences", () => {
  fcTest.prop([fc.array(opArb, { minLength: 1, maxLength: 25 })], { numRuns: 60 })(
    "results and backend state equal the run without prefetch; only safe tools are prefetched",
    async (ops) => {
      const off = makeRunner(undefined)
      const on = makeRunner({ learning: { minConfidence: 0, minSupport: 1 }, maxPerCall: 8, ttlMs: 1000 })
      const results: string[][] = [[], []]
      for (const [i, r] of [off, on].entries()) {
        for (const op of ops) {
          results[i]!.push(
            await outcome(
              r.runner.callTool({ name: op.tool, arguments: argsOf(op), context: { callerId: op.caller } }),
            ),
          )
          // Give speculative calls time to run between the caller's calls, as a model's think time would.
          await settle(r.runner)
        }
      }
      expect(results[1]).toEqual(results[0])
      expect([...on.service.state]).toEqual([...off.service.state])
      // Tools needing approval, writing (even idempotently) or under a rate limit ran only for real calls.
      for (const tool of ["kv/secret", "kv/limited", "kv/touch", "kv/put"]) {
        const real = off.service.executions.filter((e) => e.tool === tool)
        expect(on.service.executions.filter((e) => e.tool === tool)).toEqual(real)
      }
      // Every speculative call ran for the caller it was planned for (executions carry the caller).
      const stats = on.runner.prefetch!.stats()
      expect(stats.hits).toBeLessThanOrEqual(stats.issued)
      on.runner.prefetch!.close()
    },
  )
})

describe("prefetch: cache, scoping, invalidation, expiry", () => {
  it("serves the caller's matching call from a finished prefetch (declared link)", async () => {
    const { runner, service } = makeRunner({ learning: false })
    await runner.callTool({ name: "kv/list", arguments: {}, context: { callerId: "A" } })
    await settle(runner)
    expect(service.executions.filter((e) => e.tool === "kv/get")).toHaveLength(2)
    const result = await runner.callTool({
      name: "kv/get",
      arguments: { key: "b" },
      context: { callerId: "A" },
    })
    expect(result.structuredContent).toEqual({ key: "b", value: "2" })
    expect(service.executions.filter((e) => e.tool === "kv/get")).toHaveLength(2)
    const stats = runner.prefetch!.stats()
    expect(stats.hits).toBe(1)
    expect(stats.issued).toBe(2)
    expect(stats.timeSavedMs).toBeGreaterThanOrEqual(0)
  })

  it("never serves caller A's prefetch to caller B", async () => {
    const { runner, service } = makeRunner({ learning: false })
    await runner.callTool({ name: "kv/list", arguments: {}, context: { callerId: "A" } })
    await settle(runner)
    const before = service.executions.length
    await runner.callTool({ name: "kv/get", arguments: { key: "a" }, context: { callerId: "B" } })
    expect(service.executions.length).toBe(before + 1)
    expect(service.executions.at(-1)).toMatchObject({ tool: "kv/get", caller: "B" })
    expect(runner.prefetch!.stats().hits).toBe(0)
    await runner.callTool({ name: "kv/get", arguments: { key: "a" }, context: { callerId: "A" } })
    expect(runner.prefetch!.stats().hits).toBe(1)
  })

  it("does not prefetch for calls without a caller id unless anonymous is on", async () => {
    const { runner } = makeRunner({ learning: false })
    await runner.callTool({ name: "kv/list", arguments: {} })
    await settle(runner)
    expect(runner.prefetch!.stats().issued).toBe(0)
    const anon = makeRunner({ learning: false, anonymous: true }).runner
    await anon.callTool({ name: "kv/list", arguments: {} })
    await settle(anon)
    expect(anon.prefetch!.stats().issued).toBe(2)
  })

  it("a write by the caller invalidates its pending prefetches and aborts running ones", async () => {
    const gate = deferred()
    const seen: AbortSignal[] = []
    const slow = defineTool({
      id: "s/read",
      input: z.object({ n: z.number() }),
      annotations: { readOnlyHint: true },
      handler: async (_args, ctx) => {
        seen.push(ctx.signal)
        await Promise.race([gate.promise, new Promise((r) => ctx.signal.addEventListener("abort", r))])
        return { n: 1 }
      },
    })
    const start = defineTool({
      id: "s/start",
      input: z.object({}),
      annotations: { readOnlyHint: true },
      handler: () => ({ n: 7 }),
    })
    const write = defineTool({ id: "s/write", input: z.object({}), handler: () => "done" })
    const local = defineTool({ id: "s/local", input: z.object({}), handler: () => "done" })
    const runner = createRunner({
      backends: [definitionBackend([slow, start, local]), definitionBackend([write], { name: "elsewhere" })],
      enrichers: [
        defineEnricher({
          name: "l",
          categories: [],
          valueModel: (id) =>
            id === "s/start"
              ? { followUps: [{ toolId: "s/read", projection: "/n", projectionArg: "n" }] }
              : undefined,
        }),
      ],
      // Precision feedback off: the same link must fire again after its first prefetch was dropped.
      prefetch: { learning: false, minPrecision: 0 },
    })
    await runner.callTool({ name: "s/start", context: { callerId: "A" } })
    await tick(5)
    expect(seen).toHaveLength(1)
    expect(seen[0]!.aborted).toBe(false)
    // Another caller's write to another backend leaves A's prefetch alone.
    await runner.callTool({ name: "s/write", context: { callerId: "B" } })
    expect(seen[0]!.aborted).toBe(false)
    // A's own write, to any backend, drops it.
    await runner.callTool({ name: "s/write", context: { callerId: "A" } })
    expect(seen[0]!.aborted).toBe(true)
    const stats = runner.prefetch!.stats()
    expect(stats.invalidated).toBe(1)
    expect(stats.cancelled).toBe(1)
    // Another caller's write to the backend A's prefetch reads from drops it too (it may change the data).
    await runner.callTool({ name: "s/start", context: { callerId: "A" } })
    await tick(5)
    expect(seen).toHaveLength(2)
    await runner.callTool({ name: "s/local", context: { callerId: "B" } })
    expect(seen[1]!.aborted).toBe(true)
    expect(runner.prefetch!.stats().invalidated).toBe(2)
    gate.resolve()
    // The next read runs for real.
    await runner.callTool({ name: "s/read", arguments: { n: 7 }, context: { callerId: "A" } })
    expect(seen).toHaveLength(3)
    expect(runner.prefetch!.stats().hits).toBe(0)
  })

  it("aborts an expired prefetch (the handler sees its signal) and counts it wasted", async () => {
    const aborted = deferred<boolean>()
    const slow = defineTool({
      id: "t/slow",
      input: z.object({ n: z.number() }),
      annotations: { readOnlyHint: true },
      handler: (_args, ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => {
            aborted.resolve(true)
            reject(ctx.signal.reason)
          }),
        ),
    })
    const start = defineTool({
      id: "t/start",
      input: z.object({}),
      annotations: { readOnlyHint: true },
      handler: () => ({ n: 1 }),
    })
    const runner = createRunner({
      backends: [definitionBackend([slow, start])],
      enrichers: [
        defineEnricher({
          name: "l",
          categories: [],
          valueModel: (id) =>
            id === "t/start"
              ? { followUps: [{ toolId: "t/slow", projection: "/n", projectionArg: "n" }] }
              : undefined,
        }),
      ],
      prefetch: { learning: false, ttlMs: 20 },
    })
    await runner.callTool({ name: "t/start", context: { callerId: "A" } })
    expect(await aborted.promise).toBe(true)
    await tick(1)
    const stats = runner.prefetch!.stats()
    expect(stats).toMatchObject({ issued: 1, hits: 0, wasted: 1, cancelled: 1, inFlight: 0 })
  })

  it("a real call waits for a running prefetch; cancelling it aborts the speculative call", async () => {
    const gate = deferred()
    const signals: AbortSignal[] = []
    const slow = defineTool({
      id: "w/slow",
      input: z.object({ n: z.number() }),
      annotations: { readOnlyHint: true },
      handler: async ({ n }, ctx) => {
        signals.push(ctx.signal)
        await Promise.race([gate.promise, new Promise((r) => ctx.signal.addEventListener("abort", r))])
        return { n: n * 2 }
      },
    })
    const start = defineTool({
      id: "w/start",
      input: z.object({ n: z.number() }),
      annotations: { readOnlyHint: true },
      handler: ({ n }) => ({ n }),
    })
    const runner = createRunner({
      backends: [definitionBackend([slow, start])],
      enrichers: [
        defineEnricher({
          name: "l",
          categories: [],
          valueModel: (id) =>
            id === "w/start"
              ? { followUps: [{ toolId: "w/slow", projection: "/n", projectionArg: "n" }] }
              : undefined,
        }),
      ],
      prefetch: { learning: false },
    })
    // Served while running: the real call takes the speculative result when it arrives.
    await runner.callTool({ name: "w/start", arguments: { n: 1 }, context: { callerId: "A" } })
    await tick(2)
    const waiting = runner.callTool({ name: "w/slow", arguments: { n: 1 }, context: { callerId: "A" } })
    await tick(2)
    gate.resolve()
    expect((await waiting).structuredContent).toEqual({ n: 2 })
    expect(signals).toHaveLength(1)
    expect(runner.prefetch!.stats().hits).toBe(1)

    // Cancelled while waiting: the caller gets Cancelled and the speculative call is aborted.
    const gate2 = deferred()
    const held = defineTool({
      id: "w/held",
      input: z.object({ n: z.number() }),
      annotations: { readOnlyHint: true },
      handler: async (_args, ctx) => {
        signals.push(ctx.signal)
        await Promise.race([gate2.promise, new Promise((r) => ctx.signal.addEventListener("abort", r))])
        return { ok: true }
      },
    })
    await runner.register(definitionBackend([held], { name: "held" }))
    const runner2 = createRunner({
      backends: [definitionBackend([held, start])],
      enrichers: [
        defineEnricher({
          name: "l",
          categories: [],
          valueModel: (id) =>
            id === "w/start"
              ? { followUps: [{ toolId: "w/held", projection: "/n", projectionArg: "n" }] }
              : undefined,
        }),
      ],
      prefetch: { learning: false },
    })
    await runner2.callTool({ name: "w/start", arguments: { n: 3 }, context: { callerId: "A" } })
    await tick(2)
    const controller = new AbortController()
    const cancelled = runner2.callTool({
      name: "w/held",
      arguments: { n: 3 },
      context: { callerId: "A", signal: controller.signal },
    })
    await tick(2)
    controller.abort()
    await expect(cancelled).rejects.toBeInstanceOf(Cancelled)
    expect(signals.at(-1)!.aborted).toBe(true)
    expect(runner2.prefetch!.stats()).toMatchObject({ hits: 0, cancelled: 1, inFlight: 0 })
    gate2.resolve()
  })

  it("never issues a prefetch whose arguments fail validation", async () => {
    const { runner, service } = makeRunner({ learning: false })
    // kv/put -> kv/get(key: "") fails min(1): skipped.
    await runner
      .callTool({ name: "kv/put", arguments: { key: "", value: "v" }, context: { callerId: "A" } })
      .catch(() => {})
    const list = makeRunner({ learning: false }).runner
    void list
    await settle(runner)
    expect(service.executions.filter((e) => e.tool === "kv/get")).toHaveLength(0)
  })
})

describe("prefetch: learning", () => {
  it("learns that b follows a with an argument from a's result, then hits", async () => {
    const a = defineTool({
      id: "p/a",
      input: z.object({ q: z.string() }),
      annotations: { readOnlyHint: true },
      handler: ({ q }) => ({ id: `${q}-id`, other: 1 }),
    })
    const b = defineTool({
      id: "p/b",
      input: z.object({ id: z.string(), mode: z.string() }),
      annotations: { readOnlyHint: true },
      handler: ({ id, mode }) => ({ id, mode, detail: id.length }),
    })
    const runner = createRunner({ backends: [definitionBackend([a, b])], prefetch: { declared: false } })
    const ctx = { callerId: "A" }
    for (const q of ["x", "y", "z", "w", "v", "u"]) {
      await runner.callTool({ name: "p/a", arguments: { q }, context: ctx })
      await tick(2)
      const r = await runner.callTool({
        name: "p/b",
        arguments: { id: `${q}-id`, mode: "full" },
        context: ctx,
      })
      expect(r.structuredContent).toEqual({ id: `${q}-id`, mode: "full", detail: `${q}-id`.length })
    }
    const stats = runner.prefetch!.stats()
    expect(stats.hits).toBeGreaterThanOrEqual(2)
    expect(stats.hits).toBeLessThanOrEqual(stats.issued)
  })

  it("learns after the call returned, and keeps learning after a burst larger than its ring", async () => {
    const a = defineTool({
      id: "q/a",
      input: z.object({ q: z.string() }),
      annotations: { readOnlyHint: true },
      handler: ({ q }) => ({ id: `${q}-id` }),
    })
    const b = defineTool({
      id: "q/b",
      input: z.object({ id: z.string() }),
      annotations: { readOnlyHint: true },
      handler: ({ id }) => ({ id }),
    })
    const c = defineTool({
      id: "q/c",
      input: z.object({ n: z.number() }),
      annotations: { readOnlyHint: true },
      handler: ({ n }) => ({ n }),
    })
    const runner = createRunner({ backends: [definitionBackend([a, b, c])], prefetch: { declared: false } })
    const ctx = { callerId: "A" }
    const pair = async (q: string) => {
      await runner.callTool({ name: "q/a", arguments: { q }, context: ctx })
      await tick(2)
      await runner.callTool({ name: "q/b", arguments: { id: `${q}-id` }, context: ctx })
      await tick(2)
    }
    for (const q of ["x", "y", "z", "w"]) await pair(q)
    const before = runner.prefetch!.stats()
    // The pattern is learned; the next a's follow-up is planned after the call returned, not inside it.
    await runner.callTool({ name: "q/a", arguments: { q: "v" }, context: ctx })
    expect(runner.prefetch!.stats().issued).toBe(before.issued)
    await tick(2)
    expect(runner.prefetch!.stats().issued).toBe(before.issued + 1)
    const served = await runner.callTool({ name: "q/b", arguments: { id: "v-id" }, context: ctx })
    expect(served.structuredContent).toEqual({ id: "v-id" })
    expect(runner.prefetch!.stats().hits).toBe(before.hits + 1)
    await tick(2)
    // 600 calls within one turn of the event loop: more than the learner's ring holds (it sees only the
    // last of them and restarts the caller's history there); every call is still counted.
    const burst: Promise<unknown>[] = []
    for (let i = 0; i < 300; i++) {
      burst.push(runner.callTool({ name: "q/a", arguments: { q: `burst${i}` }, context: ctx }))
      burst.push(runner.callTool({ name: "q/c", arguments: { n: i }, context: ctx }))
    }
    await Promise.all(burst)
    await tick(2)
    const after = runner.prefetch!.stats()
    expect(after.calls).toBe(before.calls + 2 + 600)
    // Learning goes on after the burst: the pair pattern still serves.
    await pair("u")
    expect(runner.prefetch!.stats().hits).toBeGreaterThan(after.hits)
  })

  it("with learning and declared links off nothing is issued", async () => {
    const { runner } = makeRunner({ learning: false, declared: false })
    for (let i = 0; i < 5; i++) {
      await runner.callTool({ name: "kv/list", arguments: {}, context: { callerId: "A" } })
      await runner.callTool({ name: "kv/get", arguments: { key: "a" }, context: { callerId: "A" } })
    }
    await settle(runner)
    expect(runner.prefetch!.stats()).toMatchObject({ calls: 10, issued: 0 })
  })
})

describe("prefetch: caps under 1,000 concurrent calls", () => {
  it("holds maxParallel overall and perHost per rate-limit host", async () => {
    const gauge = { now: 0, max: 0, perHost: new Map<string, number>(), maxPerHost: 0 }
    const fetchTool = defineTool({
      id: "c/fetch",
      input: z.object({ url: z.string() }),
      annotations: { readOnlyHint: true },
      handler: async ({ url }) => {
        const host = new URL(url).host
        gauge.now++
        gauge.max = Math.max(gauge.max, gauge.now)
        const n = (gauge.perHost.get(host) ?? 0) + 1
        gauge.perHost.set(host, n)
        gauge.maxPerHost = Math.max(gauge.maxPerHost, n)
        await tick(3)
        gauge.perHost.set(host, gauge.perHost.get(host)! - 1)
        gauge.now--
        return { url }
      },
    })
    const search = defineTool({
      id: "c/search",
      input: z.object({ i: z.number() }),
      annotations: { readOnlyHint: true },
      handler: ({ i }) => ({
        urls: [`https://h${i % 3}.example/${i}`, `https://h${(i + 1) % 3}.example/${i}`],
      }),
    })
    const runner = createRunner({
      backends: [definitionBackend([fetchTool, search])],
      enrichers: [
        defineEnricher({
          name: "web",
          categories: [],
          valueModel: (id) =>
            id === "c/search"
              ? { followUps: [{ toolId: "c/fetch", projection: "/urls", projectionArg: "url" }] }
              : undefined,
          rateLimitHost: (id, args) => (id === "c/fetch" ? new URL(String(args.url)).host : undefined),
        }),
      ],
      prefetch: { learning: false, maxParallel: 5, perHost: 2 },
    })
    const calls = Array.from({ length: 1000 }, (_, i) =>
      runner.callTool({ name: "c/search", arguments: { i }, context: { callerId: `caller-${i % 50}` } }),
    )
    await Promise.all(calls)
    for (let i = 0; i < 200 && runner.prefetch!.stats().inFlight > 0; i++) await tick(2)
    const stats = runner.prefetch!.stats()
    expect(stats.issued).toBeGreaterThan(0)
    expect(stats.skipped).toBeGreaterThan(0)
    expect(gauge.max).toBeLessThanOrEqual(5)
    expect(gauge.maxPerHost).toBeLessThanOrEqual(2)
    expect(stats.inFlight).toBe(0)
  })
})
