/**
 * The one build configuration every package shares: ESM, declarations, source maps, Node 22.
 * A package's tsup.config.ts names only what differs (entries, externals).
 */
import { defineConfig, type Options } from "tsup"

export const packageBuild = (overrides: Options = {}) =>
  defineConfig({
    entry: ["src/index.ts"],
    format: ["esm"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node22",
    ...overrides,
  })
