/**
 * A child process for `relay.bench.ts`: a gateway (`serveHttp`, node transport) over a runner whose
 * backend is the hand-written MCP server of the tests (`test/fixtures/rawStdioServer.ts`) over stdio.
 * argv[2] "relay" serves results as the runner returns them (the relay fast path); "encode" puts a
 * middleware in front that copies each result (`{ ...result }`), so every answer is encoded again, as
 * before the fast path. Prints its URL on stdout.
 */
import { join } from "node:path"
import { createRunner } from "@toolplane/exec"
import { applyMiddleware, type Middleware } from "@toolplane/foundation"
import { mcpBackend, serveHttp } from "../src/index.js"

const mode = process.argv[2] === "encode" ? "encode" : "relay"
const here = import.meta.dirname
const backend = mcpBackend(
  {
    name: "up",
    stdio: {
      command: process.execPath,
      args: [
        "--conditions=@toolplane/source",
        "--import",
        "tsx",
        join(here, "..", "test", "fixtures", "rawStdioServer.ts"),
      ],
      cwd: join(here, ".."),
    },
  },
  { requiresApproval: false },
)
const runner = createRunner({ backends: [backend], hideUnsupportedCategories: false })
await runner.ready()
const copying: Middleware = (next) => ({
  listTools: (request) => next.listTools(request),
  callTool: async (request) => ({ ...(await next.callTool(request)) }),
})
const handle = await serveHttp(mode === "encode" ? applyMiddleware(runner, copying) : runner, {
  transport: "node",
})
process.stdout.write(`${handle.url}\n`)
process.on("SIGTERM", () => {
  handle
    .close()
    .then(() => runner.close())
    .then(() => process.exit(0))
})
