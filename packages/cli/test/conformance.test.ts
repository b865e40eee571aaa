/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, server scenarios) against
 * (a) a Toolplane-served toolset that implements the scenario tools (fixtures/conformance-tools.ts:
 * `defineTool` tools in a local backend, a runner, `serveHttp` with `naming: "name"`), and (b) the
 * gateway fronting that same toolset: `toolplane serve --transport http` (a subprocess) whose only
 * backend is `mcp = { url = <the direct server> }` and `[server] tool_names = "name"`.
 *
 * Each scenario is one `conformance server --url URL --scenario NAME -o DIR` run (the CLI takes one
 * scenario, or whole suites that include out-of-scope scenarios), a few at a time; the checks.json it
 * writes is parsed and every check must be SUCCESS (INFO entries are logs).
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createRunner } from "@toolplane/exec"
import { localBackend } from "@toolplane/plugin-local"
import { type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { conformanceTools } from "./fixtures/conformance-tools.js"
import { childEnv, type HttpGateway, REPO, startHttpGateway, stopAllGateways } from "./helpers/processes.js"

const CONFORMANCE = join(
  REPO,
  "packages",
  "cli",
  "node_modules",
  "@modelcontextprotocol",
  "conformance",
  "dist",
  "index.js",
)

/** Every tool-related server scenario, plus initialize, ping, logging level and DNS-rebinding protection. */
const SCENARIOS = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "dns-rebinding-protection",
  "tools-list",
  "json-schema-2020-12",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
] as const

/** Scenarios allowed to fail through the gateway, with the reason. None: the gateway forwards everything. */
const EXPECTED_GATEWAY_FAILURES: Partial<Record<(typeof SCENARIOS)[number], string>> = {}

const CONCURRENCY = 3 // per server

interface Check {
  readonly id: string
  readonly name?: string
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED"
  readonly errorMessage?: string
  readonly details?: unknown
}

interface ScenarioRun {
  readonly scenario: string
  readonly exitCode: number | null
  readonly checks: readonly Check[]
  readonly output: string
}

const runScenario = (url: string, scenario: string, dir: string): Promise<ScenarioRun> =>
  new Promise((resolve) => {
    const out = join(dir, scenario)
    mkdirSync(out, { recursive: true })
    const child = spawn(
      process.execPath,
      [CONFORMANCE, "server", "--url", url, "--scenario", scenario, "-o", out],
      { cwd: dir, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] },
    )
    let output = ""
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString("utf8")
    })
    child.stderr.on("data", (c: Buffer) => {
      output += c.toString("utf8")
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    child.on("error", (error) => {
      output += `\n(cannot run the conformance CLI: ${error.message})`
    })
    child.on("close", (exitCode) => {
      clearTimeout(timer)
      let checks: Check[] = []
      try {
        const [sub] = readdirSync(out)
        checks = JSON.parse(readFileSync(join(out, sub!, "checks.json"), "utf8")) as Check[]
      } catch (error) {
        output += `\n(no checks.json: ${(error as Error).message})`
      }
      resolve({ scenario, exitCode, checks, output })
    })
  })

const runAll = async (url: string, dir: string): Promise<Map<string, ScenarioRun>> => {
  const queue = [...SCENARIOS]
  const results = new Map<string, ScenarioRun>()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let s = queue.shift(); s !== undefined; s = queue.shift())
        results.set(s, await runScenario(url, s, dir))
    }),
  )
  return results
}

/** A readable account of a scenario's failed checks. */
const describeFailures = (run: ScenarioRun): string => {
  const bad = run.checks.filter((c) => c.status !== "SUCCESS" && c.status !== "INFO")
  const lines = bad.map(
    (c) =>
      `  ${c.status} ${c.id}: ${c.errorMessage ?? ""}${c.details ? ` ${JSON.stringify(c.details).slice(0, 400)}` : ""}`,
  )
  return [
    `scenario ${run.scenario} (exit ${run.exitCode}): ${bad.length} check(s) not SUCCESS`,
    ...lines,
    ...(run.checks.length === 0 ? [`  output:\n${run.output.slice(-2000)}`] : []),
  ].join("\n")
}

const expectPassed = (run: ScenarioRun | undefined) => {
  expect(run, "scenario did not run").toBeDefined()
  const verdicts = run!.checks.filter((c) => c.status !== "INFO")
  const failed = verdicts.filter((c) => c.status !== "SUCCESS")
  expect(verdicts.length, describeFailures(run!)).toBeGreaterThan(0)
  expect(failed, describeFailures(run!)).toEqual([])
  expect(run!.exitCode, describeFailures(run!)).toBe(0)
}

const successCount = (runs: Map<string, ScenarioRun>) =>
  [...runs.values()].flatMap((r) => r.checks).filter((c) => c.status === "SUCCESS").length

describe("the official MCP conformance suite (server scenarios)", () => {
  let direct: McpHttpServerHandle
  let gateway: HttpGateway | undefined
  let workDir: string
  let directRuns: Map<string, ScenarioRun>
  let gatewayRuns: Map<string, ScenarioRun>

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "toolplane-conformance-"))
    const runner = createRunner({
      backends: [localBackend(conformanceTools, { name: "conformance", approval: "never" })],
    })
    await runner.ready()
    direct = await serveHttp(runner, {
      naming: "name",
      serverInfo: { name: "toolplane-conformance", version: "0.1.0" },
    })
    const config = join(workDir, "gateway.toml")
    writeFileSync(
      config,
      [
        "[server]",
        'tool_names = "name"',
        "",
        "[[backends]]",
        'name = "conformance"',
        `mcp = { url = "${direct.url}" }`,
        "require_approval = false",
        "",
      ].join("\n"),
    )
    // Both servers' scenarios run at once (the gateway's as soon as it listens), a few processes each.
    const [directResults, gatewayResults] = await Promise.all([
      runAll(direct.url, join(workDir, "direct")),
      startHttpGateway(config).then((started) => {
        gateway = started
        return runAll(started.url.href, join(workDir, "gateway"))
      }),
    ])
    directRuns = directResults
    gatewayRuns = gatewayResults
    console.info(
      `conformance: direct ${successCount(directRuns)} successful checks in ${directRuns.size} scenarios, gateway ${successCount(gatewayRuns)} in ${gatewayRuns.size}`,
    )
  }, 90_000)

  afterAll(async () => {
    await gateway?.stop()
    await stopAllGateways()
    await direct?.close()
    if (workDir) rmSync(workDir, { recursive: true, force: true })
  }, 20_000)

  describe("(a) serveHttp of a Toolplane toolset", () => {
    it.each(SCENARIOS)("%s", (scenario) => {
      expectPassed(directRuns.get(scenario))
    })
  })

  describe("(b) toolplane serve fronting that toolset over MCP", () => {
    it.each(SCENARIOS)("%s", (scenario) => {
      const reason = EXPECTED_GATEWAY_FAILURES[scenario]
      if (reason === undefined) {
        expectPassed(gatewayRuns.get(scenario))
        return
      }
      // An expected failure must still fail: when it starts passing, remove it from the list.
      const run = gatewayRuns.get(scenario)!
      expect(
        run.checks.some((c) => c.status === "FAILURE"),
        `${scenario} passes now; remove it from EXPECTED_GATEWAY_FAILURES (${reason})`,
      ).toBe(true)
    })
  })
})
