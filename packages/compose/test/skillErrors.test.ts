/**
 * Skill errors cross a boundary as themselves: their JSON text rebuilds (through foundation's
 * `toolErrorFromJson` and the decoders compose registers) the same class with the same fields and message.
 */
import {
  ExecutionFailed,
  Timeout,
  type ToolError,
  ToolNotFound,
  toolErrorFromJson,
  toolErrorToJson,
} from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { SkillPlanError, SkillStepFailed } from "../src/index.js"

const overTheWire = (error: ToolError) =>
  toolErrorFromJson(JSON.parse(JSON.stringify(toolErrorToJson(error))))

describe("skill errors JSON round trip", () => {
  it("rebuilds a SkillPlanError with every field, and without the optional ones", () => {
    const full = new SkillPlanError({
      skill: "triage",
      reason: "GuardRejected",
      detail: "the guard said no",
      stepId: "fetch",
      toolId: "github/search_issues",
      path: "steps[1].inputs.q",
      guard: "no-writes",
    })
    const bare = new SkillPlanError({ skill: "triage", reason: "Cycle", detail: "a -> b -> a" })
    for (const original of [full, bare]) {
      const back = overTheWire(original)
      expect(back).toBeInstanceOf(SkillPlanError)
      const rebuilt = back as SkillPlanError
      expect(rebuilt.code).toBe("SKILL_PLAN_ERROR")
      expect(rebuilt.message).toBe(original.message)
      for (const key of ["skill", "reason", "detail", "stepId", "toolId", "path", "guard"] as const)
        expect(rebuilt[key]).toBe(original[key])
    }
  })

  it("rebuilds a SkillStepFailed with its step's own typed error", () => {
    const inners: ToolError[] = [
      new ToolNotFound({ toolId: "a/b", suggestions: ["a/c"] }),
      new Timeout({ toolId: "a/b", timeoutMs: 250 }),
      new ExecutionFailed({ toolId: "a/b", cause: { name: "Error", message: "boom" } }),
    ]
    for (const inner of inners) {
      const original = new SkillStepFailed({ skill: "triage", stepId: "one", toolId: "a/b", error: inner })
      const back = overTheWire(original)
      expect(back).toBeInstanceOf(SkillStepFailed)
      const rebuilt = back as SkillStepFailed
      expect(rebuilt).toMatchObject({
        skill: "triage",
        stepId: "one",
        toolId: "a/b",
        code: "SKILL_STEP_FAILED",
      })
      expect(rebuilt.error).toBeInstanceOf(inner.constructor)
      expect(rebuilt.error.message).toBe(inner.message)
      expect(rebuilt.message).toBe(original.message)
    }
  })

  it("gives undefined for malformed skill errors instead of half-built ones", () => {
    const plan = toolErrorToJson(new SkillPlanError({ skill: "s", reason: "Cycle", detail: "d" }))
    expect(toolErrorFromJson({ ...plan, reason: "Bogus" })).toBeUndefined()
    expect(toolErrorFromJson({ ...plan, stepId: 7 })).toBeUndefined()
    const step = toolErrorToJson(
      new SkillStepFailed({
        skill: "s",
        stepId: "one",
        toolId: "a/b",
        error: new ToolNotFound({ toolId: "a/b", suggestions: [] }),
      }),
    )
    expect(toolErrorFromJson({ ...step, error: { _tag: "NoSuchError" } })).toBeUndefined()
    expect(toolErrorFromJson({ ...step, stepId: undefined })).toBeUndefined()
  })
})
