import { z } from "zod"
import {
  defineBackend,
  defineTool,
  runDefinition,
  suggestToolIds,
  ToolNotFound,
  toolOf,
} from "../src/index.js"
import { backendContract } from "../src/testing/index.js"

const echo = defineTool({
  id: "demo/echo",
  input: z.object({ text: z.string() }),
  handler: ({ text }) => text,
})

backendContract(
  "a defineBackend over defineTool definitions",
  () =>
    defineBackend({
      name: "demo",
      kind: "local",
      toolSchemas: () => [toolOf(echo)],
      execute: (call, ctx) => {
        if (call.toolId !== echo.id)
          throw new ToolNotFound({ toolId: call.toolId, suggestions: suggestToolIds(call.toolId, [echo.id]) })
        return runDefinition(echo, call, ctx)
      },
      requiresApproval: () => false,
    }),
  {
    sampleCall: { toolId: "demo/echo", arguments: { text: "hi" } },
    invalidCall: { toolId: "demo/echo", arguments: { text: 1 } },
  },
)
