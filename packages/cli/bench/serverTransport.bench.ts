/**
 * The server side of a relayed call, by HTTP transport: two `toolplane serve --transport http` processes
 * fronting the same upstream MCP server (bench/upstream.ts, its own process), one with
 * `[server] http_transport = "sdk"` (the MCP SDK's StreamableHTTPServerTransport; baseline) and one with
 * `"node"` (the lean transport, the default). The official SDK client (this process) calls `echo` through
 * each, at concurrency 1 and 32, rounds interleaved (@toolplane/bench-kit), medians of rounds. Reports
 * throughput, p50/p99 and the CPU time per call of each gateway process alone (/proc/<pid>/stat), the
 * figure that shows what the gateway costs when the client saturates the machine.
 *
 * Run: `pnpm --filter @toolplane/cli bench:transport` (BENCH_ROUNDS, BENCH_ROUND_MS, BENCH_CONCURRENCY).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  benchSettings,
  closedLoop,
  compareLoad,
  fmt,
  heading,
  type LoadSample,
  loadTable,
  markdownTable,
  median,
  processCpuUs,
} from "@toolplane/bench-kit"

const settings = benchSettings({ rounds: 3, roundMs: 2000, concurrency: [1, 32] })
const here = dirname(fileURLToPath(import.meta.url))
const cliDir = join(here, "..")

const spawnTs = (args: readonly string[]): ChildProcess =>
  spawn(process.execPath, ["--conditions=@toolplane/source", "--import", "tsx", ...args], {
    cwd: cliDir,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, TOOLPLANE_CURSOR_SECRET: "bench-cursor-secret-0123456789abcdef" },
  })

const waitFor = (child: ChildProcess, stream: "stdout" | "stderr", pattern: RegExp) =>
  new Promise<string>((resolve, reject) => {
    let seen = ""
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}: ${seen}`)), 60_000)
    child[stream]!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8")
      const match = pattern.exec(seen)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`process exited (${code}) before ${pattern}: ${seen}`))
    })
  })

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const force = setTimeout(() => child.kill("SIGKILL"), 10_000)
    child.once("exit", () => {
      clearTimeout(force)
      resolve()
    })
    child.kill("SIGTERM")
  })

interface Sample extends LoadSample {
  /** CPU per call of the gateway process, µs. */
  readonly gatewayCpu: number
}

const tmp = mkdtempSync(join(tmpdir(), "toolplane-bench-transport-"))
const children: ChildProcess[] = []
const clients: Client[] = []
try {
  const upstream = spawnTs([join(here, "upstream.ts"), "--json"])
  children.push(upstream)
  const upstreamUrl = await waitFor(upstream, "stdout", /^(http:\/\/\S+)\n/)
  const gatewayOf = async (transport: "node" | "sdk") => {
    const config = join(tmp, `${transport}.toml`)
    writeFileSync(
      config,
      [
        "[server]",
        'tool_names = "name"',
        `http_transport = "${transport}"`,
        "",
        "[[backends]]",
        'name = "up"',
        `mcp = { url = "${upstreamUrl}" }`,
        "require_approval = false",
        "",
      ].join("\n"),
    )
    const child = spawnTs([
      join(cliDir, "src/main.ts"),
      "serve",
      "--transport",
      "http",
      "--port",
      "0",
      "--config",
      config,
    ])
    children.push(child)
    const url = await waitFor(child, "stderr", / at (http:\/\/\S+)\n/)
    const client = new Client({ name: "bench", version: "0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    clients.push(client)
    return { child, client }
  }
  const sides = { baseline: await gatewayOf("sdk"), candidate: await gatewayOf("node") }
  const call = (client: Client) => () => client.callTool({ name: "echo", arguments: { text: "hello" } })
  const results = await compareLoad(async (side, concurrency): Promise<Sample> => {
    const { child, client } = sides[side]
    await closedLoop(call(client), { concurrency, ms: 300 })
    const before = processCpuUs(child.pid) ?? Number.NaN
    const sample = await closedLoop(call(client), {
      concurrency,
      ms: settings.roundMs,
      check: (result) => {
        if ((result.content as { text?: string }[])[0]?.text !== "hello")
          throw new Error(`wrong answer: ${JSON.stringify(result)}`)
      },
    })
    const after = processCpuUs(child.pid) ?? Number.NaN
    return { ...sample, gatewayCpu: (after - before) / sample.calls }
  }, settings)

  console.log(
    heading(
      "toolplane serve by HTTP transport: sdk (baseline) vs node, fronting one MCP server over HTTP",
      `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per cell, median of rounds`,
    ),
  )
  console.log(loadTable(results, { baseline: 'http_transport "sdk"', candidate: 'http_transport "node"' }))
  console.log("\nCPU time per relayed call of the gateway process (µs, user + system, median of rounds):\n")
  console.log(
    markdownTable(
      ["concurrency", "sdk", "node", "node ÷ sdk"],
      settings.concurrency.map((c) => {
        const r = results.get(c)!
        const sdk = median(r.baseline.map((s) => s.gatewayCpu))
        const node = median(r.candidate.map((s) => s.gatewayCpu))
        return [c, fmt(sdk), fmt(node), fmt(node / sdk, 2)]
      }),
    ),
  )
} finally {
  await Promise.all(clients.map((c) => c.close().catch(() => {})))
  await Promise.all(children.map(stop))
  rmSync(tmp, { recursive: true, force: true })
}
