/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned), with its frozen
 * requirement sets for both protocol eras: `--requirements 2025-11-25` (initialize and sessions) and
 * `--requirements 2026-07-28` (stateless, per-request `_meta`), against (a) a Toolplane service over
 * `serveHttp` (the default node transport, and `transport: "sdk"` for the 2025 set) that implements the
 * scenarios (fixtures/conformanceTools.ts: `defineTool` tools in a local backend and a runner;
 * fixtures/conformanceResources.ts: an in-process `ResourceProvider` in a `resourceCatalog`;
 * `naming: "name"`), and (b) the gateway: `toolplane serve --transport http` (a subprocess) fronting two
 * MCP servers, the same tools served without resources, and a plain MCP SDK `McpServer` serving the
 * resources, template, prompts and completions, with `[server] tool_names = "name"`.
 *
 * Each server gets one `conformance server --url URL --requirements SET -o DIR` run per set (all at
 * once); the checks.json of every scenario the run produced is parsed. A scenario passes when it has a
 * verdict and every verdict is SUCCESS (WARNING is a SHOULD the suite reports without failing, INFO a log,
 * SKIPPED a sub-check the suite did not run). Scenarios we do not pass are listed per target with the
 * reason; a listed scenario that starts passing fails the test, as does an unlisted one that fails.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { resourceCatalog } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { localBackend } from "@toolplane/plugin-local"
import { type McpHttpServerHandle, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  conformanceProvider,
  inputRequiredPromptProvider,
  type SdkConformanceServer,
  startSdkConformanceServer,
} from "./fixtures/conformanceResources.js"
import { conformanceTools } from "./fixtures/conformanceTools.js"
import {
  CONFORMANCE,
  type RequirementSet,
  readChecks,
  requiredScenarios,
  type ScenarioRun,
  scenarioVerdicts,
} from "./helpers/conformanceResults.js"
import { childEnv, type HttpGateway, startHttpGateway, stopAllGateways } from "./helpers/processes.js"

/**
 * Limits for the conformance runs, which run at once (about ten seconds each alone; several times that
 * on a machine shared with other jobs). They only guard against a hang: the kill leaves room for the
 * hook to read what ran.
 */
const CONFORMANCE_RUN_LIMIT_MS = 200_000
const SETUP_LIMIT_MS = CONFORMANCE_RUN_LIMIT_MS + 40_000

/**
 * Scenarios the 2026-07-28 set runs that a Toolplane server does not pass yet, with the reason. Not
 * scored by the set (extensions, pending) and required ones alike: every scenario the run produced is
 * either expected to pass or listed here.
 */
const MODERN_DIRECT_FAILURES: Readonly<Record<string, string>> = {}

/** Through the gateway: what the direct server does not pass, plus what the hop loses (with the reason). */
const MODERN_GATEWAY_FAILURES: Readonly<Record<string, string>> = {
  ...MODERN_DIRECT_FAILURES,
}

/** The 2025-11-25 set: none (the set's not-scored scenarios pass too). */
const LEGACY_FAILURES: Readonly<Record<string, string>> = {}

interface ServerRun extends ScenarioRun {
  readonly exitCode: number | null
}

/**
 * Runs `conformance server --requirements SET` once against `url` and reads each scenario's checks.json
 * from its `server-<scenario>-<timestamp>` directory (every scenario the run produced, plus the set's
 * required ones, which must all have run).
 */
