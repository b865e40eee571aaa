/**
 * What the relay and server-transport benchmarks share: two processes of one server script of this folder
 * (baseline and candidate, each printing its URL on stdout), an SDK client connected to each over
 * Streamable HTTP, and the closed-loop `echo` load against one side with that process's CPU per call.
 */
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type CpuLoadSample, loadWithCpu, spawnNodeUntil, stopProcess } from "@toolplane/bench-kit"

const here = dirname(fileURLToPath(import.meta.url))

type Side = "baseline" | "candidate"

/** Starts `script` (a file of this folder) twice, with `args.baseline` and `args.candidate`, and connects a client to each. */
export const startEchoSides = async (script: string, args: Readonly<Record<Side, string>>) => {
  const start = async (arg: string) => {
    const { child, match } = await spawnNodeUntil(
      ["--conditions=@toolplane/source", "--import", "tsx", join(here, script), arg],
      { pattern: /^(http:\/\/\S+)\n/ },
    )
    return { child, url: match }
  }
  const sides = { baseline: await start(args.baseline), candidate: await start(args.candidate) }
  const clients = {
    baseline: new Client({ name: "bench", version: "0" }),
    candidate: new Client({ name: "bench", version: "0" }),
  }
  const close = async () => {
    await Promise.all([clients.baseline.close(), clients.candidate.close()])
    await Promise.all(Object.values(sides).map((side) => stopProcess(side.child)))
  }
  try {
    await clients.baseline.connect(new StreamableHTTPClientTransport(new URL(sides.baseline.url)))
    await clients.candidate.connect(new StreamableHTTPClientTransport(new URL(sides.candidate.url)))
  } catch (error) {
    await close()
    throw error
  }
  return {
    /** Calls `tool` with `{ text }` in a closed loop on `side` for `ms`, checking each answer's text. */
    echoLoad: (
      side: Side,
      tool: string,
      text: string,
      concurrency: number,
      ms: number,
    ): Promise<CpuLoadSample> =>
      loadWithCpu(() => clients[side].callTool({ name: tool, arguments: { text } }), {
        pid: sides[side].child.pid,
        concurrency,
        ms,
        check: (result) => {
          if ((result.content as { text?: string }[])[0]?.text !== text) throw new Error("wrong answer")
        },
      }),
    close,
  }
}
