/**
 * Collects the tool schemas of real MCP servers installed from npm (dependencies of this package) into
 * fixtures/mcp-tool-corpus.json, the corpus the provider plugins' export tests run over.
 *
 *   pnpm --filter @toolplane/testkit collect-corpus
 */
import { writeFileSync } from "node:fs"
import {
  CORPUS_SERVERS,
  type CorpusServer,
  collectServer,
  MCP_TOOL_CORPUS_PATH as out,
} from "../src/mcpCorpus.js"

const servers: CorpusServer[] = []
const failures: { name: string; error: string }[] = []
for (const spec of CORPUS_SERVERS) {
  try {
    const server = await collectServer(spec)
    // the fields the corpus keeps
    const tools = server.tools.map(({ name, description, inputSchema, outputSchema }) => ({
      name,
      ...(description != null ? { description } : {}),
      inputSchema,
      ...(outputSchema !== undefined ? { outputSchema } : {}),
    }))
    servers.push({ ...server, tools })
    console.log(`${spec.packageName}@${server.version}: ${server.tools.length} tools`)
  } catch (error) {
    failures.push({ name: spec.packageName, error: (error as Error).message })
    console.error(`${spec.packageName}: could not collect (${(error as Error).message})`)
  }
}
const corpus = {
  description:
    "Tool schemas listed by real MCP servers from npm over stdio, collected by packages/testkit/scripts/collectCorpus.ts. Do not edit by hand.",
  collectedAt: new Date().toISOString().slice(0, 10),
  node: process.version,
  servers,
  ...(failures.length > 0 ? { failures } : {}),
}
writeFileSync(out, `${JSON.stringify(corpus, null, 2)}\n`)
console.log(
  `wrote ${servers.reduce((n, s) => n + s.tools.length, 0)} tools from ${servers.length} servers to ${out}`,
)
