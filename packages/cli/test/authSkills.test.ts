/**
 * A skill served as a tool (`skillTool`, in-process) under the CLI's scope policy: the skill's id is
 * granted like any tool, and each of its steps needs a grant of its own, because the steps reach the
 * runner with the caller's context and the runner's `authorize` judges them.
 */

import { defineSkill, gatewayStack, makePlanner, skillTool } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { applyMiddleware, defineTool, makeContext, type ToolService } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { CALLER_SCOPES_KEY } from "@toolplane/plugin-mcp"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { parseConfig } from "../src/config/load.js"
import { scopePolicy } from "../src/httpAuth.js"

describe("skills under scopes", () => {
  it("runs a granted skill's steps only where the caller's grants cover them", async () => {
    const ran: string[] = []
    const tool = (id: string) =>
      defineTool({
        id,
        input: z.object({}),
        annotations: { readOnlyHint: true },
        handler: () => {
          ran.push(id)
          return { id }
        },
      })
    const config = parseConfig(`
[server.auth]
tokens = [{ env = "T", client = "c", scopes = ["s"] }]

[server.auth.scopes.s]
tools = ["skill/report", "pub/*"]

[[backends]]
name = "local"
module = "./unused.ts"
`)
    const policy = scopePolicy(config.server.auth)!
    const runner = createRunner({
      backends: [definitionBackend([tool("pub/read"), tool("sec/read")])],
      authorize: policy.authorize,
    })
    const planner = makePlanner({ tools: ["pub/read", "sec/read"] })
    const plan = (name: string, tools: string[]) =>
      planner.plan(defineSkill({ name, steps: tools.map((t, i) => ({ id: `s${i}`, tool: t })) }))
    let gateway: ToolService | undefined
    const inner = await gatewayStack(runner, {
      tools: [
        skillTool(plan("report", ["pub/read"]), () => gateway!),
        skillTool(plan("leak", ["pub/read", "sec/read"]), () => gateway!, { id: "skill/report_all" }),
      ],
    })
    gateway = inner
    const service = applyMiddleware(inner, policy.middleware)
    const ctx = () => makeContext({ callerId: "c", metadata: { [CALLER_SCOPES_KEY]: ["s"] } })

    const ok = await service.callTool({ name: "skill/report", arguments: {}, context: ctx() })
    expect(ok.isError).toBeFalsy()
    expect(ran).toEqual(["pub/read"])
    // The skill that is not granted is unknown to the caller.
    await expect(
      service.callTool({ name: "skill/report_all", arguments: {}, context: ctx() }),
    ).rejects.toThrow(/not found|Unknown/i)
    // Called from inside (as if granted), its ungranted step is refused by the runner all the same.
    const inside = await inner.callTool({ name: "skill/report_all", arguments: {}, context: ctx() })
    expect(inside.isError).toBe(true)
    expect(ran).toEqual(["pub/read", "pub/read"])
  })
})
