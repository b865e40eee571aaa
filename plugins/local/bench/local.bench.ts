/**
 * A runner call through `localBackend` (the real in-process backend, with its direct path for validated
 * calls) versus validating and calling the handler directly. Interleaved rounds (@toolplane/bench-kit),
 * medians of rounds.
 *
 * Run: `pnpm --filter @toolplane/plugin-local bench` (BENCH_ROUNDS, BENCH_ROUND_MS).
 */

import { benchSettings, compare, comparisonTable, heading, ratio, roundsLine } from "@toolplane/bench-kit"
import { createRunner } from "@toolplane/exec"
import { defineTool, makeContext } from "@toolplane/foundation"
import { z } from "zod"
import { localBackend } from "../src/index.js"

const settings = benchSettings({ rounds: 8, roundMs: 300 })

const weather = defineTool({
  id: "weather/current",
  input: z.object({ city: z.string().min(2) }),
  annotations: { readOnlyHint: true },
  handler: async ({ city }) => `Sunny in ${city}, 21°C`,
})
const args = { city: "Oslo" }
const ctx = makeContext()
const direct = async () => {
  const checked = weather.inputValidator.validate(args)
  const value = checked instanceof Promise ? await checked : checked
  if (!value.ok) throw new Error("invalid")
  return weather.handler(value.value, ctx)
}
const runner = createRunner({ backends: [localBackend([weather])] })
await runner.ready()
const viaRunner = () => runner.callTool({ name: "weather/current", arguments: args })

const [directResult, runnerResult] = await compare(
  [
    { name: "validate + handler directly", fn: direct },
    { name: "runner.callTool → localBackend", fn: viaRunner },
  ],
  settings,
)
console.log(heading("Runner call through localBackend versus the handler", roundsLine(settings)))
console.log(comparisonTable([directResult!, runnerResult!], { baseline: directResult!.name }))
console.log(`\nrunner + localBackend ÷ direct: ${ratio(runnerResult!, directResult!).toFixed(2)}x`)
