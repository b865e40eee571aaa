/**
 * Picks the JSON Schema validator: validates the same tool arguments (valid and invalid, a small and a
 * nested schema) with each candidate, in one run, and prints ops/s and the ratio to Ajv.
 * Run: pnpm --filter @toolplane/foundation bench
 */
import { Validator as CfValidator } from "@cfworker/json-schema"
import { z } from "zod"
import { compileJsonSchema, toJsonSchema, validatorFor } from "../src/index.js"

const small = z.object({ city: z.string().min(2), units: z.enum(["c", "f"]).default("c") })
const nested = z.object({
  query: z.string(),
  filters: z
    .array(
      z.object({
        field: z.string(),
        op: z.enum(["eq", "lt", "gt"]),
        value: z.union([z.string(), z.number()]),
      }),
    )
    .max(20),
  page: z.object({ size: z.number().int().min(1).max(100), after: z.string().optional() }),
  tags: z.array(z.string()).optional(),
})

const cases = [
  { name: "small/valid", schema: small, value: { city: "Oslo", units: "c" } },
  { name: "small/invalid", schema: small, value: { city: "O", units: "k" } },
  {
    name: "nested/valid",
    schema: nested,
    value: {
      query: "open issues",
      filters: Array.from({ length: 8 }, (_, i) => ({ field: `f${i}`, op: "eq", value: i })),
      page: { size: 50 },
      tags: ["a", "b"],
    },
  },
  {
    name: "nested/invalid",
    schema: nested,
    value: { query: 1, filters: [{ field: "x", op: "ne", value: true }], page: { size: 0 } },
  },
]

const measure = (fn: () => unknown, minMs = 300): number => {
  for (let i = 0; i < 2000; i++) fn()
  let n = 0
  const start = performance.now()
  let elapsed = 0
  while (elapsed < minMs) {
    for (let i = 0; i < 1000; i++) fn()
    n += 1000
    elapsed = performance.now() - start
  }
  return (n / elapsed) * 1000
}

const rows: string[][] = []
for (const c of cases) {
  const json = toJsonSchema(c.schema)
  const ajv = compileJsonSchema(json)
  const cf = new CfValidator(json as never, "2020-12", false)
  const zod = validatorFor(c.schema)
  const ajvOps = measure(() => ajv.validate(c.value))
  const cfOps = measure(() => cf.validate(c.value))
  const zodOps = measure(() => zod.validate(c.value))
  rows.push([
    c.name,
    Math.round(ajvOps).toLocaleString("en-US"),
    Math.round(cfOps).toLocaleString("en-US"),
    `${(ajvOps / cfOps).toFixed(1)}x`,
    Math.round(zodOps).toLocaleString("en-US"),
    `${(ajvOps / zodOps).toFixed(1)}x`,
  ])
}
const header = [
  "case",
  "ajv ops/s",
  "@cfworker/json-schema ops/s",
  "ajv ÷ cfworker",
  "zod (Standard Schema) ops/s",
  "ajv ÷ zod",
]
console.log(`| ${header.join(" | ")} |`)
console.log(`| ${header.map(() => "---").join(" | ")} |`)
for (const r of rows) console.log(`| ${r.join(" | ")} |`)
console.log(`\nnode ${process.version}, ${new Date().toISOString()}`)
