/**
 * `toolplane serve`: serves the composed gateway over MCP (stdio or Streamable HTTP) until interrupted
 * (SIGINT/SIGTERM) or, on stdio, until the client closes the stream.
 *
 * @since 0.1.0
 */
import { listAllTools } from "@toolplane/foundation"
import { serveHttp, serveStdio } from "@toolplane/plugin-mcp"
import { type CommandContext, EXIT, UsageError } from "../cli.js"
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
export const serveCommand = async (ctx: CommandContext): Promise<number> => {
  const { values } = ctx.invocation
  const transport = values.transport ?? ctx.config.server.transport
  if (transport !== "stdio" && transport !== "http")
    throw new UsageError(`--transport must be "stdio" or "http", got "${transport}"`)
  const host = values.host ?? ctx.config.server.host
  const port = values.port === undefined ? ctx.config.server.port : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be an integer from 0 to 65535, got "${values.port}"`)
  if (ctx.invocation.positionals.length > 0)
    throw new UsageError(`unexpected argument "${ctx.invocation.positionals[0]}"`)

  const gateway = await open(ctx)
  const serverInfo = { name: ctx.config.server.name, version: "0.1.0" }
  const watch = (notify: () => void) => gateway.onToolsChanged(notify)
  const naming = ctx.config.server.tool_names
  const count = (await listAllTools(gateway.service)).length
  try {
    if (transport === "stdio") {
      const handle = await serveStdio(gateway.service, { serverInfo, watch, naming })
      ctx.io.stderr(`toolplane: serving ${count} tools over stdio (MCP); waiting for a client on stdin\n`)
      await Promise.race([handle.closed, untilSignal()])
      await handle.close()
    } else {
      const handle = await serveHttp(gateway.service, { serverInfo, watch, naming, host, port })
      ctx.io.stderr(
        [
          `toolplane: serving ${count} tools over MCP Streamable HTTP at ${handle.url}`,
          "toolplane: connect a client, for example:",
          `  npx @modelcontextprotocol/inspector --transport http --server-url ${handle.url}`,
          `  or in code: new StreamableHTTPClientTransport(new URL("${handle.url}"))`,
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
}
