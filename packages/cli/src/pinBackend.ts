/**
 * Pinned tool definitions on a backend: a backend that serves only the tools its {@link PinStore} lets
 * through under the backend's policy. A withheld tool is absent from the listing and calling it is
 * `ToolNotFound`, exactly as if the backend did not have it; the operator's log names the change.
 *
 * @since 0.1.0
 */
import { type Backend, type BackendCall, type ExecutionContext, ToolNotFound } from "@toolplane/foundation"
import type { BackendConfig } from "./config/schema.js"
import type { PinPolicy, PinStore } from "./pinStore.js"

/**
 * A backend's pin policy: its `pin`, else `"warn"` for an MCP server (third-party code whose
 * definitions can change under a running gateway) and `"off"` for a module (the operator's own code,
 * reviewed as code).
 *
 * @since 0.1.0
 */
export const backendPinPolicy = (config: BackendConfig): PinPolicy =>
  config.pin ?? (config.mcp !== undefined ? "warn" : "off")

/**
 * Wraps `backend` so that its tools are checked against `store` under `policy` whenever they are listed
 * (at start, after the backend's `list_changed` or a reconnect, after a reload) and a call reaches only a
 * tool the last check let through. `"off"` returns the backend itself.
 *
 * @since 0.1.0
 */
export const pinBackend = (backend: Backend, policy: PinPolicy, store: PinStore): Backend => {
  if (policy === "off") return backend
  /** The ids served by the last review, and the pins' version it was made against. */
  let reviewed: { readonly served: ReadonlySet<string>; readonly version: number } | undefined
  const toolSchemas = async () => {
    const served = store.review(backend.name, policy, await backend.toolSchemas())
    reviewed = { served: new Set(served.map((t) => t.id)), version: store.version }
    return served
  }
  // A change upstream is reviewed before the next call reaches the backend, even if nobody re-lists.
  backend.onToolsChanged(() => {
    reviewed = undefined
  })
  const admitted = (call: BackendCall, ctx: ExecutionContext) => {
    if (!reviewed!.served.has(call.toolId))
      return Promise.reject(new ToolNotFound({ toolId: call.toolId, suggestions: [] }))
    return backend.execute(call, ctx)
  }
  return {
    ...backend,
    name: backend.name,
    toolSchemas,
    supportedTools: async () => (await toolSchemas()).map((t) => t.id),
    execute: (call, ctx) =>
      reviewed === undefined || reviewed.version !== store.version
        ? toolSchemas().then(() => admitted(call, ctx))
        : admitted(call, ctx),
    metadata: () => backend.metadata(),
    healthCheck: () => backend.healthCheck(),
    requiresApproval: (id) => backend.requiresApproval(id),
    onToolsChanged: (listener) => backend.onToolsChanged(listener),
    close: () => backend.close(),
  }
}
