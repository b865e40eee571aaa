/**
 * What the prototype-name fix costs. Schemas naming an `Object.prototype` member or `__proto__` as a
 * property compile on an own-property Ajv (`ownProperties: true`, `__proto__` restated as a pattern
 * property); every other schema compiles as before. In one run, interleaved rounds (@toolplane/bench-kit:
 * BENCH_ROUNDS, BENCH_ROUND_MS), medians of per-round ratios:
 * - validate, valid arguments: Ajv with foundation's options as they were before the fix (baseline; twice,
 *   the second copy shows the noise), `compileJsonSchema` on the same schema (the common path), the same
 *   schema on an `ownProperties: true` Ajv (the alternative of making every schema pay), and
 *   `compileJsonSchema` on the schema with one property renamed to `constructor` / `__proto__` (the
 *   slow path);
 * - validate, invalid arguments: the slow path against the common path, both through `compileJsonSchema`;
 * - compile (a fresh schema object each call): Ajv as before against `compileJsonSchema` (which now walks
 *   the schema once for prototype names), common and slow path.
 * Run: pnpm --filter @toolplane/foundation bench
 */
import { benchSettings, compare, comparisonTable, heading, roundsLine } from "@toolplane/bench-kit"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import { compileJsonSchema, type JsonSchema, toJsonSchema } from "../src/index.js"
import { argumentCases } from "./argumentCases.js"

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: unknown) => void
const ajvWith = (ownProperties: boolean): Ajv2020 => {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    validateSchema: true,
    addUsedSchema: false,
    ownProperties,
  })
  addFormats(ajv)
  return ajv
}
const before = ajvWith(false)
const own = ajvWith(true)

/** The wrapper `compileJsonSchema` puts around an Ajv function, for valid arguments. */
const wrap = (fn: (value: unknown) => boolean) => (value: unknown) =>
  fn(value) ? { ok: true, value } : { ok: false, issues: [] }

const cases = argumentCases.map((c) => ({ ...c, schema: toJsonSchema(c.schema) }))

/** `value` (schema or arguments) with every key `from` renamed `to`, through JSON (so `__proto__` is own). */
const renamed = <T>(value: T, from: string, to: string): T =>
  JSON.parse(JSON.stringify(value).replaceAll(`"${from}"`, `"${to}"`))

const settings = benchSettings({ rounds: 7, roundMs: 150 })
console.log(heading("Prototype-named properties: cost of the own-property path", roundsLine(settings)))

for (const c of cases) {
  const ctor = renamed(c.schema, c.key, "constructor")
  const proto = renamed(c.schema, c.key, "__proto__")
  const ctorArgs = renamed(c.valid, c.key, "constructor")
  const protoArgs = renamed(c.valid, c.key, "__proto__")
  const oldA = wrap(before.compile(c.schema as Record<string, unknown>))
  const oldB = wrap(ajvWith(false).compile(c.schema as Record<string, unknown>))
  const common = compileJsonSchema(c.schema)
  const ownEverywhere = wrap(own.compile(c.schema as Record<string, unknown>))
  const slowCtor = compileJsonSchema(ctor)
  const slowProto = compileJsonSchema(proto)
  for (const [v, args] of [
    [common, c.valid],
    [slowCtor, ctorArgs],
    [slowProto, protoArgs],
  ] as const)
    if (!(v.validate(args) as { ok: boolean }).ok) throw new Error(`${c.name}: valid arguments rejected`)

  const valid = await compare(
    [
      { name: "before: Ajv, foundation's options (baseline)", fn: () => oldA(c.valid) },
      { name: "before, second copy (noise)", fn: () => oldB(c.valid) },
      { name: "after: compileJsonSchema (common path)", fn: () => common.validate(c.valid) },
      { name: "ownProperties on every schema (not taken)", fn: () => ownEverywhere(c.valid) },
      { name: "after: a constructor property (own-property path)", fn: () => slowCtor.validate(ctorArgs) },
      { name: "after: a __proto__ property (own-property path)", fn: () => slowProto.validate(protoArgs) },
    ],
    settings,
  )
  console.log(`\n### ${c.name} schema, valid arguments (validate)\n`)
  console.log(comparisonTable(valid, { baseline: "before: Ajv, foundation's options (baseline)" }))

  const ctorBad = renamed(c.invalid, c.key, "constructor")
  const protoBad = renamed(c.invalid, c.key, "__proto__")
  const invalid = await compare(
    [
      { name: "common path (baseline)", fn: () => common.validate(c.invalid) },
      { name: "a constructor property", fn: () => slowCtor.validate(ctorBad) },
      { name: "a __proto__ property", fn: () => slowProto.validate(protoBad) },
    ],
    settings,
  )
  console.log(`\n### ${c.name} schema, invalid arguments (validate, issues mapped)\n`)
  console.log(comparisonTable(invalid, { baseline: "common path (baseline)" }))
}

// Compiles last: the thousands of validators they leave in memory would otherwise weigh on the validate tables.
for (const c of cases) {
  const ctor = renamed(c.schema, c.key, "constructor")
  const proto = renamed(c.schema, c.key, "__proto__")
  const fresh = (schema: JsonSchema) => () => structuredClone(schema) as Record<string, unknown>
  const [plain, ctorFresh, protoFresh] = [fresh(c.schema), fresh(ctor), fresh(proto)]
  const compile = await compare(
    [
      { name: "before: Ajv compile (baseline)", fn: () => before.compile(plain()) },
      { name: "after: compileJsonSchema (common path)", fn: () => compileJsonSchema(plain()) },
      { name: "after: compileJsonSchema, constructor property", fn: () => compileJsonSchema(ctorFresh()) },
      { name: "after: compileJsonSchema, __proto__ property", fn: () => compileJsonSchema(protoFresh()) },
    ],
    { ...settings, roundMs: Math.max(settings.roundMs, 200) },
  )
  console.log(`\n### ${c.name} schema, compile (fresh schema object per call)\n`)
  console.log(comparisonTable(compile, { baseline: "before: Ajv compile (baseline)" }))
}
