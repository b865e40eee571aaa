/**
 * Code mode's `@needsApproval` marks follow the gateway's approval decision (openGateway in process):
 * a tool is marked when its backend requires approval and the gateway's approver would ask or refuse
 * (no approval mode, `"elicit"`, `"deny"`), not when the backend is `approval = "allow"` or does not
 * require approval. Aliases follow their original tool, composites any of their targets, and a tool
 * added later is marked in the next declaration.
 */
import { defineTool, type Tool } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { parseConfig } from "../src/config/load.js"
import { type Gateway, openGateway } from "../src/gateway.js"
import { FIXTURES } from "./helpers/processes.js"

const CONFIG = `
tool_exposure = "code"

[aliases]
"notes/echo" = "n/say"

[[composite_tools]]
name = "both"
tools = ["n/say", "ops/launch"]

[[composite_tools]]
name = "launch_only"
tools = ["ops/launch"]

[[backends]]
name = "ops"
module = "./approvalTools.ts"
approval = "allow"

[[backends]]
name = "local"
module = "./e2eTools.ts"
require_approval = true
`

describe("code mode marks exactly the tools whose calls the approver holds", () => {
  let gateway: Gateway

  beforeAll(async () => {
    gateway = await openGateway(parseConfig(CONFIG), {
      baseDir: FIXTURES,
      env: { TOOLPLANE_CURSOR_SECRET: "approval-marks-secret-0123456789" },
    })
  }, 30_000)
  afterAll(async () => {
    await gateway?.close()
  })

  const declaration = async (): Promise<string[]> => {
    const { tools } = await gateway.service.listTools()
    const execute = tools.find((t: Tool) => t.id === "toolplane/execute_code")
    if (execute === undefined) throw new Error(`no execute_code in ${tools.map((t) => t.id).join(", ")}`)
    return (execute.description ?? "").split("\n")
  }
  const marked = (lines: readonly string[], member: string): boolean => {
    const line = lines.find((l) => l.trimStart().match(new RegExp(`(\\*/ )?${member}\\(args`)))
    if (line === undefined) throw new Error(`${member} is not declared:\n${lines.join("\n")}`)
    return line.includes("@needsApproval")
  }

  it("follows backend, approval mode, alias and composite", async () => {
    const lines = await declaration()
    // ops/launch needs approval by the local "auto" policy, but approval = "allow" lets it through.
    expect(marked(lines, "launch")).toBe(false)
    expect(marked(lines, "launch_only")).toBe(false)
    // require_approval = true and no approval mode: calls fail with ApprovalRequired.
    expect(marked(lines, "divide")).toBe(true)
    expect(marked(lines, "tool_0")).toBe(true)
    // The alias of notes/echo, and a composite with it as one target.
    expect(marked(lines, "say")).toBe(true)
    expect(marked(lines, "both")).toBe(true)
  })

  it("marks a tool added later in the next declaration", async () => {
    const gated = defineTool({
      id: "late/wipe",
      description: "Wipes something",
      input: z.object({ what: z.string() }),
      annotations: { destructiveHint: true },
      handler: ({ what }) => `wiped ${what}`,
    })
    const open = defineTool({
      id: "late/peek",
      description: "Peeks at something",
      input: z.object({ what: z.string() }),
      annotations: { readOnlyHint: true },
      handler: ({ what }) => `peeked ${what}`,
    })
    expect((await declaration()).some((l) => l.includes("wipe(args"))).toBe(false)
    await gateway.runner.register(localBackend([gated, open], { name: "late" }))
    const lines = await declaration()
    expect(marked(lines, "wipe")).toBe(true)
    expect(marked(lines, "peek")).toBe(false)
  })
})
