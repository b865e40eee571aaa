/**
 * The peers benchmark's floor relays (`bench/floorRelay.ts`) carry the real SDK client's Streamable HTTP
 * session to the benchmark's real upstream (`bench/upstream.ts`), over HTTP and over stdio, with 32 calls
 * in flight: every answer reaches the call that asked for it (the stdio floor matches answers by JSON-RPC
 * id). Benchmark support code, tested because a floor that mixed up answers would measure nothing.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterEach, describe, expect, it } from "vitest"

const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..")
const upstreamArgs = [
  "--conditions=@toolplane/source",
  "--import",
  "tsx",
  join(cliDir, "bench", "upstream.ts"),
]
const floorFile = join(cliDir, "bench", "floorRelay.ts")

const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL")
})

/** Spawns `node <args>` and resolves with the first `http://…` URL it prints on `stream`. */
const startNode = (args: readonly string[], stream: "stdout" | "stderr") =>
  new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [...args], { cwd: cliDir, stdio: ["pipe", "pipe", "pipe"] })
    children.push(child)
    let seen = ""
    child[stream]!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8")
      const match = /(http:\/\/\S+)\n/.exec(seen)
      if (match) resolve({ child, url: match[1]! })
    })
    child.once("exit", (code) => reject(new Error(`exited (${code}) before its URL: ${seen}`)))
  })

const startFloor = async (kind: "http" | "stdio") => {
  if (kind === "http") {
    const upstream = await startNode([...upstreamArgs, "--json"], "stdout")
    return startNode([floorFile, "--http", upstream.url], "stderr")
  }
  return startNode([floorFile, "--stdio", process.execPath, ...upstreamArgs, "--stdio"], "stderr")
}

describe.each(["http", "stdio"] as const)("floor relay over %s", (kind) => {
  it("carries an SDK client session; 32 calls in flight each get their own answer", async () => {
    const floor = await startFloor(kind)
    expect(floor.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const client = new Client({ name: "floor-test", version: "0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(floor.url)))
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["echo"])
    let next = 0
    const answers: [string, string | undefined][] = []
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < 320) {
          const text = `call ${next++}`
          const result = await client.callTool({ name: "echo", arguments: { text } })
          answers.push([text, (result.content as { text?: string }[])[0]?.text])
        }
      }),
    )
    expect(answers).toHaveLength(320)
    for (const [sent, got] of answers) expect(got).toBe(sent)
    await client.close()
  }, 60_000)
})

describe("floor relays", () => {
  it("the stdio floor answers a GET 405 and a notification 202", async () => {
    const floor = await startFloor("stdio")
    const get = await fetch(floor.url, { headers: { accept: "text/event-stream" } })
    expect(get.status).toBe(405)
    const note = await fetch(floor.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
    expect(note.status).toBe(202)
  }, 60_000)

  it("exits when its stdin closes (the benchmark went away)", async () => {
    const floor = await startFloor("stdio")
    floor.child.stdin!.end()
    const [code] = await once(floor.child, "exit")
    expect(code).toBe(0)
  }, 60_000)

  it("refuses to start without a mode", async () => {
    const child = spawn(process.execPath, [floorFile], { stdio: ["pipe", "pipe", "pipe"] })
    children.push(child)
    let err = ""
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString("utf8")
    })
    const [code] = await once(child, "exit")
    expect(code).toBe(2)
    expect(err).toContain("usage: floorRelay.ts")
  })
})
