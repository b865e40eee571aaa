/**
 * Collects the tool schemas of real MCP servers installed from npm (devDependencies of this package)
 * into test/fixtures/mcp-tool-corpus.json, the corpus the strict-conversion test runs over.
 *
 *   pnpm --filter @toolplane/plugin-openai collect-corpus
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { type CorpusServer, collectServer, SERVERS } from "./mcpServers.js"

const out = join(import.meta.dirname, "..", "test", "fixtures", "mcp-tool-corpus.json")
const servers: CorpusServer[] = []
const failures: { name: string; error: string }[] = []
for (const spec of SERVERS) {
  try {
    const server = await collectServer(spec)
    servers.push(server)
    console.log(`${spec.packageName}@${server.version}: ${server.tools.length} tools`)
  } catch (error) {
    failures.push({ name: spec.packageName, error: (error as Error).message })
    console.error(`${spec.packageName}: could not collect (${(error as Error).message})`)
  }
}
const corpus = {
  description:
    "Tool schemas listed by real MCP servers from npm over stdio, collected by scripts/collectCorpus.ts. Do not edit by hand.",
  collectedAt: new Date().toISOString().slice(0, 10),
  node: process.version,
  servers,
  ...(failures.length > 0 ? { failures } : {}),
}
writeFileSync(out, `${JSON.stringify(corpus, null, 2)}\n`)
console.log(
  `wrote ${servers.reduce((n, s) => n + s.tools.length, 0)} tools from ${servers.length} servers to ${out}`,
)
