/**
 * `[code]` fairness through the gateway (openGateway in process, `tool_exposure = "code"`): one caller's
 * runaway programs do not hold another caller's short program, a caller past `max_queued_per_caller` is
 * refused at once, and `max_argument_bytes` caps one tool call's arguments inside a program.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseConfig } from "../src/config/load.js"
import { type Gateway, openGateway } from "../src/gateway.js"
import { FIXTURES } from "./helpers/processes.js"

const CONFIG = `
tool_exposure = "code"

[code]
timeout_ms = 2500
max_programs = 2
max_queued_per_caller = 2
max_argument_bytes = 2000

[[backends]]
name = "local"
module = "./e2eTools.ts"
`

const settle = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error: error as { code?: string; limit?: string } }),
  )

describe("[code] fairness and argument cap through the gateway", () => {
  let gateway: Gateway
  const execute = (code: string, callerId: string) =>
    gateway.service.callTool({ name: "toolplane/execute_code", arguments: { code }, context: { callerId } })

  beforeAll(async () => {
    gateway = await openGateway(parseConfig(CONFIG), {
      baseDir: FIXTURES,
      env: { TOOLPLANE_CURSOR_SECRET: "code-fairness-secret-0123456789" },
    })
    // Both workers started (a program's budget counts a cold start).
    await Promise.all([execute("return 0", "warm-a"), execute("return 0", "warm-b")])
  }, 30_000)
  afterAll(async () => {
    await gateway?.close()
  })

  it("serves another token's program at once while one token floods code mode with runaways", async () => {
    const flood = Array.from({ length: 5 }, () => settle(execute("for (;;) {}", "greedy")))
    await new Promise((r) => setTimeout(r, 50))
    const started = performance.now()
    const other = await execute("return 1 + 1", "other")
    const waited = performance.now() - started
    expect(other.structuredContent).toMatchObject({ result: 2 })
    expect(waited).toBeLessThan(1000)
    const outcomes = await Promise.all(flood)
    // One running and two queued (they time out), the other two refused at once.
    expect(outcomes.map((o) => (o.ok ? "ran" : o.error.code)).sort()).toEqual([
      "SANDBOX_LIMIT",
      "SANDBOX_LIMIT",
      "SANDBOX_TIMEOUT",
      "SANDBOX_TIMEOUT",
      "SANDBOX_TIMEOUT",
    ])
    expect(
      outcomes
        .filter((o) => !o.ok && o.error.code === "SANDBOX_LIMIT")
        .map((o) => (o as { error: { limit?: string } }).error.limit),
    ).toEqual(["queue", "queue"])
  })

  it("caps one tool call's arguments at max_argument_bytes", async () => {
    const small = await execute("return await tools.notes.echo({ message: 'x'.repeat(100) })", "args")
    expect(JSON.stringify(small.structuredContent)).toContain("notes echo: xxx")
    const big = await settle(execute("return await tools.notes.echo({ message: 'x'.repeat(3000) })", "args"))
    expect(big.ok).toBe(false)
    expect((big as { error: { code?: string; limit?: string } }).error).toMatchObject({
      code: "SANDBOX_LIMIT",
      limit: "arguments",
    })
  })
})
