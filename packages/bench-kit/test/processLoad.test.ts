/**
 * Spawning a server process, stopping it, and CPU per call under load (no timing assertions beyond
 * "a busy call costs CPU").
 */
import { existsSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { callsWithCpu, cpuTable, loadWithCpu, spawnNodeUntil, stopProcess } from "../src/processLoad.js"

describe("bench harness: processes under load", () => {
  it("waits for the line that names a process's address, and stops it", async () => {
    const { child, match } = await spawnNodeUntil(
      [
        "-e",
        'process.stderr.write("noise\\n"); setTimeout(() => process.stdout.write("at http://127.0.0.1:1234/mcp\\n"), 50); setInterval(() => {}, 1000)',
      ],
      { pattern: /at (http:\/\/\S+)\n/, otherStream: "ignore" },
    )
    expect(match).toBe("http://127.0.0.1:1234/mcp")
    await stopProcess(child)
    expect(child.signalCode ?? child.exitCode).not.toBeNull()
  })

  it("rejects with the output when the process exits before its line", async () => {
    await expect(
      spawnNodeUntil(["-e", 'process.stdout.write("boom\\n"); process.exit(3)'], { pattern: /ready/ }),
    ).rejects.toThrow(/exited \(3\).*boom/s)
  })

  it.skipIf(!existsSync("/proc/self/stat"))(
    "charges the CPU the process spent during the measured window per call (warm-up excluded)",
    async () => {
      const busy = async () => {
        const until = performance.now() + 2
        while (performance.now() < until) {}
      }
      const sample = await loadWithCpu(busy, { pid: process.pid, concurrency: 1, ms: 200, warmupMs: 50 })
      expect(sample.calls).toBeGreaterThan(10)
      // Each call spins 2 ms on this process's CPU.
      expect(sample.cpuPerCall).toBeGreaterThan(1000)
      const none = await loadWithCpu(busy, { pid: undefined, concurrency: 1, ms: 20, warmupMs: 0 })
      expect(none.cpuPerCall).toBeNaN()
    },
  )

  it("makes exactly the number of calls asked for, from at most `concurrency` workers", async () => {
    let made = 0
    let inFlight = 0
    let most = 0
    const call = async () => {
      made++
      most = Math.max(most, ++inFlight)
      await new Promise((r) => setTimeout(r, 1))
      inFlight--
      return made
    }
    const sample = await callsWithCpu(call, { pid: undefined, calls: 101, concurrency: 8 })
    expect(made).toBe(101)
    expect(most).toBe(8)
    expect(sample.calls).toBe(101)
    expect(sample.ms).toBeGreaterThan(0)
    expect(sample.cpuPerCall).toBeNaN()
    made = 0
    expect((await callsWithCpu(call, { pid: undefined, calls: 0, concurrency: 8 })).calls).toBe(0)
    expect(made).toBe(0)
    await expect(
      callsWithCpu(call, {
        pid: undefined,
        calls: 5,
        concurrency: 1,
        check: (n) => {
          if (n === 3) throw new Error("wrong answer 3")
        },
      }),
    ).rejects.toThrow("wrong answer 3")
  })

  it.skipIf(!existsSync("/proc/self/stat"))(
    "charges the CPU the process spent during those calls per call",
    async () => {
      const busy = async () => {
        const until = performance.now() + 2
        while (performance.now() < until) {}
      }
      const sample = await callsWithCpu(busy, { pid: process.pid, calls: 50, concurrency: 1 })
      // Each call spins 2 ms on this process's CPU.
      expect(sample.cpuPerCall).toBeGreaterThan(1000)
      expect(sample.ms).toBeGreaterThanOrEqual(100)
    },
  )

  it("tables CPU per call with per-round ratios", () => {
    const s = (cpuPerCall: number) => ({ calls: 1, throughput: 1, p50: 1, p99: 1, cpuPerCall })
    const table = cpuTable(new Map([[1, { baseline: [s(100), s(200)], candidate: [s(50), s(150)] }]]), {
      baseline: "before",
      candidate: "after",
    })
    expect(table).toContain("before µs/call")
    expect(table).toMatch(/\| 1 \| 150 \| 100 \| 0\.63 \(0\.50, 0\.75\) \|/)
  })
})
