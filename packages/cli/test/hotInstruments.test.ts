import { Counter, Histogram, Registry } from "prom-client"
import { describe, expect, it } from "vitest"
import { hotCounter, hotHistogram } from "../src/ops/hotInstruments.js"

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

/** A label value and an observation, in the order they happen; past the top bound and at a bound included. */
const observations: readonly [string, number][] = [
  ["up", 0.0012],
  ["b", 100],
  ["up", 0.0005],
  ["none", 0],
  ["up", 0.3],
  ["b", 0.01],
  ["up", 60],
]

describe("hot instruments: the exposition prom-client's own instruments give", () => {
  it("a one-label histogram: buckets, +Inf, _sum and _count per label value, in first-observed order", async () => {
    const reference = new Registry()
    const promHistogram = new Histogram({
      name: "h_seconds",
      help: "h",
      labelNames: ["backend"],
      buckets: BUCKETS,
      registers: [reference],
    })
    const hot = new Registry()
    const histogram = hotHistogram(hot, { name: "h_seconds", help: "h", label: "backend", buckets: BUCKETS })
    // A cell taken and never observed is not exported (prom-client exports a label set once observed).
    histogram.cell("never")
    expect(await hot.metrics()).toBe(await reference.metrics())
    for (const [backend, value] of observations) {
      promHistogram.labels(backend).observe(value)
      histogram.cell(backend).observe(value)
    }
    expect(await hot.metrics()).toBe(await reference.metrics())
    expect(await hot.getMetricsAsJSON()).toEqual(await reference.getMetricsAsJSON())
    expect(() => histogram.cell("up").observe(Number.NaN)).toThrow(TypeError)
    reference.resetMetrics()
    hot.resetMetrics()
    expect(await hot.metrics()).toBe(await reference.metrics())
    promHistogram.labels("b").observe(2)
    histogram.cell("b").observe(2)
    expect(await hot.metrics()).toBe(await reference.metrics())
  })

  it("a labelled counter: one sample per label set, in first-counted order", async () => {
    const reference = new Registry()
    const promCounter = new Counter({
      name: "c_total",
      help: "c",
      labelNames: ["tool", "outcome"],
      registers: [reference],
    })
    const hot = new Registry()
    const counter = hotCounter(hot, { name: "c_total", help: "c", labelNames: ["tool", "outcome"] })
    const cells = new Map<string, { n: number }>()
    for (const [tool, outcome] of [
      ["a", "ok"],
      ["b", "Timeout"],
      ["a", "ok"],
      ["a", "tool_error"],
      ["b", "Timeout"],
      ["a", "ok"],
    ] as const) {
      promCounter.labels(tool, outcome).inc()
      const key = `${tool}/${outcome}`
      let cell = cells.get(key)
      if (cell === undefined) cells.set(key, (cell = counter.cell({ tool, outcome })))
      cell.n++
    }
    expect(await hot.metrics()).toBe(await reference.metrics())
    // Scraping twice reports the same totals (collect copies, it does not add).
    expect(await hot.metrics()).toBe(await reference.metrics())
  })
})
