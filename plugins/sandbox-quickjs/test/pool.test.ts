/**
 * The worker pool of the QuickJS sandbox: workers that cannot start, and runs queued behind busy workers.
 */
import { SandboxCrashed } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { quickJsSandbox } from "../src/index.js"

describe("quickJsSandbox worker pool", () => {
  it("fails a run with SandboxCrashed when workers cannot start, instead of restarting them forever", async () => {
    // A memory cap above what 32-bit WebAssembly can address: every worker fails while starting.
    const sandbox = quickJsSandbox({ maxMemoryBytes: 2 ** 33, warmWorkers: 1 })
    try {
      const error = await sandbox.run({ code: "return 1" }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(SandboxCrashed)
      expect((error as SandboxCrashed).reason).toMatch(/workers fail to start/)
    } finally {
      await sandbox.close()
    }
  })

  it("queues runs behind busy workers and runs them all, each in its own engine", async () => {
    const sandbox = quickJsSandbox({ maxWorkers: 2, warmWorkers: 1 })
    try {
      const runs = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          sandbox.run({
            code: `const seen = typeof globalThis.mark; globalThis.mark = ${i}; const v = await get(${i}); return [seen, v]`,
            functions: { get: async ([x]) => (x as number) * 2 },
          }),
        ),
      )
      expect(runs.map((r) => r.result)).toEqual(Array.from({ length: 8 }, (_, i) => ["undefined", i * 2]))
    } finally {
      await sandbox.close()
    }
  })

  it("fails queued runs with SandboxCrashed when closed", async () => {
    const sandbox = quickJsSandbox({ maxWorkers: 1, warmWorkers: 1 })
    const busy = sandbox
      .run({ code: "await wait(); return 1", functions: { wait: () => new Promise(() => {}) } })
      .catch((e: unknown) => e)
    const queued = sandbox.run({ code: "return 2" }).catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 50))
    await sandbox.close()
    expect(await busy).toBeInstanceOf(SandboxCrashed)
    expect(await queued).toBeInstanceOf(SandboxCrashed)
  })
})
