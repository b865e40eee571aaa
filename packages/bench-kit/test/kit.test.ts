import { describe, expect, it } from "vitest"
import {
  benchSettings,
  closedLoop,
  compare,
  compareLoad,
  comparisonTable,
  interleaved,
  type LoadSample,
  loadTable,
  markdownTable,
  median,
  percentile,
  ratio,
  verdict,
} from "../src/index.js"

describe("median and percentile", () => {
  it("median averages the two middle values of an even count and ignores order", () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([])).toBeNaN()
  })

  it("percentile is the nearest rank", () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i) // 100..1, unsorted
    expect(percentile(xs, 50)).toBe(50)
    expect(percentile(xs, 99)).toBe(99)
    expect(percentile(xs, 100)).toBe(100)
    expect(percentile([7], 1)).toBe(7)
    expect(() => percentile(xs, 0)).toThrow(RangeError)
    expect(() => percentile(xs, 0.99 * 0)).toThrow("percentile must be in (0, 100]")
  })
})

describe("benchSettings", () => {
  const defaults = { rounds: 8, roundMs: 300, concurrency: [1, 32] }
  it("takes the defaults, overridden by BENCH_ROUNDS, BENCH_ROUND_MS and BENCH_CONCURRENCY", () => {
    expect(benchSettings(defaults, {})).toEqual({ ...defaults, warmupCalls: 0 })
    expect(
      benchSettings(defaults, { BENCH_ROUNDS: "3", BENCH_ROUND_MS: "50", BENCH_CONCURRENCY: "4,8" }),
    ).toEqual({ rounds: 3, roundMs: 50, concurrency: [4, 8], warmupCalls: 0 })
  })

  it("reads BENCH_WARMUP_CALLS over the benchmark's default, 0 allowed", () => {
    expect(benchSettings({ ...defaults, warmupCalls: 20_000 }, {}).warmupCalls).toBe(20_000)
    expect(benchSettings({ ...defaults, warmupCalls: 20_000 }, { BENCH_WARMUP_CALLS: "0" }).warmupCalls).toBe(
      0,
    )
    expect(benchSettings(defaults, { BENCH_WARMUP_CALLS: "5000" }).warmupCalls).toBe(5000)
    expect(() => benchSettings(defaults, { BENCH_WARMUP_CALLS: "-1" })).toThrow(
      'BENCH_WARMUP_CALLS must be a non-negative integer, got "-1"',
    )
    expect(() => benchSettings(defaults, { BENCH_WARMUP_CALLS: "5k" })).toThrow("BENCH_WARMUP_CALLS")
  })

  it("rejects malformed values and retired variables, naming them", () => {
    expect(() => benchSettings(defaults, { BENCH_ROUNDS: "three" })).toThrow(
      'BENCH_ROUNDS must be a positive integer, got "three"',
    )
    expect(() => benchSettings(defaults, { BENCH_CONCURRENCY: "1,0" })).toThrow("BENCH_CONCURRENCY")
    expect(() => benchSettings(defaults, { BENCH_STACK_ROUNDS: "40" })).toThrow(
      "BENCH_STACK_ROUNDS is no longer read; set BENCH_ROUNDS",
    )
  })
})

describe("interleaved rounds", () => {
  it("runs every case once per round, rotating which goes first", async () => {
    const order: string[] = []
    await interleaved(3, ["a", "b", "c"], (c, round) => {
      order.push(`${round}${c}`)
    })
    expect(order).toEqual(["0a", "0b", "0c", "1b", "1c", "1a", "2c", "2a", "2b"])
  })

  it("compare measures a slower case as slower, sync and async alike", async () => {
    const spin = (n: number) => () => {
      let x = 0
      for (let i = 0; i < n; i++) x += i
      return x
    }
    const results = await compare(
      [
        { name: "fast", fn: spin(10) },
        { name: "slow", fn: spin(20_000) },
        { name: "async", fn: async () => spin(20_000)() },
      ],
      { rounds: 3, roundMs: 20, warmupMs: 10 },
    )
    expect(results.map((r) => r.name)).toEqual(["fast", "slow", "async"])
    for (const r of results) expect(r.rounds).toHaveLength(3)
    const [fast, slow] = results
    expect(slow!.usPerCall).toBeGreaterThan(fast!.usPerCall)
    expect(ratio(slow!, fast!)).toBeGreaterThan(1)
    expect(fast!.opsPerSec).toBeCloseTo(1e6 / fast!.usPerCall)
  })

  it("ratio is the median of per-round ratios", () => {
    const r = (name: string, rounds: number[]) => ({ name, rounds, usPerCall: median(rounds), opsPerSec: 0 })
    // per round: 2, 4, 3 -> 3 (while the ratio of medians would be 20/6)
    expect(ratio(r("a", [10, 40, 30]), r("b", [5, 10, 10]))).toBe(3)
  })
})

