import { fc, test as fcTest } from "@fast-check/vitest"
import { defineTool, InvalidArguments, type ToolService, textResult } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import {
  allowedTools,
  defineGuard,
  defineSkill,
  executePlan,
  makePlanner,
  maxSteps,
  ref,
  type Skill,
  SkillPlanError,
  skillTool,
} from "../src/index.js"
import { resolveInputs } from "../src/skill/references.js"
import { bareService, recording } from "./support/bareService.js"

const known = ["web/search", "web/fetch", "text/summarize", "flaky/fail", "slow/wait"]
const planner = makePlanner({ tools: known })

const planError = (skill: Skill, p = planner): SkillPlanError => {
  try {
    p.plan(skill)
  } catch (error) {
    expect(error).toBeInstanceOf(SkillPlanError)
    return error as SkillPlanError
  }
  throw new Error("expected the planner to reject the skill")
}

const research: Skill = defineSkill({
  name: "research",
  steps: [
    {
      id: "summary",
      tool: "text/summarize",
      inputs: { text: { $ref: "page#/body" }, title: "About {{search#/items/0/title}}" },
    },
    { id: "page", tool: "web/fetch", inputs: { url: ref("search", "/items/0/url") } },
    { id: "search", tool: "web/search", inputs: { q: { $ref: "$input#/topic" } } },
  ],
})

describe("planner", () => {
  it("orders dependencies first whatever the declaration order", () => {
    const plan = planner.plan(research)
    expect(plan.order).toEqual(["search", "page", "summary"])
    expect(plan.steps[2]!.dependsOn).toEqual(["page", "search"])
    expect(Object.isFrozen(plan.steps)).toBe(true)
    expect(Object.isFrozen(plan.steps[0]!.inputs)).toBe(true)
  })

  it("breaks ties between independent steps by step id", () => {
    const plan = planner.plan({
      name: "ties",
      steps: [
        { id: "c", tool: "web/search" },
        { id: "a", tool: "web/search" },
        { id: "d", tool: "web/fetch", dependsOn: ["a"] },
        { id: "b", tool: "web/search" },
      ],
    })
    expect(plan.order).toEqual(["a", "b", "c", "d"])
  })

  it("rejects cycles, naming them", () => {
    const error = planError({
      name: "loop",
      steps: [
        { id: "a", tool: "web/search", inputs: { q: { $ref: "c#/x" } } },
        { id: "b", tool: "web/search", inputs: { q: { $ref: "a" } } },
        { id: "c", tool: "web/search", dependsOn: ["b"] },
        { id: "free", tool: "web/search" },
      ],
    })
    expect(error.reason).toBe("Cycle")
    expect(error.detail).toContain("a → c → b → a")
    expect(
      planError({ name: "self", steps: [{ id: "a", tool: "web/search", inputs: { q: "{{a#/q}}" } }] }).reason,
    ).toBe("Cycle")
  })

  it("rejects dangling references in inputs, templates and dependsOn", () => {
    const viaRef = planError({
      name: "d",
      steps: [{ id: "a", tool: "web/search", inputs: { q: { $ref: "ghost#/q" } } }],
    })
    expect(viaRef.reason).toBe("DanglingReference")
    expect(viaRef.path).toBe("steps[0].inputs.q")
    expect(viaRef.message).toContain('"ghost"')
    const viaTemplate = planError({
      name: "d",
      steps: [{ id: "a", tool: "web/search", inputs: { q: ["x", "{{nope}}"] } }],
    })
    expect(viaTemplate.path).toBe("steps[0].inputs.q[1]")
    expect(planError({ name: "d", steps: [{ id: "a", tool: "web/search", dependsOn: ["zz"] }] }).reason).toBe(
      "DanglingReference",
    )
    expect(planError({ name: "d", output: "zz", steps: [{ id: "a", tool: "web/search" }] }).reason).toBe(
      "DanglingReference",
    )
  })

  it("rejects no steps, bad ids, duplicate ids, unknown tools and malformed references", () => {
    expect(planError({ name: "e", steps: [] }).reason).toBe("NoSteps")
    expect(planError({ name: "e", steps: [{ id: "1x", tool: "web/search" }] }).reason).toBe("InvalidStep")
    expect(planError({ name: "e", steps: [{ id: "a", tool: "no-slash" }] }).path).toBe("steps[0].tool")
    const dup = planError({
      name: "e",
      steps: [
        { id: "a", tool: "web/search" },
        { id: "a", tool: "web/fetch" },
      ],
    })
    expect([dup.reason, dup.path]).toEqual(["DuplicateStepId", "steps[1].id"])
    const unknown = planError({ name: "e", steps: [{ id: "a", tool: "web/serch" }] })
    expect(unknown.reason).toBe("UnknownTool")
    expect(unknown.message).toContain('did you mean "web/search"')
    const malformed = planError({
      name: "e",
      steps: [{ id: "a", tool: "web/search", inputs: { q: { $ref: 3 } } }],
    })
    expect(malformed.reason).toBe("InvalidStep")
    expect(planError({ name: "", steps: [{ id: "a", tool: "web/search" }] }).reason).toBe("InvalidSkill")
  })

  it("applies guards after validation, in order", () => {
    const guarded = makePlanner({
      tools: known,
      guards: [
        maxSteps(2),
        allowedTools("web/*"),
        defineGuard("no-fetch", (s) =>
          s.steps.some((x) => x.tool === "web/fetch") ? "fetching is off" : undefined,
        ),
      ],
    })
    expect(planError(research, guarded).reason).toBe("MaxStepsExceeded")
    const notAllowed = planError({ name: "g", steps: [{ id: "s", tool: "text/summarize" }] }, guarded)
    expect([notAllowed.reason, notAllowed.stepId, notAllowed.toolId]).toEqual([
      "ToolNotAllowed",
      "s",
      "text/summarize",
    ])
    const custom = planError({ name: "g", steps: [{ id: "f", tool: "web/fetch" }] }, guarded)
    expect([custom.reason, custom.guard, custom.detail]).toEqual([
      "GuardRejected",
      "no-fetch",
      "fetching is off",
    ])
    // validation errors win over guards
    expect(planError({ name: "g", steps: [{ id: "x", tool: "zzz/unknown" }] }, guarded).reason).toBe(
      "UnknownTool",
    )
  })

  const dagArb = fc.integer({ min: 1, max: 12 }).chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 2 * n }),
      fc.shuffledSubarray(
        Array.from({ length: n }, (_, i) => i),
        { minLength: n, maxLength: n },
      ),
    ),
  )

  fcTest.prop([dagArb])("plans are deterministic and respect dependencies (property)", ([n, edges, perm]) => {
    // edges only go from a higher index to a lower one, so the graph is acyclic
    const deps = new Map<number, Set<number>>()
    for (const [x, y] of edges)
      if (x !== y) deps.set(Math.max(x, y), (deps.get(Math.max(x, y)) ?? new Set()).add(Math.min(x, y)))
    const stepOf = (i: number) => ({
      id: `s${String((i * 7) % n).padStart(2, "0")}_${i}`,
      tool: "web/search",
      dependsOn: [...(deps.get(i) ?? [])].map((d) => `s${String((d * 7) % n).padStart(2, "0")}_${d}`),
    })
    const inOrder = Array.from({ length: n }, (_, i) => stepOf(i))
    const a = planner.plan({ name: "p", steps: inOrder })
    const b = planner.plan({ name: "p", steps: perm.map(stepOf) })
    expect(b.order).toEqual(a.order)
    const position = new Map(a.order.map((id, i) => [id, i]))
    for (const step of a.steps)
      for (const d of step.dependsOn) expect(position.get(d)!).toBeLessThan(position.get(step.id)!)
  })
})

