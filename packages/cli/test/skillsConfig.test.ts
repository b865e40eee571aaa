/**
 * Durable skills declared in TOML: `[durable] store` and `[[skills]]` are served as `skill/<name>` tools
 * that run durably; a step that is not read-only waits, `toolplane runs` sees the run and approves it, and
 * the gateway's runner picks the decision up and finishes the run.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runTaskReference } from "@toolplane/durable"
import { listAllTools } from "@toolplane/foundation"
import { afterAll, describe, expect, it } from "vitest"
import { type CliIO, run } from "../src/cli.js"
import { parseConfig } from "../src/config/load.js"
import { durableTaskSource } from "../src/durableTaskSource.js"
import { openGateway } from "../src/gateway.js"

const dir = mkdtempSync(join(tmpdir(), "toolplane-skills-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const file = join(dir, "toolplane.toml")
const fixtures = join(import.meta.dirname, "fixtures")
writeFileSync(
  file,
  `[durable]
store = "runs.db"

[[backends]]
name = "notes"
module = "${join(fixtures, "tools.ts")}"

[[backends]]
name = "ops"
module = "${join(fixtures, "approvalTools.ts")}"
require_approval = false   # the durable runner asks before the step

[[skills]]
name = "announce_launch"
description = "Echoes the target, then launches it"
input_schema = { type = "object", properties = { target = { type = "string" } }, required = ["target"] }

[[skills.steps]]
id = "note"
tool = "notes/echo"
inputs = { message = { "$ref" = "$input#/target" } }

[[skills.steps]]
id = "launch"
tool = "ops/launch"
inputs = { target = { "$ref" = "$input#/target" } }
depends_on = ["note"]
`,
)

const cli = async (argv: string[]) => {
  let stdout = ""
  let stderr = ""
  const io: CliIO = {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    env: process.env,
    cwd: dir,
  }
  const code = await run(argv, io)
  return { code, stdout, stderr }
}

describe("durable skills in the configuration", () => {
  it("rejects a skill without steps, naming the key", () => {
    expect(() =>
      parseConfig(
        '[[backends]]\nname = "x"\nmodule = "./m.ts"\n\n[[skills]]\nname = "s"\nsteps = []\n',
        "t.toml",
      ),
    ).toThrow(/skills\[0\]\.steps: a skill needs at least one step/)
  })

  it("serves a skill as a durable tool that waits for approval, which `toolplane runs` gives", async () => {
    const { loadConfig } = await import("../src/config/load.js")
    const gateway = await openGateway(await loadConfig(file), { file, resumeRuns: true })
    try {
      const ids = (await listAllTools(gateway.service)).map((t) => t.id)
      expect(ids).toContain("skill/announce_launch")
      const started = await gateway.service.callTool({
        name: "skill/announce_launch",
        arguments: { target: "rocket" },
      })
      const { runId, status } = started.structuredContent as { runId: string; status: string }
      expect(status).toBe("suspended")

      // What `toolplane serve` answers for this run's task on any replica: the gateway's skills and store.
      const source = durableTaskSource(() => gateway.durable)
      const claims = {
        v: 1 as const,
        i: "task-of-this-run",
        c: "",
        t: "skill.announce_launch",
        e: Date.now() + 60_000,
        s: runTaskReference(runId),
      }
      const task = await source.get(claims, "the-handle")
      expect(task).toMatchObject({ taskId: "the-handle", status: "input_required" })
      expect(Object.keys((task as { inputRequests: object }).inputRequests)).toEqual(["approve-launch"])
      expect(await source.get({ ...claims, s: "run1.not-a-run" }, "h")).toBe("unknown")

      const listed = await cli(["runs", "list", "--json", "-c", file])
      expect(listed.code, listed.stderr).toBe(0)
      expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ runId, status: "suspended" })])
      const approved = await cli(["runs", "approve", runId, "launch", "-c", file])
      expect(approved.code, approved.stderr).toBe(0)

      // The gateway's runner watches the store and finishes the run.
      let shown: { status: string } = { status: "" }
      for (let i = 0; i < 100 && shown.status !== "completed"; i++) {
        await new Promise((r) => setTimeout(r, 100))
        shown = JSON.parse((await cli(["runs", "show", runId, "--json", "-c", file])).stdout)
      }
      expect(shown.status).toBe("completed")
      expect((globalThis as { __toolplaneLaunches?: number }).__toolplaneLaunches).toBe(1)
    } finally {
      await gateway.close()
    }
  })
})
