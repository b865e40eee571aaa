/**
 * The code executor (exec) over the QuickJS sandbox and a real runner: calls go through the runner's
 * pipeline, errors keep their codes inside the program, approval is never bypassed, limits fire with
 * their typed errors while other calls are served.
 */
import { fc, test as fcTest } from "@fast-check/vitest"
import { approveWith, codeExecutor, createRunner } from "@toolplane/exec"
import {
  type Backend,
  defineTool,
  SandboxError,
  SandboxLimit,
  SandboxMemory,
  SandboxTimeout,
  type ToolDefinition,
} from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { quickJsSandbox } from "../src/index.js"

const backend = (
  name: string,
  defs: readonly ToolDefinition<any>[],
  approval: (id: string) => boolean = () => false,
): Backend => definitionBackend(defs, { name, approval })

const executed: string[] = []
const issues = defineTool({
  id: "github/search_issues",
  description: "Search issues by query. Returns matching issue titles.",
  input: z.object({ q: z.string(), limit: z.number().int().positive().optional() }),
  output: z.object({ items: z.array(z.object({ id: z.number(), title: z.string() })) }),
  handler: ({ q, limit }) => {
    executed.push(`search:${q}`)
    return { items: [1, 2, 3].slice(0, limit ?? 3).map((id) => ({ id, title: `${q} #${id}` })) }
  },
})
const weather = defineTool({
  id: "weather/forecast",
  description: "Forecast for a city.",
  input: z.object({ city: z.string() }),
  handler: ({ city }) => `sunny in ${city}`,
})
const deploy = defineTool({
  id: "ops/deploy",
  description: "Deploy a build (needs approval).",
  input: z.object({ n: z.number() }),
  handler: ({ n }) => {
    executed.push(`deploy:${n}`)
    return `deployed ${n}`
  },
})

const sandbox = quickJsSandbox({ maxWorkers: 2 })
const executor = codeExecutor({ sandbox, limits: { wallTimeMs: 3000 } })
// A program's wall-clock budget counts from its request, a worker's cold start included: the timing
// tests below start on warm workers.
beforeAll(() => Promise.all([sandbox.run({ code: "return 1" }), sandbox.run({ code: "return 2" })]))
afterAll(() => sandbox.close())

const gated = (id: string) => id.startsWith("ops/")

