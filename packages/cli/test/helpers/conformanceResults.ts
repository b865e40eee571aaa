// What the server-role and client-role conformance suites share: the requirement sets, reading a
// scenario's checks.json, and asserting each scenario against its expected-failure list.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { expect } from "vitest"
import { REPO } from "./processes.js"

export const CONFORMANCE_DIR = join(
  REPO,
  "packages",
  "cli",
  "node_modules",
  "@modelcontextprotocol",
  "conformance",
)
/** The conformance CLI. */
export const CONFORMANCE = join(CONFORMANCE_DIR, "dist", "index.js")

export type RequirementSet = "2025-11-25" | "2026-07-28"

export interface Check {
  readonly id: string
  readonly name?: string
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED"
  readonly errorMessage?: string
  readonly details?: unknown
}

export interface ScenarioRun {
  readonly scenario: string
  readonly checks: readonly Check[]
  readonly output: string
}

/**
 * The required scenarios of a frozen requirement set for one role: the `server:` list of its YAML file
 * (up to `client:`), or the `client:` list (up to `not_scored:`).
 */
export const requiredScenarios = (role: "server" | "client", set: RequirementSet): string[] => {
  const yaml = readFileSync(join(CONFORMANCE_DIR, "requirements", `${set}.yaml`), "utf8")
  const [start, end, name] =
    role === "server"
      ? ["\nserver:\n", "\nclient:\n", /^ {2}- ([\w-]+)$/gm]
      : ["\nclient:\n", "\nnot_scored:\n", /^ {2}- ([\w/-]+)$/gm]
  const block = yaml.slice(yaml.indexOf(start) + 9, yaml.indexOf(end))
  return [...block.matchAll(name)].map((m) => m[1]!)
}

/** A scenario's checks from its result directory, or none and why they could not be read. */
export const readChecks = (
  resultDir: string | undefined,
  scenario: string,
): { checks: Check[]; note: string } => {
  try {
    return { checks: JSON.parse(readFileSync(join(resultDir!, "checks.json"), "utf8")) as Check[], note: "" }
  } catch (error) {
    return { checks: [], note: `\n(no checks.json for ${scenario}: ${(error as Error).message})` }
  }
}

/** Asserting runs against expected-failure lists, given a suite's own pass rule and failure account. */
export const scenarioVerdicts = <R extends ScenarioRun>(
  role: "server" | "client",
  passed: (run: R) => boolean,
  describeFailures: (run: R) => string,
) => ({
  /** Asserts a run against its expected-failure list. */
  expectRun: (
    runs: Map<string, R> | undefined,
    scenario: string,
    expectedFailures: Readonly<Record<string, string>>,
  ) => {
    const run = runs?.get(scenario)
    expect(run, "scenario did not run").toBeDefined()
    const reason = expectedFailures[scenario]
    if (reason === undefined) {
      expect(passed(run!), describeFailures(run!)).toBe(true)
      return
    }
    expect(passed(run!), `${scenario} passes now; remove it from the expected failures (${reason})`).toBe(
      false,
    )
  },
  /** The count of passed required scenarios, for the record. */
  tally: (runs: Map<string, R>, set: RequirementSet): string => {
    const required = requiredScenarios(role, set)
    const ok = required.filter((s) => runs.get(s) !== undefined && passed(runs.get(s)!)).length
    return `${ok} of ${required.length} required`
  },
})
