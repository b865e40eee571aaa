/**
 * What metrics and the audit log add to one call, in process, without the network: the ops observer's
 * service wrapper (`gatewayOperations(...).service`) around an inner service that answers at once, with
 * metrics, the audit log (a real file, HMACs, one `write` per call) or both, against the bare inner service.
 * Calls are paced the way concurrency 1 paces them (one call, then the event loop sleeps: here a 0 ms
 * timer, about 1 ms), so caches are as cold as a gateway's between calls; a tight loop measures a third of
 * this. The figure is this process's CPU (`process.cpuUsage`) per call, in interleaved rounds; the table
 * gives each wrapper's CPU minus the bare service's of the same round (median of rounds, IQR).
 *
 * `bench:ops` measures the whole gateway, where a few tens of µs per call drown in the spread of a shared
 * machine; this one resolves them. BENCH_OPS_OTHER_TREE (a checkout of another commit with its
 * dependencies linked) adds that tree's wrappers to the same rounds.
 *
 * Env: BENCH_ROUNDS (default 9), BENCH_ROUND_MS is not read: a round is BENCH_OPS_PATH_CALLS calls
 * (default 2000) per case. `--json` prints one object: `{ loadavg, rounds, calls, cases: { "<case>":
 * { usPerCall, addedUs, addedQ1, addedQ3 } } }`.
 *
 *   pnpm --filter @toolplane/cli bench:ops-path [--json]
 */
import { mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { benchSettings, fmt, heading, interleaved, markdownTable, median } from "@toolplane/bench-kit"
import { makeContext, type ToolService } from "@toolplane/foundation"

const settings = benchSettings({ rounds: 9, roundMs: 1 })
const calls = Number(process.env.BENCH_OPS_PATH_CALLS ?? 2000)
const asJson = process.argv.includes("--json")
const otherTree = process.env.BENCH_OPS_OTHER_TREE ? resolve(process.env.BENCH_OPS_OTHER_TREE) : undefined
const dir = mkdtempSync(join(tmpdir(), "toolplane-ops-path-"))
const KEY = "bench-audit-key-0123456789abcdef"

const bare: ToolService = {
  listTools: async () => ({ tools: [] }),
  callTool: async () => ({ content: [{ type: "text", text: "hello" }] }),
}

/** The wrappers of one tree's `src/ops`. */
const wrappersOf = async (tree: string, label: string) => {
  const ops = (file: string) => import(pathToFileURL(join(tree, "packages/cli/src/ops", file)).href)
  const { openAuditLog } = await ops("audit.ts")
  const { createGatewayMetrics } = await ops("metrics.ts")
  const { gatewayOperations } = await ops("operations.ts")
  const { silentLogger } = await ops("logger.ts")
  const make = (metrics: boolean, audit: boolean): ToolService =>
    gatewayOperations({
      log: silentLogger,
      ...(metrics ? { metrics: createGatewayMetrics({ otel: false }) } : {}),
      ...(audit ? { audit: openAuditLog({ file: join(dir, `${label}-${metrics}.jsonl`), key: KEY }) } : {}),
    }).service(bare)
  return [
    { name: `metrics${label}`, service: make(true, false) },
    { name: `audit${label}`, service: make(false, true) },
    { name: `metrics + audit${label}`, service: make(true, true) },
  ]
}

const here = resolve(import.meta.dirname, "../../..")
const cases = [
  { name: "bare service", service: bare },
  ...(await wrappersOf(here, otherTree ? " (this tree)" : "")),
  ...(otherTree ? await wrappersOf(otherTree, " (other tree)") : []),
]

/** `calls` calls, one at a time, each after a 0 ms timer; this process's CPU µs per call. */
const paced = (service: ToolService) =>
  new Promise<number>((done, fail) => {
    let left = calls
    const started = process.cpuUsage()
    const step = () => {
      service
        .callTool({ name: "up/echo", arguments: { text: "hello" }, context: makeContext({}) })
        .then(() => {
          if (--left > 0) setTimeout(step, 0)
          else {
            const used = process.cpuUsage(started)
            done((used.user + used.system) / calls)
          }
        }, fail)
    }
    step()
  })

const loadBefore = loadavg()
for (const c of cases) await paced(c.service) // warm-up round, not recorded
const rounds = new Map(cases.map((c) => [c.name, [] as number[]]))
await interleaved(settings.rounds, cases, async (c) => {
  rounds.get(c.name)!.push(await paced(c.service))
})
rmSync(dir, { recursive: true, force: true })

const q = (xs: readonly number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (s.length - 1) * p
  const lo = Math.floor(at)
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo)
}
const base = rounds.get("bare service")!
const summary = Object.fromEntries(
  cases.map((c) => {
    const r = rounds.get(c.name)!
    const added = r.map((x, i) => x - base[i]!)
    return [
      c.name,
      { usPerCall: median(r), addedUs: median(added), addedQ1: q(added, 0.25), addedQ3: q(added, 0.75) },
    ]
  }),
)
if (asJson)
  console.log(
    JSON.stringify({
      loadavg: { before: loadBefore, after: loadavg() },
      rounds: settings.rounds,
      calls,
      cases: summary,
    }),
  )
else {
  console.log(
    heading(
      "What metrics and the audit log add to a call (in process, paced as at concurrency 1)",
      `${settings.rounds} interleaved rounds × ${calls} calls per case, CPU µs per call, median of rounds; added = case − bare service in the same round (IQR)`,
    ),
  )
  console.log(
    markdownTable(
      ["case", "CPU µs/call", "added µs/call (IQR)"],
      cases.map((c) => {
        const s = summary[c.name]!
        return [
          c.name,
          fmt(s.usPerCall, 1),
          c.service === bare ? "" : `${fmt(s.addedUs, 1)} (${fmt(s.addedQ1, 1)}–${fmt(s.addedQ3, 1)})`,
        ]
      }),
    ),
  )
}
