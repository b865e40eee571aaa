/**
 * The Effect face's call (`EffectToolRunner.callTool`, a span and an interruptible call per request)
 * versus the plain runner call (`ToolRunner.callTool`) on the same runner, in the same run: interleaved
 * rounds, medians. Each case runs batches of calls inside one Effect program / one async loop, as an
 * application would. With `BENCH_BASELINE=<checkout>` (a path to another checkout) the same two cases also run
 * against that checkout's exec and foundation sources, so the plain path can be compared with the
 * previous implementation in the same process.
 *
 * Run: `pnpm --filter @toolplane/exec bench` (or `tsx --conditions=@toolplane/source bench/effect.bench.ts`).
 */
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { benchSettings, compare, median } from "@toolplane/bench-kit"
import { defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { Effect } from "effect"
import { z } from "zod"
import { createRunner, toolRunnerToEffect } from "../src/index.js"

const settings = benchSettings({ rounds: 14, roundMs: 200 })
const ROUND_MS = settings.roundMs
const ROUNDS = settings.rounds
const BATCH = 200
const BASELINE = process.env.BENCH_BASELINE

const weather = defineTool({
  id: "weather/current",
  input: z.object({ city: z.string().min(2) }),
  annotations: { readOnlyHint: true },
  handler: async ({ city }) => `Sunny in ${city}, 21°C`,
})
const request = { name: "weather/current", arguments: { city: "Oslo" } }

interface Case {
  readonly name: string
  /** Runs `n` calls and resolves when they are done. */
  readonly batch: (n: number) => Promise<void>
  readonly samples: number[]
}

const plainCase = (name: string, runner: { callTool(r: typeof request): Promise<unknown> }): Case => ({
  name,
  samples: [],
  batch: async (n) => {
    for (let i = 0; i < n; i++) await runner.callTool(request)
  },
})

const effectCase = (name: string, callTool: (r: typeof request) => Effect.Effect<unknown, unknown>): Case => {
  const loop = (n: number) =>
    Effect.gen(function* () {
      for (let i = 0; i < n; i++) yield* callTool(request)
    })
  return { name, samples: [], batch: (n) => Effect.runPromise(loop(n)) }
}

const runner = createRunner({ backends: [definitionBackend([weather], { name: "weather" })] })
await runner.ready()
const effectRunner = toolRunnerToEffect(runner)
const plain = plainCase("plain: runner.callTool", runner)
const effect = effectCase("Effect: EffectToolRunner.callTool", effectRunner.callTool)
/** The least any Effect wrapper of the Promise pipeline costs: one async boundary, no interruption. */
const floor = effectCase("floor: Effect.promise(() => runner.callTool(r))", (r) =>
  Effect.promise(() => runner.callTool(r)),
)

let basePlain: Case | undefined
let baseEffect: Case | undefined
if (BASELINE) {
  const url = (path: string) => pathToFileURL(join(BASELINE, path)).href
  const exec = await import(url("packages/exec/src/index.ts"))
  const foundation = await import(url("packages/foundation/src/index.ts"))
  const baseTool = foundation.defineTool({
    id: "weather/current",
    input: z.object({ city: z.string().min(2) }),
    annotations: { readOnlyHint: true },
    handler: async ({ city }: { city: string }) => `Sunny in ${city}, 21°C`,
  })
  // The same backend as foundation/testing's definitionBackend (the baseline may not have it).
  const baseBackend = foundation.defineBackend({
    name: "weather",
    kind: "local",
    toolSchemas: () => [baseTool],
    execute: (call: never, ctx: never) => foundation.runDefinition(baseTool, call, ctx),
    requiresApproval: () => false,
  })
  const baseRunner = exec.createRunner({ backends: [baseBackend] })
  await baseRunner.ready()
  basePlain = plainCase("baseline plain: runner.callTool", baseRunner)
  baseEffect = effectCase(
    "baseline Effect: callTool",
    (exec.toolRunnerToEffect ?? exec.runnerToEffect)(baseRunner).callTool,
  )
}

const check = await Effect.runPromise(effectRunner.callTool(request))
if ((check.content[0] as { text: string }).text !== "Sunny in Oslo, 21°C") throw new Error("wrong answer")

/** The bench kit's interleaved rounds over batches of calls; records µs per call of each round. */
const measure = async (cases: readonly Case[]): Promise<void> => {
  const results = await compare(
    cases.map((c) => ({ name: c.name, fn: () => c.batch(BATCH) })),
    { rounds: ROUNDS, roundMs: ROUND_MS },
  )
  results.forEach((r, i) => {
    cases[i]!.samples.push(...r.rounds.map((us) => us / BATCH))
  })
}

const table = (cases: readonly Case[], reference: Case): void => {
  console.log("| case | µs/call (median) | ratio |")
  console.log("| --- | ---: | ---: |")
  for (const c of cases)
    console.log(
      `| ${c.name} | ${median(c.samples).toFixed(2)} | ${(median(c.samples) / median(reference.samples)).toFixed(2)}x |`,
    )
  console.log("")
}

console.log(`Node ${process.version}, ${ROUNDS} interleaved rounds of ${ROUND_MS} ms, median µs per call\n`)
// Phase 1, plain path only (run first, so the Effect face's calls do not shape the JIT's view of it).
if (basePlain) {
  console.log(`Plain path, this checkout vs ${BASELINE}:\n`)
  await measure([plain, basePlain])
  table([plain, basePlain], basePlain)
  console.log(
    `plain path ÷ baseline plain path: ${(median(plain.samples) / median(basePlain.samples)).toFixed(3)}x\n`,
  )
  plain.samples.length = 0
}
// Phase 2, the Effect face against the plain call on the same runner.
const phase2 = baseEffect ? [plain, floor, effect, baseEffect] : [plain, floor, effect]
console.log("Effect face vs plain call, same runner:\n")
await measure(phase2)
table(phase2, plain)
const overhead = median(effect.samples) - median(plain.samples)
console.log(
  `Effect face overhead: ${overhead.toFixed(2)} µs per call (${(median(effect.samples) / median(plain.samples)).toFixed(2)}x the plain call; goal ≤ 2 µs) ${overhead <= 2 ? "PASS" : "MISS"}`,
)
console.log(
  `Effect face overhead above the floor (any Effect wrapper's cost): ${(median(effect.samples) - median(floor.samples)).toFixed(2)} µs per call`,
)
if (baseEffect)
  console.log(
    `Effect face ÷ baseline Effect face: ${(median(effect.samples) / median(baseEffect.samples)).toFixed(3)}x`,
  )
