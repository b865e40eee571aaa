/**
 * A child process for `serverTransport.bench.ts`: an echo ToolService (defineTool + paginateTools) served
 * by `serveHttp` with the transport named in argv[2] ("node" or "sdk"); prints its URL on stdout.
 */
import {
  defineTool,
  makeCursorCodec,
  paginateTools,
  randomCursorKey,
  ToolNotFound,
  type ToolService,
  toolOf,
} from "@toolplane/foundation"
import { z } from "zod"
import { serveHttp } from "../src/index.js"

const transport = (["raw", "node", "sdk"] as const).find((t) => t === process.argv[2]) ?? "raw"
const echo = defineTool({
  id: "demo/echo",
  description: "Echoes the text",
  input: z.object({ text: z.string() }),
  handler: ({ text }) => text,
})
const codec = makeCursorCodec({ keys: [randomCursorKey()] })
const tools = [toolOf(echo)]
const service: ToolService = {
  listTools: async (request = {}) => paginateTools(tools, { codec, pageSize: 100, cursor: request.cursor }),
  callTool: async (request) => {
    if (request.name !== echo.id) throw new ToolNotFound({ toolId: request.name, suggestions: [] })
    return echo.invoke(request.arguments ?? {}, request.context)
  },
}
const handle = await serveHttp(service, { transport })
process.stdout.write(`${handle.url}\n`)
process.on("SIGTERM", () => {
  handle.close().then(() => process.exit(0))
})
