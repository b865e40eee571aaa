/**
 * `tool_exposure = "code"`: the code-mode middleware over the default sandbox (QuickJS in worker
 * threads), with the limits of the `[code]` table.
 */
import { codeMode } from "@toolplane/compose"
import { codeExecutor } from "@toolplane/exec"
import type { Middleware } from "@toolplane/foundation"
import { quickJsSandbox } from "@toolplane/plugin-sandbox-quickjs"
import type { z } from "zod"
import type { CodeConfig } from "./config/schema.js"

/** The code-mode layer and the sandbox behind it (closed with the gateway). */
export const codeModeExposure = (
  config: z.infer<typeof CodeConfig>,
): { readonly middleware: Middleware; readonly close: () => Promise<void> } => {
  const memoryBytes = config.memory_mb * 2 ** 20
  const sandbox = quickJsSandbox({
    maxWorkers: config.max_programs,
    warmWorkers: 1,
    maxMemoryBytes: memoryBytes,
  })
  const executor = codeExecutor({
    sandbox,
    limits: {
      wallTimeMs: config.timeout_ms,
      memoryBytes,
      maxHostCalls: config.max_tool_calls,
      maxOutputBytes: config.max_output_bytes,
      ...(config.cpu_time_ms !== undefined ? { cpuTimeMs: config.cpu_time_ms } : {}),
    },
  })
  return { middleware: codeMode({ executor }), close: () => sandbox.close() }
}