describe("references", () => {
  it("resolve JSON pointers, templates, $input and $literal", () => {
    const values: Record<string, unknown> = {
      s: { items: [{ url: "u0", "a/b": 1 }], n: 3 },
      $input: { topic: "ts" },
    }
    const out = resolveInputs(
      {
        url: { $ref: "s#/items/0/url" },
        slash: { $ref: "s#/items/0/a~1b" },
        whole: { $ref: "s" },
        text: "n={{s#/n}} topic={{ $input#/topic }}",
        literal: { $literal: { $ref: "s" } },
        nested: [{ v: { $ref: "$input#/topic" } }],
      },
      (source) => values[source],
    )
    expect(out).toEqual({
      url: "u0",
      slash: 1,
      whole: values.s,
      text: "n=3 topic=ts",
      literal: { $ref: "s" },
      nested: [{ v: "ts" }],
    })
  })
})

const service = () => {
  const order: string[] = []
  const definitions = [
    defineTool({
      id: "web/search",
      input: { type: "object", properties: { q: { type: "string" } } },
      handler: async ({ q }) => {
        order.push(`search:${q}`)
        return { items: [{ url: `https://example.com/${q}`, title: `T-${q}` }] }
      },
    }),
    defineTool({
      id: "web/fetch",
      input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
      handler: async ({ url }) => {
        order.push(`fetch:${url}`)
        return { body: `body of ${url}` }
      },
    }),
    defineTool({
      id: "text/summarize",
      input: { type: "object" },
      handler: async ({ text, title }) => textResult(`${title}: ${String(text).slice(0, 12)}`),
    }),
    defineTool({ id: "flaky/fail", handler: () => textResult("nope") }),
    defineTool({
      id: "slow/wait",
      input: { type: "object", properties: { ms: { type: "number" }, label: { type: "string" } } },
      handler: async ({ ms, label }) => {
        order.push(`start:${label}`)
        await new Promise((r) => setTimeout(r, Number(ms)))
        order.push(`end:${label}`)
        return { label }
      },
    }),
  ]
  return { order, service: bareService(definitions) }
}

