/**
 * The MCP servers the strict-schema corpus is collected from, and a function that spawns one over stdio
 * with the official SDK client and lists its tools. Shared by `collectCorpus.ts` and the live test.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

const require = createRequire(import.meta.url)

/** One server to collect from: the npm package, the bin inside it and how to start it. */
export interface ServerSpec {
  /** Short name used as the tools' namespace in the corpus. */
  readonly name: string
  readonly packageName: string
  readonly bin: string
  readonly args: (scratch: string) => string[]
  readonly env?: (scratch: string) => Record<string, string>
}

export const SERVERS: readonly ServerSpec[] = [
  {
    name: "everything",
    packageName: "@modelcontextprotocol/server-everything",
    bin: "mcp-server-everything",
    args: () => ["stdio"],
  },
  {
    name: "filesystem",
    packageName: "@modelcontextprotocol/server-filesystem",
    bin: "mcp-server-filesystem",
    args: (scratch) => [scratch],
  },
  {
    name: "memory",
    packageName: "@modelcontextprotocol/server-memory",
    bin: "mcp-server-memory",
    args: () => [],
    env: (scratch) => ({ MEMORY_FILE_PATH: join(scratch, "memory.jsonl") }),
  },
  {
    name: "sequential-thinking",
    packageName: "@modelcontextprotocol/server-sequential-thinking",
    bin: "mcp-server-sequential-thinking",
    args: () => [],
  },
]

/** A tool as an MCP server lists it (the fields the corpus keeps). */
export interface CorpusTool {
  readonly name: string
  readonly description?: string
  readonly inputSchema: Record<string, unknown>
  readonly outputSchema?: Record<string, unknown>
}

/** The tools of one server, with the version of the package they came from. */
export interface CorpusServer {
  readonly name: string
  readonly packageName: string
  readonly version: string
  readonly serverInfo?: { readonly name: string; readonly version: string }
  readonly tools: readonly CorpusTool[]
}

/** Finds the entry script of a server package's bin. */
export const serverEntry = (spec: ServerSpec): { entry: string; version: string } => {
  const manifestPath = require.resolve(`${spec.packageName}/package.json`)
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    version: string
    bin: string | Record<string, string>
  }
  const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin[spec.bin]
  if (bin === undefined) throw new Error(`${spec.packageName} has no bin "${spec.bin}"`)
  return { entry: join(dirname(manifestPath), bin), version: manifest.version }
}

/** Spawns one server over stdio, lists all its tools (following cursors) and stops it. */
export const collectServer = async (spec: ServerSpec, timeoutMs = 15_000): Promise<CorpusServer> => {
  const { entry, version } = serverEntry(spec)
  const scratch = mkdtempSync(join(tmpdir(), `toolplane-corpus-${spec.name}-`))
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry, ...spec.args(scratch)],
    env: { PATH: process.env.PATH ?? "", ...(spec.env?.(scratch) ?? {}) },
    stderr: "ignore",
  })
  const client = new Client({ name: "toolplane-corpus", version: "0.1.0" })
  try {
    await client.connect(transport, { timeout: timeoutMs })
    const tools: CorpusTool[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs })
      for (const t of page.tools)
        tools.push({
          name: t.name,
          ...(t.description !== undefined ? { description: t.description } : {}),
          inputSchema: t.inputSchema as Record<string, unknown>,
          ...(t.outputSchema !== undefined
            ? { outputSchema: t.outputSchema as Record<string, unknown> }
            : {}),
        })
      cursor = page.nextCursor
    } while (cursor)
    const info = client.getServerVersion()
    return {
      name: spec.name,
      packageName: spec.packageName,
      version,
      ...(info ? { serverInfo: { name: info.name, version: info.version } } : {}),
      tools,
    }
  } finally {
    await client.close().catch(() => {})
  }
}
