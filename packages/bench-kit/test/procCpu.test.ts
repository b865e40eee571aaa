/**
 * The /proc CPU reader the gateway benchmarks use (no timing assertions).
 */
import { existsSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { parseProcStat, processCpuUs, processThreadsCpuUs } from "../src/procCpu.js"

describe("bench harness: /proc CPU reader", () => {
  it("reads utime + stime after the last parenthesis, even when the command name has spaces and parens", () => {
    const line = "4242 (node (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 7 9 20 0 11 0 123 456 789"
    expect(parseProcStat(line, 100)).toBe(3_000_000) // (250 + 50) ticks at 100 Hz = 3 s
    expect(parseProcStat(line, 1000)).toBe(300_000)
  })

  it("rejects text that is not a stat line", () => {
    expect(() => parseProcStat("garbage", 100)).toThrow(RangeError)
    expect(() => parseProcStat("1 (x) S 1", 100)).toThrow(RangeError)
  })

  it.skipIf(!existsSync("/proc/self/stat"))("reads this process's own CPU time, which only grows", () => {
    const before = processCpuUs(process.pid)
    let x = 0
    for (let i = 0; i < 2e7; i++) x += i % 7
    const after = processCpuUs(process.pid)
    expect(x).toBeGreaterThan(0)
    expect(before).toBeTypeOf("number")
    expect(after!).toBeGreaterThanOrEqual(before!)
    expect(processCpuUs(2 ** 22 + 12345)).toBeUndefined()
  })

  it.skipIf(!existsSync("/proc/self/task"))(
    "sums this process's threads from schedstat: it grows with work and agrees with /proc/<pid>/stat",
    () => {
      const before = processThreadsCpuUs(process.pid)
      const ticksBefore = processCpuUs(process.pid)
      let x = 0
      for (let i = 0; i < 5e7; i++) x += i % 7
      const after = processThreadsCpuUs(process.pid)
      const ticksAfter = processCpuUs(process.pid)
      expect(x).toBeGreaterThan(0)
      const spent = after! - before!
      expect(spent).toBeGreaterThan(0)
      // The tick count (10 ms resolution) and the exact count describe the same work.
      expect(Math.abs(spent - (ticksAfter! - ticksBefore!))).toBeLessThan(Math.max(30_000, spent * 0.5))
      expect(processThreadsCpuUs(2 ** 22 + 12345)).toBeUndefined()
    },
  )
})
