/**
 * `toolplane runs`: lists and shows durable runs, approves (with edited, validated arguments) and
 * rejects waiting steps in a run file written by a real durable runner; the runner then finishes them.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defineSkill } from "@toolplane/compose"
import { openDurableRunner } from "@toolplane/durable"
import { createRunner } from "@toolplane/exec"
import { defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { afterAll, describe, expect, it } from "vitest"
import { type CliIO, run } from "../src/cli.js"

const fixture = join(import.meta.dirname, "fixtures", "gateway.toml")
const dir = mkdtempSync(join(tmpdir(), "toolplane-runs-"))
const file = join(dir, "runs.db")
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const cli = async (argv: string[]) => {
  let stdout = ""
  let stderr = ""
  const io: CliIO = {
    stdout: (s) => {
      stdout += s
    },
    stderr: (s) => {
      stderr += s
    },
    env: process.env,
    cwd: process.cwd(),
  }
  const code = await run([...argv, "--runs", file, "-c", fixture], io)
  return { code, stdout, stderr }
}

const calls: string[] = []
const deploy = defineTool({
  id: "ops/deploy",
  input: {
    type: "object",
    properties: { version: { type: "string", pattern: "^\\d+\\.\\d+$" } },
    required: ["version"],
  },
  annotations: { destructiveHint: true },
  handler: async (args: Record<string, unknown>) => {
    calls.push(String(args.version))
    return { deployed: args.version }
  },
})
const skill = defineSkill({
  name: "release",
  steps: [{ id: "deploy", tool: "ops/deploy", inputs: { version: { $ref: "$input#/version" } } }],
})
const durable = await openDurableRunner({
  storage: file,
  service: createRunner({ backends: [definitionBackend([deploy], { name: "ops" })] }),
})
afterAll(() => durable.close())

describe("toolplane runs", () => {
  it("lists, shows, approves with edited arguments and rejects", async () => {
    const first = await durable.start(skill, { version: "1.0" })
    const second = await durable.start(skill, { version: "2.0" })
    expect([first.status, second.status]).toEqual(["suspended", "suspended"])

    const list = await cli(["runs", "list"])
    expect(list.code).toBe(0)
    expect(list.stdout).toContain(first.runId)
    expect(list.stdout).toMatch(new RegExp(`${second.runId}\\s+release\\s+suspended\\s+deploy`))

    const shown = await cli(["runs", "show", first.runId, "--json"])
    expect(JSON.parse(shown.stdout).steps[0]).toMatchObject({
      stepId: "deploy",
      arguments: { version: "1.0" },
    })

    const invalid = await cli(["runs", "approve", first.runId, "deploy", "--args", '{"version":"latest"}'])
    // Arguments the schema rejects are a usage error (exit 2), as for `toolplane call`.
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).toMatch(/InvalidArguments.*\/version/)

    const approved = await cli(["runs", "approve", first.runId, "deploy", "--args", '{"version":"1.1"}'])
    expect(approved.code).toBe(0)
    const rejected = await cli(["runs", "reject", second.runId, "deploy", "--reason", "frozen"])
    expect(rejected.code).toBe(0)
    const again = await cli(["runs", "reject", second.runId, "deploy"])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/ApprovalNotPending.*state: rejected/)

    const [a, b] = await durable.recover()
    expect(a!.status).toBe("completed")
    expect(b!.status).toBe("failed")
    expect(calls).toEqual(["1.1"])
  })

  it("reads the store from TOOLPLANE_RUNS and needs no configuration file", async () => {
    let stdout = ""
    let stderr = ""
    const io: CliIO = {
      stdout: (s) => void (stdout += s),
      stderr: (s) => void (stderr += s),
      env: { TOOLPLANE_RUNS: file },
      cwd: dir,
    }
    expect(await run(["runs", "list", "--json"], io)).toBe(0)
    expect(stderr).toBe("")
    expect(JSON.parse(stdout).map((r: { skill: string }) => r.skill)).toContain("release")
    // Any other command still needs its configuration.
    expect(await run(["list"], { ...io, stdout: () => {} })).toBe(2)
    expect(stderr).toMatch(/configuration error: .*toolplane\.toml: file not found/)
  })

  it("names usage mistakes and unknown runs", async () => {
    expect((await cli(["runs"])).stderr).toMatch(/runs needs one of list, show, approve, reject/)
    expect((await cli(["runs", "approve", "x"])).stderr).toMatch(/needs a RUN_ID and a STEP_ID/)
    const missing = await cli(["runs", "show", "nope"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/RunNotFound: No run "nope"/)
  })
})
