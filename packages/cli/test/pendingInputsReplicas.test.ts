/**
 * The multi round-trip approvals a server waits on (`McpHttpServerHandle.pendingInputs`), across two
 * replicas sharing a secret and a bus: the replica that answered `input_required` lists the request
 * (tool, arguments, the question asked, expiry); rejecting it there refuses the retry on either replica
 * (`-32602`, `data.reason: "rejected"`) and nothing runs; a retry that completes drops the entry on the
 * replica that listed it, through the used mark on the bus.
 */
import { describe, expect, it } from "vitest"
import { launches, useApprovalReplicas } from "./helpers/approvalReplicas.js"
import { modernPost } from "./helpers/modernPost.js"

const SECRET = "pending-inputs-secret-0123456789"
const accept = { approval: { action: "accept", content: { approve: true } } }
const busTurn = () => new Promise((resolve) => setTimeout(resolve, 20))

describe("pending multi round-trip approvals across replicas", () => {
  const replicas = useApprovalReplicas(SECRET)

  const ask = async (target: string) => {
    const first = await modernPost(replicas.a.url, "tools/call", {
      name: "ops.launch",
      arguments: { target },
    })
    expect(first.body.result?.resultType).toBe("input_required")
    return first.body.result!.requestState as string
  }

  it("lists what it asked; a rejection refuses the retry on every replica and nothing runs", async () => {
    const before = launches()
    const state = await ask("moon")
    const [pending, ...more] = replicas.a.pendingInputs.list()
    expect(more).toEqual([])
    expect(pending).toMatchObject({ method: "tools/call", name: "ops.launch", arguments: { target: "moon" } })
    expect(pending!.clientId).toBeUndefined()
    expect((pending!.inputRequests.approval!.params as { message: string }).message).toContain(
      '"target": "moon"',
    )
    expect(pending!.expiresAt).toBeGreaterThan(Date.now())
    expect(replicas.b.pendingInputs.list()).toEqual([])
    expect(replicas.b.pendingInputs.reject(pending!.id)).toBe(false)
    expect(replicas.a.pendingInputs.reject(pending!.id)).toBe(true)
    expect(replicas.a.pendingInputs.list()).toEqual([])
    expect(replicas.a.pendingInputs.reject(pending!.id)).toBe(false)
    await busTurn()
    for (const replica of [replicas.b, replicas.a]) {
      const retry = await modernPost(replica.url, "tools/call", {
        name: "ops.launch",
        arguments: { target: "moon" },
        inputResponses: accept,
        requestState: state,
      })
      expect(retry.body.error?.code).toBe(-32602)
      expect(retry.body.error?.data?.reason).toBe("rejected")
      expect(retry.body.error?.message).toMatch(/an operator rejected/)
    }
    expect(launches()).toBe(before)
  })

  it("a retry that completes on the other replica is no longer listed", async () => {
    const state = await ask("ceres")
    expect(replicas.a.pendingInputs.list().map((p) => p.arguments)).toEqual([{ target: "ceres" }])
    const before = launches()
    const done = await modernPost(replicas.b.url, "tools/call", {
      name: "ops.launch",
      arguments: { target: "ceres" },
      inputResponses: accept,
      requestState: state,
    })
    expect(done.body.result?.resultType).toBe("complete")
    expect(launches()).toBe(before + 1)
    await busTurn()
    expect(replicas.a.pendingInputs.list()).toEqual([])
  })
})
