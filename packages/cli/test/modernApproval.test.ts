/**
 * Approval through the user for 2026-07-28 (stateless) clients: a gateway whose tool needs approval
 * (`approval = "elicit"`) answers the call with `InputRequiredResult` (the input `approval`, an
 * elicitation showing tool, backend and arguments, and a signed `requestState`); the client's retry with
 * an accepting answer runs the tool once, on either of two replicas that share the secret and a bus.
 * A decline runs nothing; a replay of a used state, a state for other arguments and answers without a
 * state run nothing; a client without elicitation gets `-32021`.
 */
import { serveHttp } from "@toolplane/plugin-mcp"
import { describe, expect, it } from "vitest"
import { launches, useApprovalReplicas } from "./helpers/approvalReplicas.js"
import { modernPost } from "./helpers/modernPost.js"

const SECRET = "modern-approval-secret-0123456789"

describe("approval through the user for stateless clients (multi round-trip)", () => {
  const replicas = useApprovalReplicas(SECRET)

  const ask = async (target: string) => {
    const before = launches()
    const first = await modernPost(replicas.a.url, "tools/call", {
      name: "ops.launch",
      arguments: { target },
    })
    expect(first.status).toBe(200)
    const result = first.body.result!
    expect(result.resultType).toBe("input_required")
    const request = (result.inputRequests as Record<string, { method: string; params: { message: string } }>)
      .approval!
    expect(request.method).toBe("elicitation/create")
    expect(request.params.message).toMatch(/"ops\/launch" \(backend "ops"\)/)
    expect(request.params.message).toContain(`"target": "${target}"`)
    expect(JSON.stringify(request.params)).not.toContain("toolplane.dev/inputKey")
    expect(typeof result.requestState).toBe("string")
    expect(launches()).toBe(before)
    return result.requestState as string
  }

  it("an accepting retry on the other replica runs the tool once; replaying the state runs nothing", async () => {
    const state = await ask("moon")
    const before = launches()
    const done = await modernPost(replicas.b.url, "tools/call", {
      name: "ops.launch",
      arguments: { target: "moon" },
      inputResponses: { approval: { action: "accept", content: { approve: true } } },
      requestState: state,
    })
    expect(done.body.result?.resultType).toBe("complete")
    expect(done.body.result?.content).toEqual([{ type: "text", text: "launched moon" }])
    expect(launches()).toBe(before + 1)
    // the used mark reaches the other replica over the bus
    await new Promise((resolve) => setTimeout(resolve, 20))
    for (const replica of [replicas.a, replicas.b]) {
      const replay = await modernPost(replica.url, "tools/call", {
        name: "ops.launch",
        arguments: { target: "moon" },
        inputResponses: { approval: { action: "accept", content: { approve: true } } },
        requestState: state,
      })
      expect(replay.body.error?.code).toBe(-32602)
      expect(replay.body.error?.data?.reason).toBe("replayed")
    }
    expect(launches()).toBe(before + 1)
  })

  it("the replica that asked is gone: the retry completes on another one", async () => {
    const asking = await serveHttp(replicas.gateway.service, { sessionSecret: SECRET })
    const first = await modernPost(asking.url, "tools/call", {
      name: "ops.launch",
      arguments: { target: "ceres" },
    })
    const state = first.body.result?.requestState as string
    expect(first.body.result?.resultType).toBe("input_required")
    await asking.close()
    const before = launches()
    const done = await modernPost(replicas.b.url, "tools/call", {
      name: "ops.launch",
      arguments: { target: "ceres" },
      inputResponses: { approval: { action: "accept", content: { approve: true } } },
      requestState: state,
    })
    expect(done.body.result?.content).toEqual([{ type: "text", text: "launched ceres" }])
    expect(launches()).toBe(before + 1)
  })

  it("a decline runs nothing (ApprovalDenied)", async () => {
    const state = await ask("mars")
    const before = launches()
    const done = await modernPost(replicas.b.url, "tools/call", {
      name: "ops.launch",
      arguments: { target: "mars" },
      inputResponses: { approval: { action: "decline" } },
      requestState: state,
    })
    const meta = done.body.result?._meta as Record<string, { _tag?: string }>
    expect(done.body.result?.isError).toBe(true)
    expect(meta["toolplane.dev/error"]?._tag).toBe("ApprovalDenied")
    expect(launches()).toBe(before)
  })

  it("a state for other arguments, or answers without a state, run nothing", async () => {
    const state = await ask("venus")
    const before = launches()
    const other = await modernPost(replicas.a.url, "tools/call", {
      name: "ops.launch",
      arguments: { target: "earth" },
      inputResponses: { approval: { action: "accept", content: { approve: true } } },
      requestState: state,
    })
    expect(other.body.error?.data?.reason).toBe("arguments")
    const unsigned = await modernPost(replicas.a.url, "tools/call", {
      name: "ops.launch",
      arguments: { target: "venus" },
      inputResponses: { approval: { action: "accept", content: { approve: true } } },
    })
    expect(unsigned.body.result?.resultType).toBe("input_required")
    expect(launches()).toBe(before)
  })

  it("a client without the elicitation capability gets -32021 naming it, and nothing runs", async () => {
    const before = launches()
    const answer = await modernPost(
      replicas.a.url,
      "tools/call",
      { name: "ops.launch", arguments: { target: "pluto" } },
      { capabilities: {} },
    )
    expect(answer.status).toBe(400)
    expect(answer.body.error?.code).toBe(-32021)
    expect(answer.body.error?.data?.requiredCapabilities).toEqual({ elicitation: {} })
    expect(launches()).toBe(before)
  })
})
