import { spawn } from "node:child_process"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"

const child = spawn(
  process.execPath,
  [
    "--cpu-prof",
    "--cpu-prof-dir=/tmp/srvprof",
    "--conditions=@toolplane/source",
    "--import",
    "tsx",
    "bench/transportServer.ts",
    process.argv[2] ?? "node",
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
)
const url = await new Promise<string>((r) => child.stdout!.on("data", (c: Buffer) => r(c.toString().trim())))
const client = new Client({ name: "b", version: "0" })
await client.connect(new StreamableHTTPClientTransport(new URL(url)))
const end = Date.now() + 6000
let n = 0
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (Date.now() < end) {
      await client.callTool({ name: "demo.echo", arguments: { text: "hello" } })
      n++
    }
  }),
)
console.log("calls", n)
await client.close()
child.kill("SIGTERM")
await new Promise((r) => child.once("exit", r))
