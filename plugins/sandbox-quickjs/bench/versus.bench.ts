/**
 * This version of the sandbox against an earlier one, in the same process: the earlier version's
 * `src/` is taken from git (`BASE_REV`, default `c8280f1`, the `main` before the shared-ring bridge)
 * into a temporary folder next to this file, and both run the same programs in interleaved rounds.
 *
 * Measure: bridged call overhead per call = (a program making CALLS calls − the same program making
 * none) ÷ CALLS − the host function awaited directly ÷ CALLS, per round; the ratio this ÷ base is the
 * median of per-round ratios. Settings: BENCH_ROUNDS (default 15), BASE_REV.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { benchSettings, fmt, heading, markdownTable, median } from "@toolplane/bench-kit"
import type { Sandbox } from "@toolplane/exec"
import { quickJsSandbox } from "../src/index.js"

const settings = benchSettings({ rounds: 15, roundMs: 300 }) // roundMs is not used here
const BASE = process.env.BASE_REV ?? "c8280f1"
const CALLS = 300
const here = dirname(fileURLToPath(import.meta.url))
const pkg = join(here, "..")

let repoRoot: string
let files: string[]
try {
  repoRoot = execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: pkg, encoding: "utf8" }).trim()
  const src = relative(repoRoot, join(pkg, "src"))
  files = execFileSync("git", ["ls-tree", "-r", "--name-only", BASE, `${src}/`], {
    cwd: repoRoot,
    encoding: "utf8",
  })
    .split("\n")
    .filter((f) => f.endsWith(".ts"))
} catch (error) {
  console.log(`versus.bench: skipped, cannot read ${BASE} from git (${String(error)})`)
  process.exit(0)
}
const baseDir = join(here, `.base-${BASE.replace(/[^\w]/g, "")}`)
rmSync(baseDir, { recursive: true, force: true })
const srcPrefix = `${relative(repoRoot, join(pkg, "src"))}/`
for (const file of files) {
  const target = join(baseDir, file.slice(srcPrefix.length))
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, execFileSync("git", ["show", `${BASE}:${file}`], { cwd: repoRoot }))
}

try {
  const baseModule = (await import(pathToFileURL(join(baseDir, "index.ts")).href)) as {
    quickJsSandbox: (options?: { maxWorkers?: number; warmWorkers?: number }) => Sandbox
  }
  const variants = {
    [`base (${BASE})`]: baseModule.quickJsSandbox({ maxWorkers: 1, warmWorkers: 1 }),
    "this version": quickJsSandbox({ maxWorkers: 1, warmWorkers: 1 }),
  }
  const names = Object.keys(variants)
  const loop = (n: number) => `let s = 0; for (let i = 0; i < ${n}; i++) s += await call(i); return s`
  const hostFn = async ([x]: readonly unknown[]) => x
  const limits = { maxHostCalls: 10 * CALLS, wallTimeMs: 60_000 }
  const time = async (sandbox: Sandbox, n: number) => {
    const t0 = performance.now()
    const run = await sandbox.run({ code: loop(n), functions: { call: hostFn }, limits })
    if (run.result !== (n * (n - 1)) / 2) throw new Error(`wrong result ${String(run.result)}`)
    return performance.now() - t0
  }
  const direct = async () => {
    const t0 = performance.now()
    for (let i = 0; i < CALLS; i++) await hostFn([i])
    return performance.now() - t0
  }
  for (const sandbox of Object.values(variants)) {
    await time(sandbox, CALLS)
    await time(sandbox, 0)
  }
  const overhead: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]))
  const ratios: number[] = []
  for (let round = 0; round < settings.rounds; round++) {
    const perRound: Record<string, number> = {}
    // Rotate the order each round, so neither version always runs first.
    for (let j = 0; j < names.length; j++) {
      const name = names[(round + j) % names.length]!
      const sandbox = variants[name]!
      const full = await time(sandbox, CALLS)
      const empty = await time(sandbox, 0)
      perRound[name] = ((full - empty - (await direct())) * 1000) / CALLS
      overhead[name]!.push(perRound[name])
    }
    ratios.push(perRound["this version"]! / perRound[names[0]!]!)
  }
  for (const sandbox of Object.values(variants)) await sandbox.close()

  console.log(
    heading(
      "QuickJS sandbox: this version versus an earlier one",
      `${settings.rounds} interleaved rounds of a ${CALLS}-call program and a 0-call program per version; value = median of rounds`,
    ),
  )
  console.log(
    markdownTable(
      ["version", "bridged call overhead per call", "spread over rounds", "÷ base"],
      names.map((name, i) => [
        name,
        `${fmt(median(overhead[name]!), 1)} µs`,
        `${fmt(Math.min(...overhead[name]!), 1)}–${fmt(Math.max(...overhead[name]!), 1)} µs`,
        i === 0
          ? "1.00x"
          : `${fmt(median(ratios), 2)}x (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}x)`,
      ]),
    ),
  )
} finally {
  rmSync(baseDir, { recursive: true, force: true })
}
