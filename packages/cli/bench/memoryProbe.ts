/**
 * Preloaded into the gateway process by `rss.bench.ts` (`node --expose-gc --import <this file>`): on
 * SIGUSR2 it runs a full garbage collection twice and appends the process's memory use, as one JSON line,
 * to the file named by TOOLPLANE_BENCH_MEMORY_FILE. Does nothing without that variable.
 */
import { appendFileSync } from "node:fs"

const file = process.env.TOOLPLANE_BENCH_MEMORY_FILE
const gc = (globalThis as { gc?: () => void }).gc
if (file !== undefined && file !== "") {
  process.on("SIGUSR2", () => {
    gc?.()
    gc?.()
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
    appendFileSync(
      file,
      `${JSON.stringify({ rss, heapUsed, heapTotal, external, arrayBuffers, gc: gc !== undefined })}\n`,
    )
  })
}