const runSet = (url: string, dir: string, set: RequirementSet): Promise<Map<string, ServerRun>> =>
  new Promise((resolve) => {
    mkdirSync(dir, { recursive: true })
    const child = spawn(
      process.execPath,
      [CONFORMANCE, "server", "--url", url, "--requirements", set, "-o", dir],
      { cwd: dir, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] },
    )
    let output = ""
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString("utf8")
    })
    child.stderr.on("data", (c: Buffer) => {
      output += c.toString("utf8")
    })
    // a guard against a hung suite, well inside the beforeAll timeout so its results are still read
    const timer = setTimeout(() => child.kill("SIGKILL"), CONFORMANCE_RUN_LIMIT_MS)
    child.on("error", (error) => {
      output += `\n(cannot run the conformance CLI: ${error.message})`
    })
    child.on("close", (exitCode) => {
      clearTimeout(timer)
      const results = new Map<string, ServerRun>()
      const produced = readdirSync(dir)
        .map((d) => /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(d)?.[1])
        .filter((name): name is string => name !== undefined)
      for (const scenario of new Set([...requiredScenarios("server", set), ...produced])) {
        const sub = readdirSync(dir).find(
          (d) => d.startsWith(`server-${scenario}-`) && /^\d{4}-/.test(d.slice(scenario.length + 8)),
        )
        const { checks, note } = readChecks(sub === undefined ? undefined : join(dir, sub), scenario)
        results.set(scenario, { scenario, exitCode, checks, output: output + note })
      }
      resolve(results)
    })
  })

/** A readable account of a scenario's failed checks. */
const describeFailures = (run: ScenarioRun): string => {
  const bad = run.checks.filter((c) => c.status === "FAILURE")
  const lines = bad.map(
    (c) =>
      `  ${c.status} ${c.id}: ${c.errorMessage ?? ""}${c.details ? ` ${JSON.stringify(c.details).slice(0, 400)}` : ""}`,
  )
  return [
    `scenario ${run.scenario}: ${bad.length} check(s) failed`,
    ...lines,
    ...(run.checks.length === 0 ? [`  output:\n${run.output.slice(-2000)}`] : []),
  ].join("\n")
}

/**
 * Scenarios whose checks are all informational for any server built on the MCP SDK, with the reason.
 * `server-sse-polling` POSTs with `mcp-protocol-version: 2025-03-26`, and priming events (the
 * resumability it probes) must not be sent to clients older than 2025-11-25, so the SDK's transport
 * answers plainly and the scenario records only INFO entries; it still fails on a FAILURE.
 */
const INFORMATIONAL: Readonly<Record<string, string>> = {
  "server-sse-polling": "probes SEP-1699 priming with a 2025-03-26 protocol header",
}

const passed = (run: ScenarioRun): boolean => {
  const verdicts = run.checks.filter((c) => c.status !== "INFO")
  const enough = INFORMATIONAL[run.scenario] !== undefined ? run.checks.length > 0 : verdicts.length > 0
  return enough && verdicts.every((c) => c.status !== "FAILURE")
}

const { expectRun, tally } = scenarioVerdicts("server", passed, describeFailures)

