/**
 * Stack overhead over the real runner: per-call cost of an in-process tool served by
 * `@toolplane/plugin-local`'s `localBackend` through exec's `createRunner` (the baseline: the bare runner,
 * its full pipeline), versus the same runner wrapped in compose's `gatewayStack`:
 *
 * - "as `toolplane serve` builds it": `gatewayStack(runner, { codec, pageSize, validation: { validateSchema:
 *   false } })`, the layers a config without aliases, composites or search mode gets (openGateway in
 *   src/gateway.ts): argument object and size checks at the edge, the schema checked once, by the runner;
 * - the same with the validation layer checking the schema again (gatewayStack's default);
 * - "full stack": every layer configured (validation, argument overrides, capability filter, search-mode
 *   view, aliases, a composite), the configuration of compose's own bench.
 *
 * Sequential calls on one event loop, in interleaved rounds (@toolplane/bench-kit: BENCH_ROUNDS,
 * BENCH_ROUND_MS) so background load hits the cases alike; per-call µs is the median over rounds. Lives in
 * the CLI package because compose may not import exec.
 */
import { benchSettings, compare, comparisonTable, heading, roundsLine } from "@toolplane/bench-kit"
import { gatewayStack, hideDestructive, searchModeView } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { defineTool, makeCursorCodec, type ToolService, textResult } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"

const settings = benchSettings({ rounds: 40, roundMs: 20 })

const echo = defineTool({
  id: "bench/echo",
  description: "Echoes the text",
  input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  annotations: { readOnlyHint: true },
  handler: ({ text }) => textResult(String(text)),
})
const others = [
  defineTool({
    id: "bench/other",
    input: { type: "object", properties: { k: { type: "string" } } },
    annotations: { readOnlyHint: true },
    handler: () => "ok",
  }),
  defineTool({ id: "bench/danger", annotations: { destructiveHint: true }, handler: () => "boom" }),
  defineTool({ id: "bench/search", annotations: { readOnlyHint: true }, handler: () => "docs" }),
]

const codec = makeCursorCodec({ keys: [{ kid: "gw", secret: "bench-cursor-secret-0123456789abcdef" }] })
const runner = createRunner({
  backends: [localBackend([echo, ...others], { name: "bench", approval: "never" })],
  cursorCodec: codec,
})
await runner.ready()
// openGateway (src/gateway.ts) turns the schema check off: the runner validates against the same schema
const served = await gatewayStack(runner, { codec, pageSize: 100, validation: { validateSchema: false } })
const twice = await gatewayStack(runner, { codec, pageSize: 100, validation: {} })
const full = await gatewayStack(runner, {
  codec,
  validation: { maxArgumentBytes: 64 * 1024 },
  argumentOverrides: { "bench/other": { k: { value: "injected" } } },
  capabilities: hideDestructive(),
  searchMode: searchModeView((tools) => tools),
  aliases: { "bench/search": "bench/find" },
  composites: [{ name: "both", tools: ["bench/other", "bench/find"] }],
})

const request = { name: "bench/echo", arguments: { text: "hello" } }
const cases = [
  { name: "bare runner (createRunner + localBackend)", service: runner as ToolService },
  { name: "gatewayStack as `toolplane serve` builds it (edge checks)", service: served },
  { name: "gatewayStack, validation layer re-checking the schema", service: twice },
  { name: "full gatewayStack (6 layers)", service: full },
]
for (const c of cases) {
  const result = await c.service.callTool(request)
  if ((result.content[0] as { text?: string }).text !== "hello") throw new Error(`${c.name}: wrong answer`)
}
const results = await compare(
  cases.map((c) => ({ name: c.name, fn: () => c.service.callTool(request) })),
  settings,
)
await runner.close()

console.log(heading("Stack overhead over the exec runner", roundsLine(settings)))
console.log(
  comparisonTable(results, {
    baseline: cases[0]!.name,
    goals: Object.fromEntries(cases.slice(1).map((c) => [c.name, { max: 1.05 }])),
  }),
)
