import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"
import { isolatedTestFiles } from "./vitest.isolation.js"

const include = ["{packages,plugins,examples}/*/test/**/*.test.ts", "test/**/*.test.ts"]
// Files that touch process-wide state keep a module graph of their own; the rest share their worker's
// (see vitest.isolation.ts for the rule).
const isolated = isolatedTestFiles(import.meta.dirname, ["packages", "plugins", "examples", "test"])

export default defineConfig({
  resolve: {
    conditions: ["@toolplane/source"],
  },
  ssr: {
    resolve: {
      conditions: ["@toolplane/source"],
    },
  },
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Most files spend their time waiting on subprocesses, sockets and timers, so a third worker on a
    // 2-core machine pays: the whole suite went from 660 s to 365 s there, same commit, all green.
    maxWorkers: Math.max(3, availableParallelism()),
    projects: [
      { extends: true, test: { name: "shared", include, exclude: isolated, isolate: false } },
      { extends: true, test: { name: "isolated", include: isolated, isolate: true } },
    ],
  },
})
