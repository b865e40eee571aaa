/**
 * How the gateway benchmarks start `toolplane serve`: from source through tsx (default), or from the
 * built `dist/` with BENCH_GATEWAY_BUILD=dist (run `pnpm build` first; no tsx loader thread in the
 * process, no esbuild `keepNames` wrappers, so closer to what users run). Either way the node flags in
 * BENCH_GATEWAY_NODE_ARGS come first (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..")

/** `source` or `dist`, from BENCH_GATEWAY_BUILD. */
export const gatewayBuild = (): "source" | "dist" => {
  const build = process.env.BENCH_GATEWAY_BUILD ?? "source"
  if (build !== "source" && build !== "dist")
    throw new RangeError(`BENCH_GATEWAY_BUILD must be "source" or "dist", got "${build}"`)
  if (build === "dist" && !existsSync(join(cliDir, "dist", "main.js")))
    throw new Error("BENCH_GATEWAY_BUILD=dist needs packages/cli/dist/main.js: run `pnpm build` first")
  return build
}

/** Node arguments that run a TypeScript file from source (what `tsx` does, minus its wrapper process). */
export const tsNode = (file: string, ...args: string[]): string[] => [
  "--conditions=@toolplane/source",
  "--import",
  import.meta.resolve("tsx"),
  file,
  ...args,
]

/** Node arguments that run `toolplane <args>` (after `nodeArgs` and BENCH_GATEWAY_NODE_ARGS). */
export const gatewayNodeArgs = (args: readonly string[], nodeArgs: readonly string[] = []): string[] => {
  const fromEnv = (process.env.BENCH_GATEWAY_NODE_ARGS ?? "").split(/\s+/).filter(Boolean)
  const entry =
    gatewayBuild() === "dist" ? [join(cliDir, "bin", "toolplane.js")] : tsNode(join(cliDir, "src", "main.ts"))
  return [...fromEnv, ...nodeArgs, ...entry, ...args]
}
