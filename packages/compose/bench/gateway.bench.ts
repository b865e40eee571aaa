/**
 * Gateway benchmarks (`pnpm --filter @toolplane/compose bench`):
 *
 * 1. composite fan-out: one composite call over 16 targets that each take 20 ms (goal: <= 25 ms total);
 * 2. overhead of the full gatewayStack over the bare inner service for an in-process tool (goal: <= 5%),
 *    both measured in this run, interleaved, per-call µs.
 *
 * The baseline is the in-process ToolService of test/support/bareService.ts (foundation pieces only:
 * paginateTools + ToolDefinition.invoke); the exec runner will be measured by the lead later.
 */
import { defineTool, type ToolService, textResult } from "@toolplane/foundation"
import { gatewayStack, hideDestructive, searchModeView } from "../src/index.js"
import { bareService } from "../test/support/bareService.js"

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!

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
const fanTimes: number[] = []
for (let i = 0; i < 25; i++) {
  const started = performance.now()
  const result = await fanGateway.callTool({ name: "composite/fan", arguments: { q: "x" } })
  const elapsed = performance.now() - started
  if (result.isError || result.content.length !== 32) throw new Error("fan-out failed")
  if (i >= 5) fanTimes.push(elapsed)
}

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

const perCall = async (service: ToolService, n: number): Promise<number> => {
  const request = { name: "bench/echo", arguments: { text: "hello" } }
  const started = performance.now()
  for (let i = 0; i < n; i++) await service.callTool(request)
  return ((performance.now() - started) * 1000) / n
}
await perCall(bare, 20_000)
await perCall(full, 20_000)
// short alternating rounds: the machine is shared, so both sides see the same background load
const bareUs: number[] = []
const fullUs: number[] = []
for (let round = 0; round < 60; round++) {
  bareUs.push(await perCall(bare, 5_000))
  fullUs.push(await perCall(full, 5_000))
}
const b = median(bareUs)
const f = median(fullUs)
const bMin = Math.min(...bareUs)
const fMin = Math.min(...fullUs)

console.log(`Node ${process.version}, ${(await import("node:os")).cpus().length} cores`)
console.log("| benchmark | result | goal |")
console.log("| --- | --- | --- |")
console.log(
  `| composite fan-out, 16 targets × 20 ms | median ${median(fanTimes).toFixed(1)} ms, p95 ${pct(fanTimes, 0.95).toFixed(1)} ms | <= 25 ms |`,
)
console.log(
  `| bare inner service, in-process tool | median ${b.toFixed(3)} µs/call (best round ${bMin.toFixed(3)}) | baseline |`,
)
console.log(
  `| full gatewayStack (6 layers), same tool | median ${f.toFixed(3)} µs/call (best round ${fMin.toFixed(3)}) | |`,
)
console.log(
  `| overhead (stack ÷ bare) | median ${(f / b).toFixed(2)}x (+${(f - b).toFixed(3)} µs/call); best rounds ${(fMin / bMin).toFixed(2)}x (+${(fMin - bMin).toFixed(3)} µs/call) | <= 5% |`,
)