describe("code executor", () => {
  const runner = createRunner({
    backends: [backend("gh", [issues, deploy], gated), backend("wx", [weather])],
    approver: approveWith(
      (req) => (req.arguments as { n: number }).n % 2 === 0 || { approved: false, reason: "odd" },
    ),
  })

  it("calls tools on two backends through the runner and returns result and logs", async () => {
    executed.length = 0
    const run = await executor.execute(
      `const { items } = await tools.github.search_issues({ q: "crash", limit: 2 })
       const w = await tools.weather.forecast({ city: "Oslo" })
       console.log("found", items.length)
       return { titles: items.map((i) => i.title), w }`,
      { tools: runner },
    )
    expect(run.result).toEqual({ titles: ["crash #1", "crash #2"], w: "sunny in Oslo" })
    expect(run.logs).toEqual(["found 2"])
    expect(run.toolCalls).toBe(2)
    expect(executed).toEqual(["search:crash"])
  })

  it("gives tool errors to the program with the codes they have outside", async () => {
    const run = await executor.execute(
      `const codes = []
       for (const f of [
         () => tools.github.search_issues({ q: 1 }),
         () => tools.github.nope({}),
         () => tools.ops.deploy({ n: 1 }),
       ]) { try { await f(); codes.push("ran") } catch (e) { codes.push(e.code + ":" + e._tag) } }
       codes.push(await tools.ops.deploy({ n: 2 }))
       return codes`,
      { tools: runner },
    )
    expect(run.result).toEqual([
      "INVALID_ARGUMENTS:InvalidArguments",
      "TOOL_NOT_FOUND:ToolNotFound",
      "APPROVAL_DENIED:ApprovalDenied",
      "deployed 2",
    ])
    const outside = await runner.callTool({ name: "ops/deploy", arguments: { n: 1 } }).catch((e) => e.code)
    expect(outside).toBe("APPROVAL_DENIED")
  })

  it("fails an approval-required call without an approver with APPROVAL_REQUIRED", async () => {
    const bare = createRunner({ backends: [backend("gh", [deploy], gated)] })
    executed.length = 0
    const run = await executor.execute(
      "try { await tools.ops.deploy({ n: 2 }) } catch (e) { return e.code }",
      { tools: bare },
    )
    expect(run.result).toBe("APPROVAL_REQUIRED")
    expect(executed).toEqual([])
  })

  it("finds tools with tools.$search and declares the toolset", async () => {
    const run = await executor.execute(
      `const found = await tools.$search("forecast city weather", 1)
       return found`,
      { tools: runner },
    )
    expect(run.result).toEqual([
      {
        id: "weather/forecast",
        call: "tools.weather.forecast",
        declaration: "/** Forecast for a city. */ forecast(args: { city: string }): Promise<string>",
      },
    ])
    const decl = executor.declare(await runner.listTools().then((p) => p.tools))
    expect(decl.complete).toBe(true)
    expect(decl.text).toContain(
      "search_issues(args: { q: string; limit?: number }): Promise<{ items: { id: number; title: string }[] }>",
    )
    const small = codeExecutor({ sandbox, maxDeclarationChars: 600 }).declare(
      await runner.listTools().then((p) => p.tools),
    )
    expect(small.complete).toBe(false)
    expect(small.text).toContain("$search(query: string")
    expect(small.text).toContain("github (1), ops (1), weather (1)")
  })

  it("marks the tools that need approval in the declaration and in $search results", async () => {
    const tools = await runner.listTools().then((p) => p.tools)
    const marking = codeExecutor({ sandbox, needsApproval: (tool) => gated(tool.id) })
    const decl = marking.declare(tools)
    const lines = decl.text.split("\n")
    const deployLine = lines.find((l) => l.includes(" deploy(args"))
    expect(deployLine).toBe(
      "    /** Deploy a build (needs approval). @needsApproval */ deploy(args: { n: number }): Promise<string>",
    )
    // Only the gated tool carries the tag; the header explains it once.
    expect(lines.filter((l) => l.includes("*/ ") && l.includes("@needsApproval"))).toEqual([deployLine])
    expect(lines.filter((l) => l.startsWith("//") && l.includes("@needsApproval"))).toHaveLength(1)
    // Without the option nothing is marked and the header line is absent.
    expect(executor.declare(tools).text).not.toContain("@needsApproval")
    // The fallback for large toolsets explains the tag too, and $search results carry it.
    expect(
      codeExecutor({ sandbox, maxDeclarationChars: 600, needsApproval: () => true }).declare(tools).text,
    ).toContain("@needsApproval")
    const run = await marking.execute(`return await tools.$search("deploy a build", 1)`, { tools: runner })
    expect((run.result as { declaration: string }[])[0]!.declaration).toBe(
      "/** Deploy a build (needs approval). @needsApproval */ deploy(args: { n: number }): Promise<string>",
    )
  })

  it("gives the program a tools object that is not thenable and keeps one function per tool", async () => {
    const run = await executor.execute(
      "const f = tools.weather.forecast; const ns = await tools.weather; " +
        "return [f === tools.weather.forecast, ns === tools.weather, typeof tools.then, typeof tools.weather.then, " +
        "typeof tools.$search, typeof tools[Symbol.iterator], await f({ city: 'Oslo' }), " +
        "await tools.nope.missing({}).catch((e) => e.code)]",
      { tools: runner },
    )
    expect(run.result).toEqual([
      true,
      true,
      "undefined",
      "undefined",
      "function",
      "undefined",
      "sunny in Oslo",
      "TOOL_NOT_FOUND",
    ])
  })

  it("stops at the caller's deadline", async () => {
    await expect(
      executor.execute("for (;;) {}", { tools: runner, context: { timeoutMs: 200 } }),
    ).rejects.toBeInstanceOf(SandboxTimeout)
  })

  it("fires each limit with its typed error while other calls keep being served", async () => {
    const limited = codeExecutor({
      sandbox,
      limits: { wallTimeMs: 1500, maxHostCalls: 3, maxOutputBytes: 2000, memoryBytes: 32 * 2 ** 20 },
    })
    // Quick failures first: the programs share two workers, and time waiting for one counts against
    // each program's wall-clock budget.
    const hostile = [
      ["null.boom", SandboxError],
      ["return 'x'.repeat(5000)", SandboxLimit],
      ["for (let i = 0; i < 10; i++) await tools.weather.forecast({ city: 'x' })", SandboxLimit],
      ["const k = []; for (;;) k.push(new Uint8Array(1 << 20))", SandboxMemory],
      ["for (;;) {}", SandboxTimeout],
    ] as const
    const failures = Promise.all(
      hostile.map(([code]) =>
        limited.execute(code, { tools: runner }).then(
          () => undefined,
          (e: unknown) => e,
        ),
      ),
    )
    const served: unknown[] = []
    for (let i = 0; i < 20; i++)
      served.push((await runner.callTool({ name: "weather/forecast", arguments: { city: `c${i}` } })).content)
    const errors = await failures
    for (const [i, [code, type]] of hostile.entries()) expect(errors[i], code).toBeInstanceOf(type)
    expect(served).toHaveLength(20)
    const after = await executor.execute("return await tools.weather.forecast({ city: 'Rome' })", {
      tools: runner,
    })
    expect(after.result).toBe("sunny in Rome")
  })
})

