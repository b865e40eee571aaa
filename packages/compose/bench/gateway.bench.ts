/**
 * Gateway benchmarks (`pnpm --filter @toolplane/compose bench`):
 *
 * 1. composite fan-out: one composite call over 16 targets that each take 20 ms, against one call of one
 *    such target, both through the same gateway in interleaved rounds (goal: ratio <= 1.25: the fan-out
 *    costs about one target's latency, not sixteen);
 * 2. overhead of the full gatewayStack over the bare inner service for an in-process tool (goal: <= 5%),
 *    both measured in this run, in interleaved rounds (@toolplane/bench-kit), median µs per call.
 *
 * Env: BENCH_ROUNDS, BENCH_ROUND_MS (the overhead comparison).
 *
 * The baseline is the in-process ToolService of test/support/bareService.ts (foundation pieces only:
 * paginateTools + ToolDefinition.invoke); the exec runner will be measured by the lead later.
 */
import { benchSettings, compare, comparisonTable, heading, roundsLine } from "@toolplane/bench-kit"
import { defineTool, textResult } from "@toolplane/foundation"
import { gatewayStack, hideDestructive, searchModeView } from "../src/index.js"
import { bareService } from "../test/support/bareService.js"

const settings = benchSettings({ rounds: 40, roundMs: 20 })

// 1. composite fan-out
const targets = Array.from({ length: 16 }, (_, i) =>
  defineTool({
    id: `slow/t${String(i).padStart(2, "0")}`,
    input: { type: "object", properties: { q: { type: "string" } } },
    handler: async ({ q }) => {
      await new Promise((r) => setTimeout(r, 20))
      return textResult(`${i}:${q}`)
    },
  }),
)
const fanGateway = await gatewayStack(bareService(targets), {
  composites: [{ name: "fan", tools: targets.map((t) => t.id) }],
})
const fanCheck = await fanGateway.callTool({ name: "composite/fan", arguments: { q: "x" } })
if (fanCheck.isError || fanCheck.content.length !== 32) throw new Error("fan-out failed")
const fanSettings = {
  rounds: Number(process.env.BENCH_FAN_ROUNDS ?? 15),
  roundMs: Number(process.env.BENCH_FAN_ROUND_MS ?? 200),
}
const fan = await compare(
  [
    {
      name: "one target alone (20 ms)",
      fn: () => fanGateway.callTool({ name: targets[0]!.id, arguments: { q: "x" } }),
    },
    {
      name: "composite fan-out, 16 targets × 20 ms",
      fn: () => fanGateway.callTool({ name: "composite/fan", arguments: { q: "x" } }),
    },
  ],
  fanSettings,
)

// 2. overhead of the full stack
const echo = defineTool({
  id: "bench/echo",
  input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  annotations: { readOnlyHint: true },
  handler: ({ text }) => textResult(String(text)),
})
const others = [
  defineTool({
    id: "bench/other",
    input: { type: "object", properties: { k: { type: "string" } } },
    handler: () => "ok",
  }),
  defineTool({ id: "bench/danger", annotations: { destructiveHint: true }, handler: () => "boom" }),
  defineTool({ id: "docs/search", handler: () => "docs" }),
]
const bare = bareService([echo, ...others])
const full = await gatewayStack(bare, {
  validation: { maxArgumentBytes: 64 * 1024 },
  argumentOverrides: { "bench/other": { k: { value: "injected" } } },
  capabilities: hideDestructive(),
  searchMode: searchModeView((tools) => tools),
  aliases: { "docs/search": "docs/find" },
  composites: [{ name: "both", tools: ["bench/other", "docs/find"] }],
})

const request = { name: "bench/echo", arguments: { text: "hello" } }
const results = await compare(
  [
    { name: "bare inner service, in-process tool", fn: () => bare.callTool(request) },
    { name: "full gatewayStack (6 layers), same tool", fn: () => full.callTool(request) },
  ],
  settings,
)

console.log(heading("Gateway middleware", roundsLine(settings)))
console.log(`Composite fan-out: ${roundsLine(fanSettings)}`)
console.log(
  comparisonTable(fan, {
    baseline: fan[0]!.name,
    goals: { [fan[1]!.name]: { max: 1.25 } },
  }),
)
console.log("")
console.log(
  comparisonTable(results, {
    baseline: results[0]!.name,
    goals: { [results[1]!.name]: { max: 1.05 } },
  }),
)
