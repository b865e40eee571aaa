/**
 * The "bare runner" of the tests and benchmarks: a foundation ToolService over `defineTool`
 * definitions, built from foundation pieces only (compose never imports @toolplane/exec).
 */
import {
  byId,
  type CallToolRequest,
  makeCursorCodec,
  paginateTools,
  suggestToolIds,
  type ToolDefinition,
  ToolNotFound,
  type ToolResult,
  type ToolService,
  toolOf,
} from "@toolplane/foundation"

export const testCodec = makeCursorCodec({
  keys: [{ kid: "test", secret: "0123456789abcdef0123456789abcdef" }],
})

export const bareService = (
  definitions: readonly ToolDefinition<any>[],
  options: { pageSize?: number } = {},
): ToolService => {
  const sorted = [...definitions].sort(byId)
  const tools = sorted.map(toolOf)
  const byName = new Map(sorted.map((d) => [d.id, d]))
  return {
    listTools: async (request = {}) =>
      paginateTools(tools, { codec: testCodec, pageSize: options.pageSize ?? 50, cursor: request.cursor }),
    callTool: async (request): Promise<ToolResult> => {
      const definition = byName.get(request.name)
      if (!definition)
        throw new ToolNotFound({
          toolId: request.name,
          suggestions: suggestToolIds(request.name, byName.keys()),
        })
      const { continuation: _c, ...result } = await definition.invoke(
        request.arguments ?? {},
        request.context,
      )
      return result
    },
  }
}

/** Wraps a service and records every call that reaches it. */
export const recording = (
  inner: ToolService,
): { service: ToolService; calls: CallToolRequest[]; lists: number } => {
  const state = { calls: [] as CallToolRequest[], lists: 0, service: undefined as unknown as ToolService }
  state.service = {
    listTools: (request) => {
      state.lists++
      return inner.listTools(request)
    },
    callTool: (request) => {
      state.calls.push(request)
      return inner.callTool(request)
    },
  }
  return state
}
