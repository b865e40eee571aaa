import { defineTool } from "@toolplane/foundation"
import { backendContract } from "@toolplane/foundation/testing"
import { z } from "zod"
import { localBackend, subprocessBackend, subprocessTool } from "../src/index.js"

const echo = defineTool({
  id: "demo/echo",
  input: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  handler: ({ text }) => text,
})

backendContract("localBackend", () => localBackend([echo]), {
  sampleCall: { toolId: "demo/echo", arguments: { text: "hi" } },
  invalidCall: { toolId: "demo/echo", arguments: { text: 1 } },
})

const nodeEcho = subprocessTool({
  id: "proc/echo",
  input: z.object({ text: z.string() }),
  command: process.execPath,
  args: ({ text }) => ["-e", "process.stdout.write(process.argv[1])", text],
  annotations: { readOnlyHint: true },
  timeoutMs: 10_000,
})

backendContract("subprocessBackend", () => subprocessBackend([nodeEcho]), {
  sampleCall: { toolId: "proc/echo", arguments: { text: "hi" } },
  invalidCall: { toolId: "proc/echo", arguments: { text: 1 } },
})