describe("execution", () => {
  it("runs steps in plan order, feeding results forward", async () => {
    const { service: svc, order } = service()
    const run = await executePlan(planner.plan(research), svc, { input: { topic: "effect" } })
    expect(run.ok).toBe(true)
    expect(run.results.map((r) => r.stepId)).toEqual(["search", "page", "summary"])
    expect(order).toEqual(["search:effect", "fetch:https://example.com/effect"])
    expect(run.results[2]!.arguments).toEqual({
      text: "body of https://example.com/effect",
      title: "About T-effect",
    })
  })

  it("fails fast and returns the results so far with a typed error", async () => {
    const { service: svc } = service()
    const rec = recording(svc)
    const plan = planner.plan({
      name: "ff",
      steps: [
        { id: "a", tool: "web/search", inputs: { q: "x" } },
        { id: "b", tool: "web/fetch", inputs: { url: { $ref: "a#/items/7/url" } } },
        { id: "c", tool: "web/search", inputs: { q: "never" }, dependsOn: ["b"] },
        { id: "d", tool: "web/search", inputs: { q: "never" } },
      ],
    })
    expect(plan.order).toEqual(["a", "b", "c", "d"])
    const run = await executePlan(plan, rec.service)
    expect(run.ok).toBe(false)
    expect(run.results.map((r) => r.stepId)).toEqual(["a"])
    expect(run.error?._tag).toBe("SkillStepFailed")
    expect(run.error?.stepId).toBe("b")
    expect(run.error?.error).toBeInstanceOf(InvalidArguments)
    expect((run.error!.error as InvalidArguments).issues[0]!.path).toBe("/url")
    expect(rec.calls.map((c) => c.name)).toEqual(["web/search"])
  })

  it("treats an isError result and a rejected call as step failures", async () => {
    const failing: ToolService = {
      listTools: async () => ({ tools: [] }),
      callTool: async (r) =>
        r.name === "flaky/fail"
          ? { content: [{ type: "text", text: "bad" }], isError: true }
          : textResult("ok"),
    }
    const plan = planner.plan({
      name: "e",
      steps: [
        { id: "a", tool: "web/search" },
        { id: "b", tool: "flaky/fail", dependsOn: ["a"] },
      ],
    })
    const run = await executePlan(plan, failing)
    expect(run.results.map((r) => r.stepId)).toEqual(["a"])
    expect(run.error?.error._tag).toBe("ExecutionFailed")
    expect(run.error?.message).toContain('step "b"')
    const rejecting: ToolService = { ...failing, callTool: async () => Promise.reject(new Error("boom")) }
    const run2 = await executePlan(plan, rejecting)
    expect(run2.results).toEqual([])
    expect(run2.error?.error._tag).toBe("ExecutionFailed")
  })

  it("runs independent steps concurrently when asked, reporting results in plan order", async () => {
    // The order is forced with deferred promises, not timed: a_slow cannot finish before c_after has
    // (which depends on b_fast), so this run only completes when a_slow overlaps b_fast and c_after.
    const order: string[] = []
    let releaseA!: () => void
    const aReleased = new Promise<void>((r) => {
      releaseA = r
    })
    const gated = bareService([
      defineTool({
        id: "slow/wait",
        input: { type: "object", properties: { label: { type: "string" } } },
        handler: async ({ label }) => {
          order.push(`start:${label}`)
          if (label === "a") await aReleased
          order.push(`end:${label}`)
          if (label === "bc") releaseA()
          return { label }
        },
      }),
    ])
    const plan = planner.plan({
      name: "c",
      steps: [
        { id: "a_slow", tool: "slow/wait", inputs: { label: "a" } },
        { id: "b_fast", tool: "slow/wait", inputs: { label: "b" } },
        { id: "c_after", tool: "slow/wait", inputs: { label: "{{b_fast#/label}}c" } },
      ],
    })
    const run = await executePlan(plan, gated, { concurrency: 3 })
    expect(run.ok).toBe(true)
    expect(run.results.map((r) => r.stepId)).toEqual(["a_slow", "b_fast", "c_after"])
    expect(order).toEqual(["start:a", "start:b", "end:b", "start:bc", "end:bc", "end:a"])
    // sequential (the default): one step at a time, in plan order (nothing gated here)
    const { service: svc, order: sequential } = service()
    await executePlan(plan, svc)
    expect(sequential).toEqual(["start:a", "end:a", "start:b", "end:b", "start:bc", "end:bc"])
  }, 5_000)

  it("exposes a skill as a tool", async () => {
    const { service: svc } = service()
    const skill = defineSkill({
      ...research,
      inputSchema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    })
    const tool = skillTool(planner.plan(skill), svc)
    expect(tool.id).toBe("skill/research")
    const result = await tool.invoke({ topic: "ts" })
    expect(result.content[0]).toEqual({ type: "text", text: "About T-ts: body of http" })
    expect(result._meta?.["toolplane/skill"]).toEqual({
      name: "research",
      steps: ["search", "page", "summary"],
    })
    await expect(tool.invoke({})).rejects.toBeInstanceOf(InvalidArguments)
    const broken = skillTool(
      planner.plan({ name: "broken", steps: [{ id: "x", tool: "web/fetch", inputs: { url: 3 } }] }),
      () => svc,
    )
    const failed = await broken.invoke({})
    expect(failed.isError).toBe(true)
    expect(failed.structuredContent).toMatchObject({
      failedStep: "x",
      completed: [],
      error: { _tag: "InvalidArguments" },
    })
  })
})
