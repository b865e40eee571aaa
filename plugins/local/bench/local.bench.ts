/**
 * A runner call through `localBackend` (the real in-process backend, with its direct path for validated
 * calls) versus validating and calling the handler directly. Interleaved rounds, best round counts.
 *
 * Run: `pnpm --filter @toolplane/plugin-local bench`.
 */

import { createRunner } from "@toolplane/exec"
import { defineTool, makeContext } from "@toolplane/foundation"
import { z } from "zod"
import { localBackend } from "../src/index.js"

const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 300)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8)

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

const cases = [
  { name: "validate + handler directly", fn: direct, ops: 0 },
  { name: "runner.callTool → localBackend", fn: viaRunner, ops: 0 },
]
for (const c of cases) for (let i = 0; i < 5000; i++) await c.fn()
for (let r = 0; r < ROUNDS; r++)
  for (const c of cases) {
    let n = 0
    const start = performance.now()
    let elapsed = 0
    while (elapsed < ROUND_MS) {
      for (let i = 0; i < 200; i++) await c.fn()
      n += 200
      elapsed = performance.now() - start
    }
    c.ops = Math.max(c.ops, (n / elapsed) * 1000)
  }
console.log(`Node ${process.version}, ${ROUNDS} rounds of ${ROUND_MS} ms, best round\n`)
console.log("| case | ops/s | µs/call |")
console.log("| --- | ---: | ---: |")
for (const c of cases)
  console.log(`| ${c.name} | ${Math.round(c.ops).toLocaleString("en-US")} | ${(1e6 / c.ops).toFixed(2)} |`)
console.log(`\nrunner + localBackend ÷ direct: ${(cases[0]!.ops / cases[1]!.ops).toFixed(2)}x`)
