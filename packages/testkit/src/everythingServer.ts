/**
 * How to start the reference MCP server `@modelcontextprotocol/server-everything` (installed from npm)
 * over stdio, for tests that list real MCP tools.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

const require = createRequire(import.meta.url)

/**
 * The stdio command of server-everything: this Node binary and the package's bin script.
 *
 * @since 0.1.0
 */
export const everythingServerCommand = (): { command: string; args: string[] } => {
  const manifest = require.resolve("@modelcontextprotocol/server-everything/package.json")
  const bin = JSON.parse(readFileSync(manifest, "utf8")).bin as string | Record<string, string>
  const entry = join(dirname(manifest), typeof bin === "string" ? bin : bin["mcp-server-everything"]!)
  return { command: process.execPath, args: [entry, "stdio"] }
}
