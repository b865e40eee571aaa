/**
 * Picks the JSON Schema validator: validates the same tool arguments (valid and invalid, a small and a
 * nested schema) with each candidate, in one run, in interleaved rounds (@toolplane/bench-kit: BENCH_ROUNDS,
 * BENCH_ROUND_MS), and prints ops/s (median of rounds) and the ratio to Ajv.
 * Run: pnpm --filter @toolplane/foundation bench
 */
import { Validator as CfValidator } from "@cfworker/json-schema"
import { benchSettings, compare, fmt, heading, markdownTable, ratio, roundsLine } from "@toolplane/bench-kit"
import { compileJsonSchema, toJsonSchema, validatorFor } from "../src/index.js"
import { argumentCases } from "./argumentCases.js"

const cases = argumentCases.flatMap((c) => [
  { name: `${c.name}/valid`, schema: c.schema, value: c.valid },
  { name: `${c.name}/invalid`, schema: c.schema, value: c.invalid },
])

const settings = benchSettings({ rounds: 5, roundMs: 100 })

const rows: string[][] = []
for (const c of cases) {
  const json = toJsonSchema(c.schema)
  const ajv = compileJsonSchema(json)
  const cf = new CfValidator(json as never, "2020-12", false)
  const zod = validatorFor(c.schema)
  const [a, w, z] = await compare(
    [
      { name: "ajv", fn: () => ajv.validate(c.value) },
      { name: "cfworker", fn: () => cf.validate(c.value) },
      { name: "zod", fn: () => zod.validate(c.value) },
    ],
    settings,
  )
  rows.push([
    c.name,
    fmt(a!.opsPerSec),
    fmt(w!.opsPerSec),
    `${ratio(w!, a!).toFixed(1)}x`,
    fmt(z!.opsPerSec),
    `${ratio(z!, a!).toFixed(1)}x`,
  ])
}
console.log(heading("JSON Schema validators on tool arguments", roundsLine(settings)))
console.log(
  markdownTable(
    [
      "case",
      "ajv ops/s",
      "@cfworker/json-schema ops/s",
      "ajv ÷ cfworker",
      "zod (Standard Schema) ops/s",
      "ajv ÷ zod",
    ],
    rows,
  ),
)
