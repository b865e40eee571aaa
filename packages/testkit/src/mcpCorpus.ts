/**
 * The repository's real MCP tool corpus: the MCP servers installed from npm (this package's
 * dependencies), a function that spawns one over stdio with the official SDK client and lists its tools,
 * and the committed fixture of the same servers' tools (`fixtures/mcp-tool-corpus.json`, written by
 * this package's `collect-corpus` script) for when a server cannot start.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"

const require = createRequire(import.meta.url)

/**
 * One server of the corpus: the npm package, the bin inside it and how to start it.
 *
 * @since 0.1.0
 */
export interface CorpusServerSpec {
  /** Short name used as the tools' namespace in the corpus. */
  readonly name: string
  readonly packageName: string
  readonly bin: string
  readonly args: (scratch: string) => string[]
  readonly env?: (scratch: string) => Record<string, string>
}

/**
 * The servers of the corpus.
 *
 * @since 0.1.0
 */
export const CORPUS_SERVERS: readonly CorpusServerSpec[] = [
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

/**
 * A tool as an MCP server lists it (fields may be `null`, as some servers send them).
 *
 * @since 0.1.0
 */
export interface ListedTool {
  readonly name: string
  readonly description?: string | null
  readonly title?: string | null
  readonly inputSchema: Record<string, unknown>
  readonly outputSchema?: Record<string, unknown>
  readonly annotations?: Record<string, unknown> | null
}

/**
 * A tool of the corpus, with the name of the server that listed it.
 *
 * @since 0.1.0
 */
export interface CorpusTool extends ListedTool {
  readonly server: string
}

/**
 * The tools of one server, with the version of the package they came from.
 *
 * @since 0.1.0
 */
export interface CorpusServer {
  readonly name: string
  readonly packageName: string
  readonly version: string
  readonly serverInfo?: { readonly name: string; readonly version: string }
  readonly tools: readonly ListedTool[]
}

/**
 * The path of the committed fixture.
 *
 * @since 0.1.0
 */
export const MCP_TOOL_CORPUS_PATH: string = join(
  import.meta.dirname,
  "..",
  "fixtures",
  "mcp-tool-corpus.json",
)

/**
 * The committed fixture, as written.
 *
 * @since 0.1.0
 */
export const corpusFixture = (): { readonly servers: readonly CorpusServer[] } =>
  JSON.parse(readFileSync(MCP_TOOL_CORPUS_PATH, "utf8")) as { servers: CorpusServer[] }

/**
 * The committed fixture's tools.
 *
 * @since 0.1.0
 */
export const fixtureTools = (): CorpusTool[] =>
  corpusFixture().servers.flatMap((s) => s.tools.map((t) => ({ ...t, server: s.name })))

const serverEntry = (spec: CorpusServerSpec): { entry: string; version: string } => {
  const manifestPath = require.resolve(`${spec.packageName}/package.json`)
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    version: string
    bin: string | Record<string, string>
  }
  const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin[spec.bin]
  if (bin === undefined) throw new Error(`${spec.packageName} has no bin "${spec.bin}"`)
  return { entry: join(dirname(manifestPath), bin), version: manifest.version }
}

/**
 * Spawns one server over stdio, lists all its tools (following cursors) and stops it.
 *
 * @since 0.1.0
 */
export const collectServer = async (spec: CorpusServerSpec, timeoutMs = 15_000): Promise<CorpusServer> => {
  const { entry, version } = serverEntry(spec)
  const scratch = mkdtempSync(join(tmpdir(), `toolplane-corpus-${spec.name}-`))
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry, ...spec.args(scratch)],
    env: { PATH: process.env.PATH ?? "", ...(spec.env?.(scratch) ?? {}) },
    stderr: "ignore",
  })
  const client = new Client({ name: "toolplane-corpus", version: "0.2.0" })
  try {
    await client.connect(transport, { timeout: timeoutMs })
    const tools: ListedTool[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs })
      for (const t of page.tools) tools.push(t as ListedTool)
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

/**
 * Spawns every corpus server at once, lists its tools and stops it; a server that cannot start is a
 * failure line, not an exception.
 *
 * @since 0.1.0
 */
export const liveTools = async (timeoutMs = 15_000): Promise<{ tools: CorpusTool[]; failures: string[] }> => {
  const tools: CorpusTool[] = []
  const failures: string[] = []
  await Promise.all(
    CORPUS_SERVERS.map(async (spec) => {
      try {
        const server = await collectServer(spec, timeoutMs)
        for (const t of server.tools) tools.push({ ...t, server: spec.name })
      } catch (error) {
        failures.push(`${spec.packageName}: ${(error as Error).message}`)
      }
    }),
  )
  return { tools, failures }
}
