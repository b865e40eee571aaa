/** The precision budget: a caller's surplus precision pays for less certain rules. */
import { defineEnricher, defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { createRunner, type PrefetchOptions } from "../src/index.js"
import { tick } from "./helpers.js"

/**
 * After `p/start` a provider declares two follow-ups: `p/good`, which the caller always calls next, and
 * `p/meh`, which it calls in two rounds of five. Returns the runner's counters and how often `p/meh` ran
 * speculatively.
 */
const rounds = async (options: PrefetchOptions, n: number) => {
  let mehRuns = 0
  const noArgs = z.object({})
  const tools = [
    defineTool({ id: "p/start", input: noArgs, annotations: { readOnlyHint: true }, handler: () => ({}) }),
    defineTool({ id: "p/good", input: noArgs, annotations: { readOnlyHint: true }, handler: () => "good" }),
    defineTool({
      id: "p/meh",
      input: noArgs,
      annotations: { readOnlyHint: true },
      handler: () => {
        mehRuns++
        return "meh"
      },
    }),
  ]
  const links = defineEnricher({
    name: "p-links",
    categories: [],
    valueModel: (id) =>
      id === "p/start" ? { followUps: [{ toolId: "p/good" }, { toolId: "p/meh" }] } : undefined,
  })
  const runner = createRunner({
    backends: [definitionBackend(tools)],
    enrichers: [links],
    prefetch: { learning: false, ttlMs: 15, ...options },
  })
  const context = { callerId: "agent" }
  let mehCalls = 0
  for (let i = 0; i < n; i++) {
    await runner.callTool({ name: "p/start", context })
    await tick(1)
    await runner.callTool({ name: "p/good", context })
    if (i % 5 === 1 || i % 5 === 3) {
      mehCalls++
      await runner.callTool({ name: "p/meh", context })
    }
    await tick(25) // unused prefetches expire before the next round
  }
  const stats = runner.prefetch!.stats()
  await runner.close()
  return { stats, mehRuns, mehCalls }
}

describe("prefetch: precision budget", () => {
  it("spends the caller's surplus on a rule below minPrecision, keeping overall precision at or above it", async () => {
    const off = await rounds({ precisionBudget: false }, 30)
    const on = await rounds({}, 30)
    // Without the budget, p/meh's rule (used 2 in 5) is held back after its first unused prefetch: it only
    // runs as an occasional probe, and its calls are rarely served.
    expect(off.stats.hits).toBeLessThan(30 + 4)
    expect(off.stats.issued).toBeLessThan(30 + 8)
    // With it, the surplus of p/good (always used) pays for p/meh: most of its calls are served.
    expect(on.stats.hits).toBeGreaterThanOrEqual(30 + on.mehCalls - 3)
    expect(on.stats.hits).toBeGreaterThan(off.stats.hits + 3)
    expect(on.stats.issued).toBeGreaterThan(50)
    expect(on.stats.hits / on.stats.issued).toBeGreaterThanOrEqual(0.5)
  })

  it("never spends on a rule estimated below the floor", async () => {
    // A floor above p/meh's estimate: the budget cannot pay for it, as with the budget off.
    const high = await rounds({ precisionBudget: { floor: 0.45 } }, 30)
    expect(high.stats.issued).toBeLessThan(30 + 8)
    expect(high.stats.hits).toBeLessThan(30 + 4)
  })

  it("spends only the surplus above its target", async () => {
    const strict = await rounds({ precisionBudget: { target: 0.8 } }, 30)
    const loose = await rounds({ precisionBudget: { target: 0.5 } }, 30)
    expect(strict.stats.hits / strict.stats.issued).toBeGreaterThanOrEqual(0.75)
    expect(strict.stats.issued).toBeLessThan(loose.stats.issued)
    expect(loose.stats.hits / loose.stats.issued).toBeGreaterThanOrEqual(0.5)
  })
})