describe("cancellation of tool calls in flight", () => {
  // Each call records its signal's state when the call ends: "aborted" once its signal aborted.
  const ends: string[] = []
  const waiting = defineTool({
    id: "slow/wait",
    description: "Waits until its call is aborted (or 10 s).",
    input: z.object({ tag: z.string() }),
    handler: ({ tag }, ctx) =>
      new Promise<string>((resolve) => {
        const timer = setTimeout(() => {
          ends.push(`${tag}:timeout`)
          resolve("late")
        }, 10_000)
        ctx.signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer)
            ends.push(`${tag}:aborted`)
            resolve("aborted")
          },
          { once: true },
        )
      }),
  })
  const quick = defineTool({
    id: "slow/quick",
    input: z.object({ n: z.number() }),
    handler: ({ n }, ctx) => ({ n, aborted: ctx.signal.aborted }),
  })
  const runner = createRunner({ backends: [backend("slow", [waiting, quick])] })
  const until = async (what: () => boolean) => {
    for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 10))
  }

  it("aborts the calls in flight when the caller cancels the run, and not before", async () => {
    const controller = new AbortController()
    const run = executor.execute(
      "const a = await tools.slow.quick({ n: 1 }); const b = await tools.slow.quick({ n: 2 }); " +
        "await Promise.all([tools.slow.wait({ tag: 'c1' }), tools.slow.wait({ tag: 'c2' })])",
      { tools: runner, context: { signal: controller.signal } },
    )
    const settled = run.then(
      () => undefined,
      (e: unknown) => e,
    )
    await new Promise((r) => setTimeout(r, 150))
    expect(ends.filter((e) => e.startsWith("c"))).toEqual([])
    controller.abort()
    expect(await settled).toMatchObject({ code: "CANCELLED" })
    await until(() => ends.filter((e) => e.startsWith("c")).length === 2)
    expect(ends.filter((e) => e.startsWith("c")).sort()).toEqual(["c1:aborted", "c2:aborted"])
  })

  it("aborts the calls still in flight when the run ends (timeout), and the next run's calls are live", async () => {
    const short = codeExecutor({ sandbox, limits: { wallTimeMs: 300 } })
    // The cancelled run before retired its worker: wait for both workers (the budget counts a cold start).
    await Promise.all([sandbox.run({ code: "return 1" }), sandbox.run({ code: "return 2" })])
    await expect(
      short.execute("await tools.slow.wait({ tag: 't1' })", { tools: runner }),
    ).rejects.toBeInstanceOf(SandboxTimeout)
    await until(() => ends.includes("t1:aborted"))
    expect(ends).toContain("t1:aborted")
    const next = await short.execute(
      "const r = []; for (let n = 0; n < 3; n++) r.push(await tools.slow.quick({ n })); return r",
      { tools: runner },
    )
    expect(next.result).toEqual([0, 1, 2].map((n) => ({ n, aborted: false })))
  })
})

describe("approval inside programs (property)", () => {
  const statement = fc.oneof(
    fc.constant("await tools.ops.deploy({ n: N })"),
    fc.constant("try { await tools.ops.deploy({ n: N }) } catch (e) { console.log(e.code) }"),
    fc.constant('try { await tools["ops"]["deploy"]({ n: N }) } catch (e) {}'),
    fc.constant("try { const f = tools.ops.deploy; await f({ n: N }) } catch (e) {}"),
    fc.constant("try { await __tool('ops/deploy', { n: N }) } catch (e) {}"),
    fc.constant(
      "await Promise.allSettled([tools.ops.deploy({ n: N }), tools.weather.forecast({ city: 'a' })])",
    ),
    fc.constant(
      "try { const [hit] = await tools.$search('deploy a build', 1); await eval(hit.call)({ n: N }) } catch (e) {}",
    ),
    fc.constant("try { await tools.ops.deploy({ n: N, extra: true }) } catch (e) {}"),
    fc.constant("tools.ops.deploy({ n: N }).catch(() => {})"),
  )

  fcTest.prop(
    [
      fc.array(statement, { minLength: 1, maxLength: 6 }),
      fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    ],
    {
      numRuns: 25,
    },
  )("a program never runs an approval-required tool without approval", async (statements, decisions) => {
    executed.length = 0
    const approved = new Set<number>()
    const runner = createRunner({
      backends: [backend("gh", [deploy], gated), backend("wx", [weather])],
      approver: approveWith((req) => {
        const n = (req.arguments as { n: number }).n
        const yes = decisions[n % decisions.length] === true
        if (yes) approved.add(n)
        return yes
      }),
    })
    const code = statements.map((s, i) => s.replace("N", String(i))).join("\n")
    await executor.execute(code, { tools: runner }).catch(() => undefined)
    const ran = executed.filter((e) => e.startsWith("deploy:")).map((e) => Number(e.slice(7)))
    for (const n of ran) expect(approved.has(n), `deploy ${n} ran without approval`).toBe(true)
  })
})
