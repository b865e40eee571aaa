// The gateway both multi round-trip approval suites start: one backend (`approvalTools.ts`) whose tools
// need approval through the user (`approval = "elicit"`), served by two HTTP replicas that share a
// secret and an in-memory bus.
import { type McpHttpServerHandle, memoryReplicaBus, serveHttp } from "@toolplane/plugin-mcp"
import { afterAll, beforeAll } from "vitest"
import { parseConfig } from "../../src/config/load.js"
import { type Gateway, openGateway } from "../../src/gateway.js"
import { FIXTURES } from "./processes.js"

/** How many times `approvalTools.ts`'s `launch` has run in this process. */
export const launches = () => (globalThis as { __toolplaneLaunches?: number }).__toolplaneLaunches ?? 0

export interface ApprovalReplicas {
  readonly gateway: Gateway
  readonly a: McpHttpServerHandle
  readonly b: McpHttpServerHandle
}

/** Opens the gateway and its two replicas before the file's tests and closes them after. */
export const useApprovalReplicas = (secret: string): ApprovalReplicas => {
  const state: { gateway?: Gateway; a?: McpHttpServerHandle; b?: McpHttpServerHandle } = {}
  beforeAll(async () => {
    state.gateway = await openGateway(
      parseConfig(
        [
          "[[backends]]",
          'name = "ops"',
          'module = "./approvalTools.ts"',
          "require_approval = true",
          'approval = "elicit"',
          "",
        ].join("\n"),
      ),
      { baseDir: FIXTURES, env: { TOOLPLANE_CURSOR_SECRET: secret } },
    )
    const bus = memoryReplicaBus()
    state.a = await serveHttp(state.gateway.service, { sessionSecret: secret, bus })
    state.b = await serveHttp(state.gateway.service, { sessionSecret: secret, bus })
  }, 30_000)
  afterAll(async () => {
    await state.a?.close()
    await state.b?.close()
    await state.gateway?.close()
  })
  return {
    get gateway() {
      return state.gateway!
    },
    get a() {
      return state.a!
    },
    get b() {
      return state.b!
    },
  }
}
