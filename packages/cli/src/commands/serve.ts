/**
 * `toolplane serve`: serves the composed gateway over MCP (stdio or Streamable HTTP) until interrupted
 * (SIGINT/SIGTERM) or, on stdio, until the client closes the stream.
 *
 * @since 0.1.0
 */
import { ConfigError, listAllTools } from "@toolplane/foundation"
import { mcpToolName, serveHttp, serveStdio } from "@toolplane/plugin-mcp"
import { defineCommand, EXIT, UsageError } from "../command.js"
import { open } from "./shared.js"

const untilSignal = (): Promise<string> =>
  new Promise((resolve) => {
    const onSignal = (signal: string) => {
      process.off("SIGINT", onSignal)
      process.off("SIGTERM", onSignal)
      resolve(signal)
    }
    process.on("SIGINT", onSignal)
    process.on("SIGTERM", onSignal)
  })

/** @since 0.1.0 */
export const serveCommand = defineCommand({
  name: "serve",
  summary: "serve the configured gateway over MCP\n[--transport stdio|http] [--host 127.0.0.1] [--port N]",
  maxPositionals: 0,
  flags: { transport: "string", host: "string", port: "string" },
  run: async (ctx) => {
    const { values } = ctx.invocation
    const transport = values.transport ?? ctx.config.server.transport
    if (transport !== "stdio" && transport !== "http")
      throw new UsageError(`--transport must be "stdio" or "http", got "${transport}"`)
    const host = values.host ?? ctx.config.server.host
    const port =
      values.port === undefined
        ? ctx.config.server.port
        : /^\d{1,5}$/.test(values.port)
          ? Number(values.port)
          : -1
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`--port must be an integer from 0 to 65535, got "${values.port}"`)
    if (ctx.invocation.positionals.length > 0)
      throw new UsageError(`unexpected argument "${ctx.invocation.positionals[0]}"`)

    const gateway = await open(ctx, { warnRandomCursorKey: true, singleClient: transport === "stdio" })
    const serverInfo = { name: ctx.config.server.name, version: "0.1.0" }
    const watch = (notify: () => void) => gateway.onToolsChanged(notify)
    const naming = ctx.config.server.tool_names
    try {
      const tools = await listAllTools(gateway.service)
      const count = tools.length
      const byName = new Map<string, string>()
      for (const tool of tools) {
        const name = mcpToolName(tool, naming)
        const other = byName.get(name)
        if (other !== undefined)
          throw new ConfigError({
            path: "server.tool_names",
            reason: `"${naming}" gives "${other}" and "${tool.id}" the same MCP name "${name}"; use "dotted" or an alias`,
            file: ctx.file,
          })
        byName.set(name, tool.id)
      }
      if (transport === "stdio") {
        const handle = await serveStdio(gateway.service, { serverInfo, watch, naming })
        ctx.io.stderr(`toolplane: serving ${count} tools over stdio (MCP); waiting for a client on stdin\n`)
        await Promise.race([handle.closed, untilSignal()])
        await handle.close()
      } else {
        let handle: Awaited<ReturnType<typeof serveHttp>>
        try {
          handle = await serveHttp(gateway.service, { serverInfo, watch, naming, host, port })
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code
          if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
            throw new UsageError(
              `cannot listen on ${host}:${port}: ${code === "EADDRINUSE" ? "address already in use" : code === "EACCES" ? "permission denied" : "no such address"} (set server.host / server.port in ${ctx.file}, or --host / --port)`,
            )
          throw error
        }
        const url = /^(0\.0\.0\.0|::|\[::\])$/.test(host)
          ? handle.url.replace(/\/\/[^/]+/, `//127.0.0.1:${handle.port}`)
          : handle.url
        ctx.io.stderr(
          [
            `toolplane: serving ${count} tools over MCP Streamable HTTP at ${url}${url === handle.url ? "" : ` (bound to all interfaces on ${host})`}`,
            "toolplane: connect a client, for example:",
            `  npx @modelcontextprotocol/inspector --transport http --server-url ${url}`,
            `  or in code: new StreamableHTTPClientTransport(new URL("${url}"))`,
            "toolplane: press Ctrl+C to stop",
            "",
          ].join("\n"),
        )
        const signal = await untilSignal()
        ctx.io.stderr(`toolplane: ${signal} received, shutting down\n`)
        await handle.close()
      }
      return EXIT.ok
    } finally {
      await gateway.close()
    }
  },
})
