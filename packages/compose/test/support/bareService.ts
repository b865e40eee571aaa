/**
 * The "bare runner" of the tests and benchmarks: a foundation ToolService over `defineTool`
 * definitions, built from foundation pieces only (compose never imports @toolplane/exec).
 */
import {
  type CallToolRequest,
  makeCursorCodec,
  type ToolDefinition,
  type ToolService,
} from "@toolplane/foundation"
import { definitionService } from "@toolplane/foundation/testing"

export const testCodec = makeCursorCodec({
  keys: [{ kid: "test", secret: "0123456789abcdef0123456789abcdef" }],
})

export const bareService = (
  definitions: readonly ToolDefinition<any>[],
  options: { pageSize?: number } = {},
): ToolService => definitionService(definitions, { codec: testCodec, pageSize: options.pageSize ?? 50 })

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
