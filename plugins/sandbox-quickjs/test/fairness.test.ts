/**
 * Fair code mode: per-caller caps on programs running and queued, time spent queued counted against the
 * program's wall-clock limit, and round-robin across callers, so one caller's runaway programs cannot
 * starve another caller's.
 */
import { codeExecutor, createRunner } from "@toolplane/exec"
import { SandboxLimit, SandboxTimeout } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { quickJsSandbox } from "../src/index.js"

const settle = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  )

describe("fair scheduling of programs across callers", () => {
  it("serves another caller's short program at once while one caller floods the sandbox with runaways", async () => {
    const sandbox = quickJsSandbox({ maxWorkers: 2, warmWorkers: 2 })
    const executor = codeExecutor({ sandbox, limits: { wallTimeMs: 1000 } })
    const runner = createRunner({ backends: [] })
    try {
      const warm = { code: "return 0", limits: { wallTimeMs: 20_000 } }
      await Promise.all([sandbox.run(warm), sandbox.run(warm)])
      const flood = Array.from({ length: 6 }, () =>
        settle(executor.execute("for (;;) {}", { tools: runner, context: { callerId: "greedy" } })),
      )
      await new Promise((r) => setTimeout(r, 50))
      const started = performance.now()
      const other = await executor.execute("return 1 + 1", { tools: runner, context: { callerId: "other" } })
      const waited = performance.now() - started
      expect(other.result).toBe(2)
      expect(waited).toBeLessThan(700)
      for (const o of await Promise.all(flood)) {
        expect(o.ok).toBe(false)
        expect([SandboxTimeout, SandboxLimit].some((t) => (o as { error: unknown }).error instanceof t)).toBe(
          true,
        )
      }
    } finally {
      await sandbox.close()
    }
  })

  it("refuses a caller's program at once with SandboxLimit past its queue cap, and times out queued programs at their wall time", async () => {
    const sandbox = quickJsSandbox({
      maxWorkers: 2,
      warmWorkers: 2,
      maxRunsPerCaller: 1,
      maxQueuedPerCaller: 1,
    })
    try {
      await sandbox.run({ code: "return 0", limits: { wallTimeMs: 20_000 } })
      const limits = { wallTimeMs: 800 }
      const first = settle(sandbox.run({ code: "for (;;) {}", caller: "a", limits }))
      const queuedAt = performance.now()
      const second = settle(sandbox.run({ code: "return 'late'", caller: "a", limits }))
      const refusedAt = performance.now()
      const third = await settle(sandbox.run({ code: "return 'never'", caller: "a", limits }))
      // Queued instead, it would have waited for the 800 ms wall time.
      expect(performance.now() - refusedAt).toBeLessThan(500)
      expect(third.ok).toBe(false)
      expect((third as { error: unknown }).error).toBeInstanceOf(SandboxLimit)
      expect((third as { error: SandboxLimit }).error).toMatchObject({ limit: "queue", max: 1 })
      // Another caller is not affected by a's cap.
      expect((await sandbox.run({ code: "return 'b'", caller: "b" })).result).toBe("b")
      const queued = await second
      const queuedFor = performance.now() - queuedAt
      expect(queued.ok).toBe(false)
      expect((queued as { error: unknown }).error).toBeInstanceOf(SandboxTimeout)
      expect((queued as { error: SandboxTimeout }).error.timeoutMs).toBe(800)
      expect((queued as { error: SandboxTimeout }).error.message).toMatch(/waiting for a free sandbox/)
      expect(queuedFor).toBeLessThan(800 + 1000)
      expect((await first).ok).toBe(false)
    } finally {
      await sandbox.close()
    }
  })

  it("counts the time a program waited for a worker against its wall-clock limit", async () => {
    const sandbox = quickJsSandbox({ maxWorkers: 1, warmWorkers: 1 })
    try {
      await sandbox.run({ code: "return 0", limits: { wallTimeMs: 20_000 } })
      const blocker = sandbox.run({
        code: "await hold(); return 'held'",
        caller: "x",
        functions: { hold: () => new Promise((r) => setTimeout(() => r(null), 1500)) },
      })
      await new Promise((r) => setTimeout(r, 20))
      const started = performance.now()
      const late = await settle(
        sandbox.run({ code: "for (;;) {}", caller: "y", limits: { wallTimeMs: 700 } }),
      )
      const elapsed = performance.now() - started
      expect((late as { error: unknown }).error).toBeInstanceOf(SandboxTimeout)
      // Without counting the wait it would end at about 1500 + 700 ms.
      expect(elapsed).toBeLessThan(1800)
      expect((await blocker).result).toBe("held")
    } finally {
      await sandbox.close()
    }
  })

  it("takes queued programs round-robin across callers", async () => {
    const sandbox = quickJsSandbox({ maxWorkers: 1, warmWorkers: 1 })
    try {
      await sandbox.run({ code: "return 0", limits: { wallTimeMs: 20_000 } })
      let release: () => void = () => {}
      let holding: () => void = () => {}
      const held = new Promise<void>((r) => (holding = r))
      const blocker = sandbox.run({
        code: "await hold(); return 1",
        caller: "z",
        functions: {
          hold: () =>
            new Promise<null>((r) => {
              release = () => r(null)
              holding()
            }),
        },
        limits: { wallTimeMs: 20_000 },
      })
      await held
      const order: string[] = []
      const mark = { mark: async ([n]: readonly unknown[]) => order.push(String(n)) }
      const names = ["a1", "a2", "a3", "b1", "c1", "b2"]
      const runs = names.map((n) =>
        sandbox.run({
          code: `await mark('${n}')`,
          caller: n.slice(0, 1),
          functions: mark,
          limits: { wallTimeMs: 20_000 },
        }),
      )
      release()
      await Promise.all([blocker, ...runs])
      expect(order).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"])
    } finally {
      await sandbox.close()
    }
  })
})