describe("closedLoop", () => {
  it("counts completed calls and checks every result", async () => {
    let calls = 0
    const sample = await closedLoop(
      async () => {
        calls++
        await new Promise((r) => setTimeout(r, 1))
        return "ok"
      },
      { concurrency: 4, ms: 60, warmupMs: 10 },
    )
    expect(sample.calls).toBeGreaterThan(4)
    expect(calls).toBeGreaterThanOrEqual(sample.calls)
    expect(sample.p99).toBeGreaterThanOrEqual(sample.p50)
    expect(sample.p50).toBeGreaterThanOrEqual(0.9)
    await expect(
      closedLoop(async () => "wrong", {
        concurrency: 1,
        ms: 5,
        warmupMs: 1,
        check: (r) => {
          if (r !== "ok") throw new Error(`wrong answer: ${r}`)
        },
      }),
    ).rejects.toThrow("wrong answer: wrong")
  })
})

describe("tables", () => {
  it("renders Markdown with right-aligned number columns", () => {
    expect(markdownTable(["case", "n"], [["a", 1]])).toBe("| case | n |\n| --- | ---: |\n| a | 1 |")
  })

  it("comparisonTable puts each case against the baseline and judges goals", () => {
    const r = (name: string, rounds: number[]) => ({
      name,
      rounds,
      usPerCall: median(rounds),
      opsPerSec: 1e6 / median(rounds),
    })
    const table = comparisonTable([r("bare", [2, 2]), r("stack", [2.2, 2.2])], {
      baseline: "bare",
      goals: { stack: { max: 1.05 } },
    })
    expect(table).toContain("| bare | 2.000 | 500,000 | baseline |  |")
    expect(table).toContain("| stack | 2.200 | 454,545 | 1.10x (+0.200 µs) | ≤ 1.05 MISS |")
    expect(() => comparisonTable([r("bare", [1])], { baseline: "none" })).toThrow('no case named "none"')
    expect(verdict(25, { min: 20 })).toBe("≥ 20 PASS")
  })
})

describe("load comparisons", () => {
  it("compareLoad measures both sides at every level once per round; loadTable pairs them by round", async () => {
    const seen: string[] = []
    const sample = (throughput: number): LoadSample => ({ calls: 1, throughput, p50: 1, p99: 2 })
    const results = await compareLoad(
      async (side, concurrency) => {
        seen.push(`${side}@${concurrency}`)
        return sample(side === "baseline" ? 100 : 50 * (seen.length % 2 === 0 ? 1 : 2))
      },
      { rounds: 2, concurrency: [1, 8] },
    )
    expect(seen).toHaveLength(8)
    expect(new Set(seen)).toEqual(new Set(["baseline@1", "candidate@1", "baseline@8", "candidate@8"]))
    expect(results.get(1)!.baseline).toHaveLength(2)
    expect(results.get(8)!.candidate).toHaveLength(2)
    const table = loadTable(
      new Map([[1, { baseline: [sample(100), sample(200)], candidate: [sample(50), sample(200)] }]]),
      { baseline: "direct", candidate: "gateway" },
      () => ({ min: 0.6 }),
    )
    expect(table).toContain("| concurrency | direct calls/s |")
    // per-round ratios 0.5 and 1 -> median 0.75
    expect(table).toContain("| 1 | 150 | 1.00 | 2.00 | 125 | 1.00 | 2.00 | 0.75 (0.50, 1.00) | ≥ 0.6 PASS |")
  })
})
