import { fc, test as fcTest } from "@fast-check/vitest"
import { defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { createRunner, type PrefetchOptions, prefetcherToEffect, type ToolRunner } from "../src/index.js"
import { extractLiterals, MessagePredictor, messageToolModel } from "../src/prefetch/messages.js"
import { makeRunner, outcome, settle } from "./prefetchFixture.js"

/** A weather service: a read-only lookup, a read-only lookup needing approval, a write; every run recorded. */
const weather = () => {
  const runs: { tool: string; args: unknown; caller: string | undefined }[] = []
  const saved = new Map<string, string>()
  const defs = [
    defineTool({
      id: "weather/current",
      description: "Current weather in a city",
      input: z.object({ city: z.string().regex(/^[A-Z][a-z]+$/) }),
      annotations: { readOnlyHint: true },
      handler: ({ city }, ctx) => {
        runs.push({ tool: "weather/current", args: { city }, caller: ctx.callerId })
        return { city, tempC: city.length, note: saved.get(city) ?? null }
      },
    }),
    defineTool({
      id: "weather/alerts",
      input: z.object({ city: z.string() }),
      annotations: { readOnlyHint: true },
      handler: ({ city }, ctx) => {
        runs.push({ tool: "weather/alerts", args: { city }, caller: ctx.callerId })
        return { city, alerts: [] }
      },
    }),
    defineTool({
      id: "weather/note",
      input: z.object({ city: z.string() }),
      handler: ({ city }, ctx) => {
        runs.push({ tool: "weather/note", args: { city }, caller: ctx.callerId })
        saved.set(city, "noted")
        return { city, noted: true }
      },
    }),
  ]
  return { runs, defs }
}

const weatherRunner = (prefetch: PrefetchOptions | true = true) => {
  const service = weather()
  const runner = createRunner({
    backends: [definitionBackend(service.defs, { approval: (id) => id === "weather/alerts" })],
    approver: { approve: async () => true },
    retry: false,
    prefetch,
  })
  return { runner, ...service }
}

/** One turn of a conversation: the user's message, then the model's calls (after a think pause). */
const turn = async (
  runner: ToolRunner,
  caller: string,
  text: string,
  calls: readonly { name: string; arguments: Record<string, unknown> }[],
) => {
  runner.prefetch!.observeMessage(caller, { role: "user", text })
  await settle(runner)
  for (const call of calls) {
    await runner.callTool({ ...call, context: { callerId: caller } })
    await settle(runner)
  }
}

const speculative = (runs: readonly { tool: string }[], tool: string, real: number) =>
  runs.filter((r) => r.tool === tool).length - real

describe("prefetch messages: literal extraction", () => {
  it("finds quoted strings, file names, numbers, dates and capitalized names, in order", () => {
    const found = extractLiterals(
      "I'd like the last five lines of 'report.csv' and of notes.txt, then grep for 'budget analysis'. " +
        "Fly on November 15th, 2026 or 2026-12-01; ask Lulu Qian about 42 items.",
    )
    const kinds = Object.fromEntries(found.map((l) => [l.kind, l.value]))
    expect(kinds.q1).toBe("report.csv")
    expect(kinds.q2).toBe("budget analysis")
    // "I'd" is not a quote: the first quoted text that is not a file name is the pattern.
    expect(kinds.w1).toBe("budget analysis")
    expect(kinds.f1).toBe("report.csv")
    expect(kinds.f2).toBe("notes.txt")
    expect(kinds.d1).toBe("2026-11-15")
    expect(kinds.d2).toBe("2026-12-01")
    expect(kinds.n1).toBe(5)
    expect(found.filter((l) => l.kind.startsWith("n") && l.kind !== "nums").map((l) => l.value)).toContain(42)
    expect(kinds.c1).toBe("Lulu Qian")
  })

  it("finds nothing in a text without literals", () => {
    expect(extractLiterals("what is going on here")).toEqual([])
  })
})

describe("prefetch messages: predictor", () => {
  const tool = messageToolModel({
    id: "w/current",
    name: "current",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  })
  const settings = { minConfidence: 0.5, horizon: 16 }

  it("replays a similar past turn with this message's values, and not a call already made", () => {
    const p = new MessagePredictor(settings)
    p.message("what's the weather in 'Oslo' today")
    expect(p.propose([tool], 4)).toEqual([])
    p.observe("w/current", { city: "Oslo" }, true)
    p.message("what's the weather in 'Paris' today")
    const proposals = p.propose([tool], 4)
    expect(proposals).toMatchObject([
      { toolId: "w/current", arguments: { city: "Paris" }, origin: "message" },
    ])
    // One similar turn is no certainty: a phantom neighbour that made no call is counted in.
    expect(proposals[0]!.confidence).toBeGreaterThan(0.5)
    expect(proposals[0]!.confidence).toBeLessThan(1)
    p.observe("w/current", { city: "Paris" }, true)
    expect(p.propose([tool], 4)).toEqual([])
  })

  it("proposes nothing for a message unlike any past turn, or when the value is missing", () => {
    const p = new MessagePredictor(settings)
    p.message("what's the weather in 'Oslo' today")
    p.observe("w/current", { city: "Oslo" }, true)
    p.message("please sort my bookshelf alphabetically")
    expect(p.propose([tool], 4)).toEqual([])
    p.message("what's the weather today")
    expect(p.propose([tool], 4)).toEqual([])
  })

  it("does not learn from calls to tools that are not eligible", () => {
    const p = new MessagePredictor(settings)
    p.message("what's the weather in 'Oslo' today")
    p.observe("w/current", { city: "Oslo" }, false)
    p.message("what's the weather in 'Paris' today")
    expect(p.propose([tool], 4)).toEqual([])
  })

  it("offers only the tools given with the message", () => {
    const p = new MessagePredictor(settings)
    p.message("what's the weather in 'Oslo' today")
    p.observe("w/current", { city: "Oslo" }, true)
    p.message("what's the weather in 'Paris' today", ["w/other"])
    expect(p.propose([tool], 4)).toEqual([])
  })
})

describe("prefetch messages: through the runner", () => {
  it("starts the call a user message suggests before the model asks, and serves it", async () => {
    const { runner, runs } = weatherRunner()
    await turn(runner, "A", "How warm is it in 'Oslo' right now?", [
      { name: "weather/current", arguments: { city: "Oslo" } },
    ])
    expect(runs.filter((r) => r.tool === "weather/current")).toHaveLength(1)
    runner.prefetch!.observeMessage("A", { role: "user", text: "How warm is it in 'Lima' right now?" })
    await settle(runner)
    // Started from the message alone, before any call of this turn.
    expect(runs.at(-1)).toEqual({ tool: "weather/current", args: { city: "Lima" }, caller: "A" })
    const result = await runner.callTool({
      name: "weather/current",
      arguments: { city: "Lima" },
      context: { callerId: "A" },
    })
    expect(result.structuredContent).toEqual({ city: "Lima", tempC: 4, note: null })
    expect(runs.filter((r) => r.tool === "weather/current")).toHaveLength(2)
    expect(runner.prefetch!.stats()).toMatchObject({ issued: 1, hits: 1, wasted: 0 })
  })

  it("learns from a call that completed right before the next message (no turn of the event loop between)", async () => {
    const { runner, runs } = weatherRunner()
    const context = { callerId: "A" }
    runner.prefetch!.observeMessage("A", { role: "user", text: "How warm is it in 'Oslo' right now?" })
    await runner.callTool({ name: "weather/current", arguments: { city: "Oslo" }, context })
    runner.prefetch!.observeMessage("A", { role: "user", text: "How warm is it in 'Lima' right now?" })
    await settle(runner)
    expect(runs.at(-1)).toEqual({ tool: "weather/current", args: { city: "Lima" }, caller: "A" })
  })

  it("never proposes arguments that fail validation", async () => {
    const { runner, runs } = weatherRunner()
    await turn(runner, "A", "How warm is it in 'Oslo' right now?", [
      { name: "weather/current", arguments: { city: "Oslo" } },
    ])
    // The quoted value does not match the schema's pattern: nothing runs, the proposal is skipped.
    runner.prefetch!.observeMessage("A", { role: "user", text: "How warm is it in 'new york' right now?" })
    await settle(runner)
    expect(runs).toHaveLength(1)
    expect(runner.prefetch!.stats().issued).toBe(0)
  })

  it("never prefetches a tool that needs approval or is not read-only", async () => {
    const { runner, runs } = weatherRunner()
    const cities = ["Oslo", "Rome", "Bern", "Kyiv"]
    for (const city of cities)
      await turn(runner, "A", `Any alerts for '${city}'? Note it down.`, [
        { name: "weather/alerts", arguments: { city } },
        { name: "weather/note", arguments: { city } },
      ])
    runner.prefetch!.observeMessage("A", { role: "user", text: "Any alerts for 'Lima'? Note it down." })
    await settle(runner)
    expect(speculative(runs, "weather/alerts", cities.length)).toBe(0)
    expect(speculative(runs, "weather/note", cities.length)).toBe(0)
    expect(runner.prefetch!.stats().issued).toBe(0)
  })

  it("keeps each caller's messages and past turns to itself", async () => {
    const { runner, runs } = weatherRunner()
    await turn(runner, "A", "How warm is it in 'Oslo' right now?", [
      { name: "weather/current", arguments: { city: "Oslo" } },
    ])
    // B has no past turns: A's do not predict for B.
    runner.prefetch!.observeMessage("B", { role: "user", text: "How warm is it in 'Lima' right now?" })
    await settle(runner)
    expect(runs).toHaveLength(1)
    // A's message starts a prefetch for A; B's identical call is not served from it.
    runner.prefetch!.observeMessage("A", { role: "user", text: "How warm is it in 'Lima' right now?" })
    await settle(runner)
    expect(runs).toHaveLength(2)
    await runner.callTool({
      name: "weather/current",
      arguments: { city: "Lima" },
      context: { callerId: "B" },
    })
    expect(runs.at(-1)).toEqual({ tool: "weather/current", args: { city: "Lima" }, caller: "B" })
    expect(runner.prefetch!.stats().hits).toBe(0)
  })

  it("ignores messages that are not the user's, without a caller id, or with the source off", async () => {
    for (const [options, caller, role] of [
      [true, "A", "assistant"],
      [true, undefined, "user"],
      [{ messages: false }, "A", "user"],
    ] as const) {
      const { runner, runs } = weatherRunner(options)
      await turn(runner, "A", "How warm is it in 'Oslo' right now?", [
        { name: "weather/current", arguments: { city: "Oslo" } },
      ])
      runner.prefetch!.observeMessage(caller, { role, text: "How warm is it in 'Lima' right now?" })
      await settle(runner)
      expect(runs).toHaveLength(1)
    }
  })

  it("has an Effect form", async () => {
    const { runner, runs } = weatherRunner()
    await turn(runner, "A", "How warm is it in 'Oslo' right now?", [
      { name: "weather/current", arguments: { city: "Oslo" } },
    ])
    const prefetcher = prefetcherToEffect(runner.prefetch!)
    await Effect.runPromise(
      prefetcher.observeMessage("A", { role: "user", text: "How warm is it in 'Rome' right now?" }),
    )
    await settle(runner)
    expect(runs.at(-1)).toEqual({ tool: "weather/current", args: { city: "Rome" }, caller: "A" })
  })
})

const turnArb = fc.record({
  caller: fc.constantFrom("A", "B"),
  text: fc.constantFrom(
    "show me 'a' please",
    "show me 'b' please",
    "list everything",
    "set 'a' to 'x'",
    "what is the secret of 'b'",
  ),
  calls: fc.array(
    fc.record({
      tool: fc.constantFrom("kv/get", "kv/list", "kv/put", "kv/secret", "kv/limited", "kv/touch"),
      key: fc.constantFrom("a", "b", "c"),
      value: fc.constantFrom("x", "y"),
    }),
    { minLength: 0, maxLength: 4 },
  ),
})

/** Prefetches issued over all runs of the property (it must exercise the message source at all). */
let issuedInProperty = 0

describe("prefetch messages: property over random conversations", () => {
  fcTest.prop([fc.array(turnArb, { minLength: 1, maxLength: 12 })], { numRuns: 40 })(
    "results and backend state equal the run without prefetch; only safe tools are prefetched",
    async (turns) => {
      const off = makeRunner(undefined)
      const on = makeRunner({ messages: { minConfidence: 0 }, learning: false, declared: false, ttlMs: 1000 })
      const results: string[][] = [[], []]
      for (const [i, r] of [off, on].entries())
        for (const t of turns) {
          r.runner.prefetch?.observeMessage(t.caller, { role: "user", text: t.text })
          await settle(r.runner)
          for (const c of t.calls) {
            const args =
              c.tool === "kv/list"
                ? {}
                : c.tool === "kv/put"
                  ? { key: c.key, value: c.value }
                  : { key: c.key }
            results[i]!.push(
              await outcome(
                r.runner.callTool({ name: c.tool, arguments: args, context: { callerId: t.caller } }),
              ),
            )
            await settle(r.runner)
          }
        }
      expect(results[1]).toEqual(results[0])
      expect([...on.service.state]).toEqual([...off.service.state])
      for (const tool of ["kv/secret", "kv/limited", "kv/touch", "kv/put"])
        expect(on.service.executions.filter((e) => e.tool === tool)).toEqual(
          off.service.executions.filter((e) => e.tool === tool),
        )
      // Speculative reads ran for the caller whose message planned them.
      const extra = on.service.executions.length - off.service.executions.length
      expect(extra).toBeLessThanOrEqual(on.runner.prefetch!.stats().issued - on.runner.prefetch!.stats().hits)
      issuedInProperty += on.runner.prefetch!.stats().issued
      on.runner.prefetch!.close()
    },
  )

  it("the property above issued message prefetches", () => {
    expect(issuedInProperty).toBeGreaterThan(0)
  })
})
