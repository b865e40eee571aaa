import { defineConfig } from "vitest/config"

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
    include: ["{packages,plugins,examples}/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})
