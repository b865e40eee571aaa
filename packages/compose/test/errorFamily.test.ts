import { SearchError } from "@toolplane/discovery"
import {
  ExecutionFailed,
  isToolError,
  type ToolError,
  ToolNotFound,
  toToolError,
} from "@toolplane/foundation"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { SkillPlanError, SkillStepFailed } from "../src/index.js"

describe("skill and search errors are members of the ToolError family", () => {
  const plan = new SkillPlanError({ skill: "s", reason: "Cycle", detail: "a -> b -> a" })
  const step = new SkillStepFailed({
    skill: "s",
    stepId: "one",
    toolId: "a/b",
    error: new ToolNotFound({ toolId: "a/b", suggestions: [] }),
  })
  const search = new SearchError("UnknownTool", 'similar(): no tool with id "x/y"')

  it("isToolError recognises them and toToolError keeps them", () => {
    for (const error of [plan, step, search]) {
      expect(isToolError(error)).toBe(true)
      expect(toToolError(error, "x/y")).toBe(error)
      expect(error.retryable).toBe(false)
    }
    expect(search.message).toBe('similar(): no tool with id "x/y"')
    expect(search.code).toBe("UnknownTool")
    expect(search).toBeInstanceOf(Error)
  })

  it("they are in the ToolError union, so Effect.catchTag discriminates them", async () => {
    const failing = (error: ToolError): Effect.Effect<string, ToolError> => Effect.fail(error)
    const handled = await Effect.runPromise(
      Effect.all(
        [failing(plan), failing(search), failing(step)].map((effect) =>
          effect.pipe(
            Effect.catchTag("SkillPlanError", (e) => Effect.succeed(`plan: ${e.reason}`)),
            Effect.catchTag("SearchError", (e) => Effect.succeed(`search: ${e.code}`)),
            Effect.catchTag("SkillStepFailed", (e) => Effect.succeed(`step: ${e.error._tag}`)),
          ),
        ),
      ),
    )
    expect(handled).toEqual(["plan: Cycle", "search: UnknownTool", "step: ToolNotFound"])
    expect(toToolError("not an error", "x/y")).toBeInstanceOf(ExecutionFailed)
  })
})
