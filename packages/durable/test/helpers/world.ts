/** The in-process world of the runner tests: counting tools behind a real runner, a three-step skill, storages. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defineSkill } from "@toolplane/compose"
import { createRunner } from "@toolplane/exec"
import { defineTool, type ToolAnnotations } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { afterEach, expect } from "vitest"
import type { DurableRunner } from "../../src/index.js"

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
export const runFile = async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolplane-durable-"))
  dirs.push(dir)
  return join(dir, "runs.db")
}

/** Polls `recover()` until the runner took a run over (the engine hands it the dead runner's shards). */
export const recoverOne = async (durable: DurableRunner) => {
  const deadline = Date.now() + 20_000
  let recovered = await durable.recover()
  while (recovered.length === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50))
    recovered = await durable.recover()
  }
  expect(recovered).toHaveLength(1)
  return recovered[0]!
}

export const world = (options: { hang?: string; until?: Promise<void> } = {}) => {
  const calls: string[] = []
  const tool = (id: string, annotations: ToolAnnotations) =>
    defineTool({
      id,
      input: {
        type: "object",
        properties: { value: { type: "number", maximum: 100 } },
        required: ["value"],
        additionalProperties: false,
      },
      annotations,
      handler: async (args: Record<string, unknown>) => {
        calls.push(id)
        if (options.hang === id) await (options.until ?? new Promise(() => {}))
        return { value: (args.value as number) + 1 }
      },
    })
  const runner = createRunner({
    backends: [
      definitionBackend(
        [
          tool("t/read", { readOnlyHint: true }),
          tool("t/write", { destructiveHint: true }),
          tool("t/upsert", { idempotentHint: true }),
        ],
        { name: "t" },
      ),
    ],
  })
  return { calls, runner }
}

export const skill = defineSkill({
  name: "chain",
  steps: [
    { id: "a", tool: "t/read", inputs: { value: { $ref: "$input#/start" } } },
    { id: "b", tool: "t/write", inputs: { value: { $ref: "a#/value" } } },
    { id: "c", tool: "t/read", inputs: { value: { $ref: "b#/value" } } },
  ],
})
