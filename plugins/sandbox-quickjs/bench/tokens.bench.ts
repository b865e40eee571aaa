/**
 * Tokens (o200k_base, gpt-tokenizer, offline) of the code-mode tool listing (execute_code, plus search
 * when the declaration does not fit) versus the full tool listing (each tool's name, description and
 * schemas as MCP `tools/list` sends them), for:
 *  - the example gateway's toolset (examples/gateway: `toolplane serve` spawned, listed by the MCP SDK
 *    client over stdio);
 *  - the 464-tool ToolLens corpus (../shared/bench/toollens/corpus.jsonl; skipped with a message if absent).
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { fmt, heading, markdownTable } from "@toolplane/bench-kit"
import { codeMode } from "@toolplane/compose"
import { codeExecutor } from "@toolplane/exec"
import { makeTool, type Tool, type ToolService } from "@toolplane/foundation"
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import { quickJsSandbox } from "../src/index.js"

const REPO = join(import.meta.dirname, "..", "..", "..")
const tokens = (value: unknown) => encode(JSON.stringify(value)).length

const mcpListing = (tools: readonly Tool[]) =>
  tools.map((t) => ({
    name: t.id.replace("/", "."),
    ...(t.description ? { description: t.description } : {}),
    inputSchema: t.inputSchema,
    ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
  }))

const rows: (string | number)[][] = []

/** Tokens of the full listing and of the code-mode listing, as one table row. */
const compareListings = async (label: string, tools: readonly Tool[]) => {
  const sandbox = quickJsSandbox({ warmWorkers: 0 })
  const inner: ToolService = {
    listTools: async () => ({ tools }),
    callTool: async () => ({ content: [] }),
  }
  const service = codeMode({ executor: codeExecutor({ sandbox }) })(inner)
  const code = (await service.listTools()).tools
  const full = tokens(mcpListing(tools))
  const mode = tokens(mcpListing(code))
  rows.push([
    label,
    tools.length,
    fmt(full),
    fmt(mode),
    code.map((t) => t.name).join(" + "),
    `${fmt((mode / full) * 100, 1)}%`,
  ])
  await sandbox.close()
}

const exampleGateway = async (): Promise<Tool[]> => {
  const client = new Client({ name: "bench", version: "1.0.0" })
  await client.connect(
    new StdioClientTransport({
      command: join(REPO, "node_modules", ".bin", "tsx"),
      args: [
        "--conditions=@toolplane/source",
        join(REPO, "packages", "cli", "src", "main.ts"),
        "serve",
        "--config",
        "toolplane.toml",
        "--transport",
        "stdio",
      ],
      cwd: join(REPO, "examples", "gateway"),
      env: { ...process.env, TOOLPLANE_CURSOR_SECRET: "bench-secret-0123456789abcdef0123456789" } as Record<
        string,
        string
      >,
      stderr: "ignore",
    }),
  )
  try {
    const tools: Tool[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor })
      for (const t of page.tools) {
        const dot = t.name.indexOf(".")
        tools.push(
          makeTool({
            id: dot > 0 ? `${t.name.slice(0, dot)}/${t.name.slice(dot + 1)}` : `mcp/${t.name}`,
            ...(t.description ? { description: t.description } : {}),
            inputSchema: t.inputSchema as Record<string, unknown>,
            ...(t.outputSchema ? { outputSchema: t.outputSchema as Record<string, unknown> } : {}),
          }),
        )
      }
      cursor = page.nextCursor
    } while (cursor)
    return tools
  } finally {
    await client.close()
  }
}

const slug = (s: string) =>
  s
    .trim()
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase() || "x"

const sampleSchema = (v: unknown, depth = 0): Record<string, unknown> => {
  if (depth > 6) return {}
  if (Array.isArray(v))
    return { type: "array", ...(v.length > 0 ? { items: sampleSchema(v[0], depth + 1) } : {}) }
  if (v !== null && typeof v === "object")
    return {
      type: "object",
      properties: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sampleSchema(x, depth + 1)])),
    }
  const s = String(v).toLowerCase()
  return {
    type:
      s.startsWith("int") || s === "float" || s === "number" ? "number" : s === "bool" ? "boolean" : "string",
  }
}

/** ToolLens corpus lines ("category_name:…, tool_name:…, api_name:…, api_description:…, …") as tools. */
const toolLens = (file: string): Tool[] => {
  const seen = new Set<string>()
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((line) => {
      const { _id, text } = JSON.parse(line) as { _id: string; text: string }
      const grab = (start: string, end?: string) => {
        const i = text.indexOf(start)
        if (i < 0) return ""
        const j = end === undefined ? text.length : text.indexOf(end, i + start.length)
        return text.slice(i + start.length, j < 0 ? text.length : j).trim()
      }
      const params = (raw: string) => {
        try {
          const v = JSON.parse(raw) as { name?: string; type?: string; description?: string }[]
          return Array.isArray(v) ? v.filter((p) => typeof p.name === "string") : []
        } catch {
          return []
        }
      }
      const required = params(grab("required_params:", ", optional_params:"))
      const optional = params(grab("optional_params:", ", return_schema:"))
      let output: Record<string, unknown> | undefined
      try {
        output = sampleSchema(JSON.parse(grab("return_schema:")))
      } catch {
        output = undefined
      }
      let id = `${slug(grab("tool_name:", ", api_name:"))}/${slug(grab("api_name:", ", api_description:"))}`
      if (seen.has(id)) id = `${id}_${_id}`
      seen.add(id)
      return makeTool({
        id,
        description: grab("api_description:", ", required_params:"),
        inputSchema: {
          type: "object",
          properties: Object.fromEntries(
            [...required, ...optional].map((p) => [
              p.name!,
              {
                type: p.type?.toLowerCase() === "number" ? "number" : "string",
                ...(p.description ? { description: p.description } : {}),
              },
            ]),
          ),
          required: required.map((p) => p.name!),
        },
        ...(output && output.type === "object" ? { outputSchema: output } : {}),
      })
    })
}

await compareListings("example gateway (examples/gateway)", await exampleGateway())
const file = join(REPO, "..", "shared", "bench", "toollens", "corpus.jsonl")
const corpus = existsSync(file)
if (corpus) await compareListings("ToolLens corpus", toolLens(file))
console.log(heading("Code-mode tokens", "o200k_base (gpt-tokenizer, offline); counts, not timings"))
console.log(
  markdownTable(
    ["toolset", "tools", "full listing", "code mode", "code-mode tools", "code mode ÷ full"],
    rows,
  ),
)
if (!corpus) console.log("\nToolLens corpus: skipped (../shared/bench/toollens/corpus.jsonl not found)")
