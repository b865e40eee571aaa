/**
 * The repository's real MCP tool corpus: the tools of the MCP servers installed from npm (this package's
 * devDependencies), listed live through the MCP SDK client over stdio, and the committed fixture of the
 * same servers' tools (test/fixtures/mcp-tool-corpus.json, dumped once by plugin-openai's
 * collect-corpus script) for when a server cannot start.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

const require = createRequire(import.meta.url)

export interface CorpusTool {
  readonly server: string
  readonly name: string
  readonly description?: string | null
  readonly title?: string | null
  readonly inputSchema: Record<string, unknown>
  readonly outputSchema?: Record<string, unknown>
  readonly annotations?: Record<string, unknown> | null
}

const SERVERS = [
  {
    name: "everything",
    pkg: "@modelcontextprotocol/server-everything",
    bin: "mcp-server-everything",
    args: () => ["stdio"],
  },
  {
    name: "filesystem",
    pkg: "@modelcontextprotocol/server-filesystem",
    bin: "mcp-server-filesystem",
    args: (d: string) => [d],
  },
  { name: "memory", pkg: "@modelcontextprotocol/server-memory", bin: "mcp-server-memory", args: () => [] },
  {
    name: "sequential-thinking",
    pkg: "@modelcontextprotocol/server-sequential-thinking",
    bin: "mcp-server-sequential-thinking",
    args: () => [],
  },
] as const

/** The committed fixture's tools. */
export const fixtureTools = (): CorpusTool[] => {
  const corpus = JSON.parse(
    readFileSync(join(import.meta.dirname, "fixtures", "mcp-tool-corpus.json"), "utf8"),
  ) as {
    servers: { name: string; tools: Omit<CorpusTool, "server">[] }[]
  }
  return corpus.servers.flatMap((s) => s.tools.map((t) => ({ ...t, server: s.name })))
}

/** Spawns every installed server, lists its tools (following cursors) and stops it. */
export const liveTools = async (timeoutMs = 15_000): Promise<{ tools: CorpusTool[]; failures: string[] }> => {
  const tools: CorpusTool[] = []
  const failures: string[] = []
  await Promise.all(
    SERVERS.map(async (spec) => {
      const manifestPath = require.resolve(`${spec.pkg}/package.json`)
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
        bin: string | Record<string, string>
      }
      const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin[spec.bin]!
      const scratch = mkdtempSync(join(tmpdir(), `toolplane-corpus-${spec.name}-`))
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(dirname(manifestPath), bin), ...spec.args(scratch)],
        env: { PATH: process.env.PATH ?? "", MEMORY_FILE_PATH: join(scratch, "memory.jsonl") },
        stderr: "ignore",
      })
      const client = new Client({ name: "toolplane-corpus", version: "0.2.0" })
      try {
        await client.connect(transport, { timeout: timeoutMs })
        let cursor: string | undefined
        do {
          const page = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs })
          for (const t of page.tools) tools.push({ ...(t as Omit<CorpusTool, "server">), server: spec.name })
          cursor = page.nextCursor
        } while (cursor)
      } catch (error) {
        failures.push(`${spec.pkg}: ${(error as Error).message}`)
      } finally {
        await client.close().catch(() => {})
      }
    }),
  )
  return { tools, failures }
}
