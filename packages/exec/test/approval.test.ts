import { fc, test } from "@fast-check/vitest"
import { ApprovalDenied, ApprovalRequired, defineTool } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { allowList, approveAll, approveNone, approveWith, createRunner } from "../src/index.js"

const ran: string[] = []
const tool = (id: string) =>
  defineTool({ id, input: z.object({ n: z.number() }), handler: ({ n }) => ran.push(`${id}:${n}`) && "ok" })
const gatedA = tool("ops/deploy")
const gatedB = tool("ops/delete")
const free = tool("info/read")
const requires = (id: string) => id.startsWith("ops/")

describe("approval gate", () => {
  it("fails with ApprovalRequired without an approver, and runs approval-free tools", async () => {
    ran.length = 0
    const runner = createRunner({ backends: [definitionBackend([gatedA, free], { approval: requires })] })
    await expect(runner.callTool({ name: "ops/deploy", arguments: { n: 1 } })).rejects.toBeInstanceOf(
      ApprovalRequired,
    )
    await runner.callTool({ name: "info/read", arguments: { n: 2 } })
    expect(ran).toEqual(["info/read:2"])
  })

  it("supports callback, allow-list, deny-all and allow-all approvers", async () => {
    ran.length = 0
    const asked: unknown[] = []
    const callback = approveWith(async (req) => {
      asked.push([req.toolId, req.backend, req.arguments])
      return req.arguments.n === 1 ? true : { approved: false, reason: "n must be 1" }
    })
    const backend = () => definitionBackend([gatedA, gatedB, free], { approval: requires })
    const r1 = createRunner({ backends: [backend()], approver: callback })
    await r1.callTool({ name: "ops/deploy", arguments: { n: 1 } })
    const denied = await r1.callTool({ name: "ops/deploy", arguments: { n: 2 } }).catch((e) => e)
    expect(denied).toBeInstanceOf(ApprovalDenied)
    expect(denied.reason).toBe("n must be 1")
    expect(asked).toEqual([
      ["ops/deploy", "test", { n: 1 }],
      ["ops/deploy", "test", { n: 2 }],
    ])
    const r2 = createRunner({ backends: [backend()], approver: allowList(["ops/deploy"]) })
    await r2.callTool({ name: "ops/deploy", arguments: { n: 3 } })
    await expect(r2.callTool({ name: "ops/delete", arguments: { n: 3 } })).rejects.toBeInstanceOf(
      ApprovalDenied,
    )
    const r3 = createRunner({ backends: [backend()], approver: allowList(["ops/*"]) })
    await r3.callTool({ name: "ops/delete", arguments: { n: 4 } })
    const r4 = createRunner({ backends: [backend()], approver: approveNone() })
    await expect(r4.callTool({ name: "ops/deploy", arguments: { n: 5 } })).rejects.toBeInstanceOf(
      ApprovalDenied,
    )
    const r5 = createRunner({ backends: [backend()], approver: approveAll() })
    await r5.callTool({ name: "ops/delete", arguments: { n: 6 } })
    expect(ran).toEqual(["ops/deploy:1", "ops/deploy:3", "ops/delete:4", "ops/delete:6"])
  })

  it("treats a throwing approver as a denial", async () => {
    const runner = createRunner({
      backends: [definitionBackend([gatedA], { approval: requires })],
      approver: approveWith(() => {
        throw new Error("ui crashed")
      }),
    })
    const error = await runner.callTool({ name: "ops/deploy", arguments: { n: 1 } }).catch((e) => e)
    expect(error).toBeInstanceOf(ApprovalDenied)
    expect(error.reason).toContain("ui crashed")
  })

  it("defaults to requiring approval when the backend does not say", async () => {
    const { defineBackend, textResult, makeTool } = await import("@toolplane/foundation")
    let executed = 0
    const backend = defineBackend({
      name: "default",
      toolSchemas: () => [makeTool({ id: "x/y" })],
      execute: () => {
        executed++
        return textResult("ran")
      },
    })
    const runner = createRunner({ backends: [backend] })
    await expect(runner.callTool({ name: "x/y" })).rejects.toBeInstanceOf(ApprovalRequired)
    expect(executed).toBe(0)
  })
})

// Property: over any sequence of calls with any approver decisions, an approval-required tool runs
// exactly when its approver said yes for that call, and never without an approver.
const step = fc.record({
  tool: fc.constantFrom("ops/deploy", "ops/delete", "info/read"),
  n: fc.integer({ min: 0, max: 1000 }),
  approve: fc.boolean(),
  invalid: fc.boolean(),
})

describe("approval property", () => {
  test.prop([fc.array(step, { maxLength: 30 }), fc.boolean()], { numRuns: 60 })(
    "an approval-required tool never executes without approval",
    async (steps, withApprover) => {
      ran.length = 0
      const decisions = new Map<number, boolean>()
      const runner = createRunner({
        backends: [definitionBackend([gatedA, gatedB, free], { approval: requires })],
        ...(withApprover
          ? { approver: approveWith((req) => decisions.get(req.arguments.n as number) === true) }
          : {}),
      })
      const expected: string[] = []
      for (const [i, s] of steps.entries()) {
        const n = i * 10_000 + s.n
        decisions.set(n, s.approve)
        const args = s.invalid ? { n: String(n) } : { n }
        const outcome = await runner.callTool({ name: s.tool, arguments: args }).then(
          () => "ok",
          (e: { _tag: string }) => e._tag,
        )
        const gated = requires(s.tool)
        if (s.invalid) expect(outcome).toBe("InvalidArguments")
        else if (!gated) expect(outcome).toBe("ok")
        else if (!withApprover) expect(outcome).toBe("ApprovalRequired")
        else expect(outcome).toBe(s.approve ? "ok" : "ApprovalDenied")
        if (outcome === "ok") expected.push(`${s.tool}:${n}`)
      }
      expect(ran).toEqual(expected)
      for (const entry of ran) {
        const [id, n] = entry.split(":") as [string, string]
        if (requires(id)) expect(withApprover && decisions.get(Number(n))).toBe(true)
      }
    },
  )
})
