/**
 * What the relay and server-transport benchmarks share: two processes of one server script of this folder
 * (baseline and candidate, each printing its URL on stdout), an SDK client connected to each over
 * Streamable HTTP, and the closed-loop `echo` load against one side with that process's CPU per call.
 */
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type CpuLoadSample, loadWithCpu, spawnNodeUntil, stopProcess } from "@toolplane/bench-kit"

const here = dirname(fileURLToPath(import.meta.url))

/**
 * Starts `script` (a file of this folder) once per side, with that side's argument (e.g. `args.baseline`
 * and `args.candidate`), and connects a client to each. A side listed in `checkouts` runs that checkout's
 * own copy of the script (its `plugins/mcp/bench` folder, so its own source), e.g. a worktree of `main`.
 */
export const startEchoSides = async <Side extends string>(
  script: string,
  args: Readonly<Record<Side, string>>,
  checkouts: { readonly [side in Side]?: string } = {},
) => {
  const start = async (arg: string, checkout: string | undefined) => {
    const folder = checkout === undefined ? here : join(resolve(checkout), "plugins/mcp/bench")
    const { child, match } = await spawnNodeUntil(
      ["--conditions=@toolplane/source", "--import", "tsx", join(folder, script), arg],
      { pattern: /^(http:\/\/\S+)\n/, cwd: folder },
    )
    return { child, url: match }
  }
  const names = Object.keys(args) as Side[]
  const sides = {} as Record<Side, Awaited<ReturnType<typeof start>>>
  const clients = {} as Record<Side, Client>
  const close = async () => {
    await Promise.all(Object.values<Client>(clients).map((client) => client.close()))
    await Promise.all(
      Object.values<Awaited<ReturnType<typeof start>>>(sides).map((side) => stopProcess(side.child)),
    )
  }
  try {
    for (const name of names) sides[name] = await start(args[name], checkouts[name])
    for (const name of names) {
      clients[name] = new Client({ name: "bench", version: "0" })
      await clients[name].connect(new StreamableHTTPClientTransport(new URL(sides[name].url)))
    }
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
