/**
 * Stack overhead over the real runner (issue 4): per-call cost of an in-process tool served by
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
 * Sequential calls on one event loop; rounds of BENCH_STACK_CALLS calls interleave the three cases so
 * background load hits them alike; per-call µs is the median over rounds. Lives in the CLI package because
 * compose may not import exec.
 */
import { gatewayStack, hideDestructive, searchModeView } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { defineTool, makeCursorCodec, type ToolService, textResult } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"

const ROUNDS = Number(process.env.BENCH_STACK_ROUNDS ?? 40)
const CALLS = Number(process.env.BENCH_STACK_CALLS ?? 5000)

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

const perCall = async (service: ToolService, n: number): Promise<number> => {
  const request = { name: "bench/echo", arguments: { text: "hello" } }
  const started = performance.now()
  for (let i = 0; i < n; i++) await service.callTool(request)
  return ((performance.now() - started) * 1000) / n
}
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

const cases = [
  { name: "bare runner (createRunner + localBackend)", service: runner as ToolService, us: [] as number[] },
  { name: "gatewayStack as `toolplane serve` builds it (edge checks)", service: served, us: [] as number[] },
  { name: "gatewayStack, validation layer re-checking the schema", service: twice, us: [] as number[] },
  { name: "full gatewayStack (6 layers)", service: full, us: [] as number[] },
]
for (const c of cases) {
  const result = await c.service.callTool({ name: "bench/echo", arguments: { text: "hello" } })
  if ((result.content[0] as { text?: string }).text !== "hello") throw new Error(`${c.name}: wrong answer`)
  await perCall(c.service, 20_000) // warm up
}
for (let round = 0; round < ROUNDS; round++) {
  // rotate the order so no case always runs first or last in a round
  for (let i = 0; i < cases.length; i++) {
    const c = cases[(i + round) % cases.length]!
    c.us.push(await perCall(c.service, CALLS))
  }
}
await runner.close()

const [bare] = cases
const b = median(bare!.us)
console.log(
  `\n## Stack overhead over the exec runner (Node ${process.versions.node}, ${ROUNDS} interleaved rounds × ${CALLS.toLocaleString("en-US")} sequential calls, median)\n`,
)
console.log("| case | µs/call (median) | best round | overhead vs bare runner | goal |")
console.log("| --- | ---: | ---: | ---: | --- |")
for (const c of cases) {
  const m = median(c.us)
  const overhead = (m / b - 1) * 100
  console.log(
    `| ${c.name} | ${m.toFixed(3)} | ${Math.min(...c.us).toFixed(3)} | ${c === bare ? "baseline" : `${overhead >= 0 ? "+" : ""}${overhead.toFixed(1)}% (${m >= b ? "+" : ""}${(m - b).toFixed(3)} µs)`} | ${c === bare ? "" : `<= 5% ${overhead <= 5 ? "PASS" : "MISS"}`} |`,
  )
}
