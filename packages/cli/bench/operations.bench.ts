/**
 * What operating costs: the gateway CPU per relayed call of `toolplane serve` with `[metrics]` (a
 * Prometheus listener) and `[audit]` (a JSON-lines file, HMACs of arguments and results, one write per
 * record) on, against the same gateway with both off, in the same run, at concurrency 1 and 32. The goal
 * is within 10% (candidate ÷ baseline ≤ 1.10).
 *
 * Topology: one upstream (bench/upstream.ts, SDK McpServer over HTTP, own process) behind two
 * `toolplane serve --transport http` processes (own processes, the real CLI), each called by the SDK
 * client of this process; rounds interleave the two gateways (@toolplane/bench-kit), the gateway's CPU
 * time per call is read from /proc.
 *
 * Env: BENCH_CONCURRENCY (default "1,32"), BENCH_ROUND_MS (default 2000), BENCH_ROUNDS (default 3),
 * BENCH_GATEWAY_NODE_ARGS, BENCH_GATEWAY_BUILD (see gatewayCommand.ts), BENCH_OPS_CANDIDATE
 * ("both", default; "metrics" or "audit" to measure one of them alone).
 */
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  benchSettings,
  compareLoad,
  cpuTable,
  heading,
  loadTable,
  loadWithCpu,
  spawnNodeUntil,
  stopProcess,
} from "@toolplane/bench-kit"
import { gatewayNodeArgs, tsNode } from "./gatewayCommand.js"

const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })
const here = dirname(fileURLToPath(import.meta.url))
const cliDir = join(here, "..")
const env = {
  TOOLPLANE_CURSOR_SECRET: "bench-cursor-secret-0123456789abcdef",
  TOOLPLANE_AUDIT_KEY: "bench-audit-key-0123456789abcdef",
}

const candidateKind = process.env.BENCH_OPS_CANDIDATE ?? "both"
if (candidateKind !== "both" && candidateKind !== "metrics" && candidateKind !== "audit")
  throw new RangeError(`BENCH_OPS_CANDIDATE must be "both", "metrics" or "audit", got "${candidateKind}"`)

const connect = async (url: string): Promise<Client> => {
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return client
}

const started = await spawnNodeUntil(tsNode(join(here, "upstream.ts")), {
  pattern: /^(http:\/\/\S+)\n/,
  cwd: cliDir,
  env,
})
const upstream = started.child
const gateways: ChildProcess[] = []
const clients: Client[] = []
const tmp = mkdtempSync(join(tmpdir(), "toolplane-bench-ops-"))
try {
  const backend = [
    "[[backends]]",
    'name = "up"',
    `mcp = { url = "${started.match}" }`,
    "require_approval = false",
    "",
  ]
  const off = join(tmp, "off.toml")
  const on = join(tmp, "on.toml")
  const auditFile = join(tmp, "audit.jsonl")
  writeFileSync(off, ['[server]\ntool_names = "name"', ...backend].join("\n"))
  writeFileSync(
    on,
    [
      '[server]\ntool_names = "name"',
      candidateKind === "audit" ? "" : '[metrics]\nlisten = "127.0.0.1:0"',
      candidateKind === "metrics"
        ? ""
        : `[audit]\nfile = ${JSON.stringify(auditFile)}\nmax_bytes = 1073741824`,
      ...backend,
    ].join("\n"),
  )
  const serve = async (config: string) => {
    const served = await spawnNodeUntil(
      gatewayNodeArgs(["serve", "--transport", "http", "--port", "0", "--config", config]),
      { pattern: /Streamable HTTP at (http:\/\/\S+)\n/, stream: "stderr", cwd: cliDir, env },
    )
    gateways.push(served.child)
    const client = await connect(served.match)
    clients.push(client)
    return { pid: served.child.pid, client }
  }
  const label = candidateKind === "both" ? "metrics + audit" : candidateKind
  const baseline = await serve(off)
  const candidate = await serve(on)
  const results = await compareLoad((side, concurrency) => {
    const { pid, client } = side === "baseline" ? baseline : candidate
    return loadWithCpu(() => client.callTool({ name: "echo", arguments: { text: "hello" } }), {
      pid,
      concurrency,
      ms: settings.roundMs,
      check: (result) => {
        if ((result.content as { text?: string }[])[0]?.text !== "hello")
          throw new Error(`wrong answer: ${JSON.stringify(result)}`)
      },
    })
  }, settings)
  const records = candidateKind === "metrics" ? 0 : readFileSync(auditFile, "utf8").split("\n").length - 1
  console.log(
    heading(
      "Operating cost: gateway CPU per relayed call, metrics + audit on ÷ off",
      `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds; ${records} audit records written by the candidate (${candidateKind})`,
    ),
  )
  console.log(cpuTable(results, { baseline: "off", candidate: label }))
  console.log("")
  console.log(loadTable(results, { baseline: "off", candidate: label }))
} finally {
  await Promise.all(clients.map((c) => c.close().catch(() => {})))
  await Promise.all([...gateways.map((g) => stopProcess(g)), stopProcess(upstream)])
  rmSync(tmp, { recursive: true, force: true })
}
