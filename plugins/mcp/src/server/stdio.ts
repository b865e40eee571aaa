/**
 * `serveStdio`: a tool service as an MCP server over the process's stdin/stdout (newline-delimited
 * JSON-RPC), the transport MCP hosts use when they spawn a server.
 *
 * @since 0.1.0
 */
import type { Readable, Writable } from "node:stream"
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import type { ToolService } from "@toolplane/foundation"
import { ModernServing } from "./modern/serving.js"
import { serveModernOn } from "./modern/stdioEntry.js"
import { McpExposure, type McpServeOptions, type McpServerHandle } from "./serve.js"
import { serveDirectOn } from "./stdioDirect.js"

/**
 * Options of {@link serveStdio}.
 *
 * @since 0.1.0
 */
export interface ServeStdioOptions extends McpServeOptions {
  /** Default `process.stdin`. */
  readonly stdin?: Readable
  /** Default `process.stdout`. Nothing else may write to it. */
  readonly stdout?: Writable
}

/**
 * A stdio server: {@link McpServerHandle} plus `closed`, which settles when the client hangs up (stdin
 * ends) or `close()` is called.
 *
 * @since 0.1.0
 */
export interface McpStdioServerHandle extends McpServerHandle {
  readonly closed: Promise<void>
}

/**
 * Serves `service` over stdio until stdin ends.
 *
 * @example
 * ```ts
 * // server.ts, started by an MCP host as `node server.js`
 * const handle = await serveStdio(service)
 * await handle.closed
 * ```
 * @since 0.1.0
 */
export const serveStdio = async (
  service: ToolService,
  options: ServeStdioOptions = {},
): Promise<McpStdioServerHandle> => {
  const exposure = new McpExposure(service, options)
  const server = exposure.createServer()
  // 2026-07-28 requests on the same pipe are answered statelessly, beside the 2025 session.
  const modern = new ModernServing(exposure, {
    ...(options.cacheHints ? { cacheHints: options.cacheHints } : {}),
    ...(options.upstreamTasks ? { upstreamTasks: options.upstreamTasks } : {}),
    ...(options.taskSources ? { taskSources: options.taskSources } : {}),
  })
  const stdin = options.stdin ?? process.stdin
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout)
  let resolveClosed!: () => void
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve
  })
  let done = false
  const close = async () => {
    if (done) return
    done = true
    stdin.off("end", onEnd)
    stdin.off("close", onEnd)
    modern.close()
    exposure.dispose()
    await server.close().catch(() => {})
    resolveClosed()
  }
  const onEnd = () => {
    void close()
  }
  stdin.on("end", onEnd)
  stdin.on("close", onEnd)
  server.onclose = ((previous) => () => {
    previous?.()
    void close()
  })(server.onclose)
  await server.connect(transport)
  serveDirectOn(transport, server, exposure, options.onError)
  serveModernOn(transport, modern, options.onError)
  return {
    notifyToolsChanged: () => exposure.notifyToolsChanged(),
    connections: () => (done ? 0 : 1),
    close,
    closed,
  }
}
