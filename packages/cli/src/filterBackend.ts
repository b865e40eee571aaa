/**
 * Per-backend filters: a backend that serves only the tools a predicate admits. Hidden tools are absent
 * from its listing and calling one is `ToolNotFound`, exactly as if the backend did not have it.
 *
 * @since 0.1.0
 */
import { type Backend, type Tool, ToolNotFound } from "@toolplane/foundation"

/**
 * Wraps `backend` so that only tools admitted by `admits` are listed and callable.
 *
 * @since 0.1.0
 */
export const filterBackend = (backend: Backend, admits: (tool: Tool) => boolean): Backend => {
  let visible: Set<string> | undefined
  const toolSchemas = async () => {
    const tools = (await backend.toolSchemas()).filter(admits)
    visible = new Set(tools.map((t) => t.id))
    return tools
  }
  return {
    ...backend,
    name: backend.name,
    toolSchemas,
    supportedTools: async () => (await toolSchemas()).map((t) => t.id),
    async execute(call, ctx) {
      if (!visible) await toolSchemas()
      if (!visible!.has(call.toolId)) throw new ToolNotFound({ toolId: call.toolId, suggestions: [] })
      return backend.execute(call, ctx)
    },
    metadata: () => backend.metadata(),
    healthCheck: () => backend.healthCheck(),
    requiresApproval: (id) => backend.requiresApproval(id),
    onToolsChanged: (listener) =>
      backend.onToolsChanged(() => {
        visible = undefined
        listener()
      }),
    close: () => backend.close(),
  }
}