describe("the official MCP conformance suite (server scenarios, both eras)", () => {
  let direct: McpHttpServerHandle
  let directSdk: McpHttpServerHandle
  let toolsOnly: McpHttpServerHandle
  let sdk: SdkConformanceServer
  let gateway: HttpGateway | undefined
  let workDir: string
  const runs = new Map<string, Map<string, ScenarioRun>>()

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "toolplane-conformance-"))
    const runner = createRunner({
      backends: [localBackend(conformanceTools, { name: "conformance", approval: "never" })],
    })
    await runner.ready()
    const directOptions = {
      naming: "name",
      serverInfo: { name: "toolplane-conformance", version: "0.1.0" },
      catalog: resourceCatalog([{ name: "conformance", provider: conformanceProvider }], {
        promptNames: "name",
      }),
    } as const
    direct = await serveHttp(runner, directOptions)
    directSdk = await serveHttp(runner, { ...directOptions, transport: "sdk" })
    // The gateway fronts two MCP servers: the tools (a Toolplane server without resources) and a plain
    // SDK McpServer serving the resources, template, prompts and completions.
    // (and the prompt that asks for input, so a 2026-07-28 upstream answers prompts/get input_required)
    toolsOnly = await serveHttp(runner, {
      naming: "name",
      catalog: resourceCatalog([{ name: "asking", provider: inputRequiredPromptProvider }], {
        promptNames: "name",
      }),
    })
    sdk = await startSdkConformanceServer()
    const config = join(workDir, "gateway.toml")
    writeFileSync(
      config,
      [
        "[server]",
        'tool_names = "name"',
        "",
        "[[backends]]",
        'name = "conformance"',
        `mcp = { url = "${toolsOnly.url}" }`,
        "require_approval = false",
        "",
        "[[backends]]",
        'name = "sdk"',
        `mcp = { url = "${sdk.url}" }`,
        "require_approval = false",
        "",
      ].join("\n"),
    )
    // Every run at once (the gateway's as soon as it listens), a few processes each.
    const started = startHttpGateway(config).then((g) => {
      gateway = g
      return g.url.href
    })
    const targets: [string, Promise<string>, RequirementSet][] = [
      ["direct 2025", Promise.resolve(direct.url), "2025-11-25"],
      ["direct-sdk 2025", Promise.resolve(directSdk.url), "2025-11-25"],
      ["gateway 2025", started, "2025-11-25"],
      ["direct 2026", Promise.resolve(direct.url), "2026-07-28"],
      ["gateway 2026", started, "2026-07-28"],
    ]
    await Promise.all(
      targets.map(async ([name, url, set]) => {
        runs.set(name, await runSet(await url, join(workDir, name.replace(" ", "-")), set))
      }),
    )
    console.info(
      `conformance: ${targets.map(([name, , set]) => `${name}: ${tally(runs.get(name)!, set)}`).join("; ")}`,
    )
  }, SETUP_LIMIT_MS)

  afterAll(async () => {
    await gateway?.stop()
    await stopAllGateways()
    await direct?.close()
    await directSdk?.close()
    await toolsOnly?.close()
    await sdk?.close()
    if (workDir) rmSync(workDir, { recursive: true, force: true })
  }, 60_000)

  const scenariosOf = (set: RequirementSet, failures: Readonly<Record<string, string>>) => [
    ...new Set([...requiredScenarios("server", set), ...Object.keys(failures)]),
  ]

  describe("2025-11-25 (a) serveHttp of a Toolplane toolset", () => {
    it.each(scenariosOf("2025-11-25", LEGACY_FAILURES))("%s", (scenario) => {
      expectRun(runs.get("direct 2025")!, scenario, LEGACY_FAILURES)
    })
  })

  describe('2025-11-25 (a2) the same over transport: "sdk" (the MCP SDK\'s server transport)', () => {
    it.each(scenariosOf("2025-11-25", LEGACY_FAILURES))("%s", (scenario) => {
      expectRun(runs.get("direct-sdk 2025")!, scenario, LEGACY_FAILURES)
    })
  })

  describe("2025-11-25 (b) toolplane serve fronting that toolset over MCP", () => {
    it.each(scenariosOf("2025-11-25", LEGACY_FAILURES))("%s", (scenario) => {
      expectRun(runs.get("gateway 2025")!, scenario, LEGACY_FAILURES)
    })
  })

  describe("2026-07-28 (a) serveHttp of a Toolplane toolset, stateless", () => {
    it.each(scenariosOf("2026-07-28", MODERN_DIRECT_FAILURES))("%s", (scenario) => {
      expectRun(runs.get("direct 2026")!, scenario, MODERN_DIRECT_FAILURES)
    })
  })

  describe("2026-07-28 (b) toolplane serve fronting that toolset, stateless to its clients", () => {
    it.each(scenariosOf("2026-07-28", MODERN_GATEWAY_FAILURES))("%s", (scenario) => {
      expectRun(runs.get("gateway 2026")!, scenario, MODERN_GATEWAY_FAILURES)
    })
  })

  it("every scenario each run produced is covered by the assertions (nothing run goes unchecked)", () => {
    for (const [name, run] of runs) {
      const set: RequirementSet = name.endsWith("2026") ? "2026-07-28" : "2025-11-25"
      const failures =
        name === "gateway 2026"
          ? MODERN_GATEWAY_FAILURES
          : set === "2026-07-28"
            ? MODERN_DIRECT_FAILURES
            : LEGACY_FAILURES
      const covered = new Set(scenariosOf(set, failures))
      for (const scenario of run.keys())
        if (!covered.has(scenario))
          expect(passed(run.get(scenario)!), `${name}: ${describeFailures(run.get(scenario)!)}`).toBe(true)
    }
  })
})
