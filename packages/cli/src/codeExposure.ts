/**
 * `tool_exposure = "code"`: the code-mode middleware over the default sandbox (QuickJS in worker
 * threads), with the limits of the `[code]` table. Tools whose calls go through the approver are marked
 * `@needsApproval` in the declaration (and `$search` results): whether a tool needs approval is an async
 * question to its backend while the declaration is built synchronously, so the answers are computed as
 * the tool list is listed below code mode, and kept per listed tool object (a changed tool list lists
 * new objects and drops the answers).
 */
import { codeMode, type ToolListChanges } from "@toolplane/compose"
import { codeExecutor } from "@toolplane/exec"
import type { Middleware, Tool, ToolService } from "@toolplane/foundation"
import { quickJsSandbox } from "@toolplane/plugin-sandbox-quickjs"
import type { z } from "zod"
import type { CodeConfig } from "./config/schema.js"

/** What the code-mode layer needs from the gateway. */
export interface CodeModeExposureOptions {
  /** Whether a call of the tool (as the layer below code mode lists it) may wait for or lack approval. */
  readonly needsApproval?: (toolId: string) => Promise<boolean>
  /** Tool-list changes: the approval answers are dropped at once. */
  readonly changes?: ToolListChanges
}

/** The code-mode layer and the sandbox behind it (closed with the gateway). */
export const codeModeExposure = (
  config: z.infer<typeof CodeConfig>,
  options: CodeModeExposureOptions = {},
): { readonly middleware: Middleware; readonly close: () => Promise<void> } => {
  const memoryBytes = config.memory_mb * 2 ** 20
  const sandbox = quickJsSandbox({
    maxWorkers: config.max_programs,
    warmWorkers: 1,
    maxMemoryBytes: memoryBytes,
    // Fairness: each caller's programs run up to its cap and wait in its own queue; free workers go
    // round-robin over the callers, and time waiting counts against `timeout_ms`.
    ...(config.max_programs_per_caller !== undefined
      ? { maxRunsPerCaller: config.max_programs_per_caller }
      : {}),
    maxQueuedPerCaller: config.max_queued_per_caller,
  })
  const ask = options.needsApproval
  // Answers by listed tool object: the declaration is built from exactly the objects listed below.
  let marks = new WeakMap<Tool, boolean>()
  options.changes?.(() => {
    marks = new WeakMap()
  })
  const executor = codeExecutor({
    sandbox,
    limits: {
      wallTimeMs: config.timeout_ms,
      memoryBytes,
      maxHostCalls: config.max_tool_calls,
      maxOutputBytes: config.max_output_bytes,
      maxArgumentBytes: config.max_argument_bytes,
      ...(config.cpu_time_ms !== undefined ? { cpuTimeMs: config.cpu_time_ms } : {}),
    },
    needsApproval: (tool) => marks.get(tool) === true,
  })
  /** The service below code mode, answering the approval question of every tool it lists first. */
  const marking = (next: ToolService): ToolService =>
    ask === undefined
      ? next
      : {
          listTools: async (request) => {
            const page = await next.listTools(request)
            await Promise.all(
              page.tools.map(async (tool) => {
                if (marks.has(tool)) return
                const needed = await ask(tool.id).catch(() => true)
                marks.set(tool, needed)
              }),
            )
            return page
          },
          callTool: (request) => next.callTool(request),
        }
  // The gateway's search-mode slot applies this layer afresh after every tool-list change, so code mode
  // itself needs no `changes` (each application would subscribe once more).
  const code = codeMode({ executor })
  return { middleware: (next) => code(marking(next)), close: () => sandbox.close() }
}
