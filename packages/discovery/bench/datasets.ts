/**
 * Tool-retrieval datasets in the shape the quality benchmark evaluates: a corpus of tools, queries
 * and their gold tools. Three formats: ToolLens (BEIR files), MetaTool (its public files) and a
 * documented JSONL shape for any other catalog:
 *
 * - tools file, one JSON object per line: `{ "id": "ns/name", "name"?, "namespace"?, "title"?,
 *   "description"?, "inputSchema"?, "tags"?, "category"? }` (a foundation tool listing fits);
 * - queries file, one JSON object per line: `{ "query": "text", "tools": ["ns/name", ...] }`.
 */
import { existsSync, readFileSync } from "node:fs"
import type { SearchableTool } from "../src/index.js"
import { type Corpus, loadCorpus, loadQrels, loadQueries, type Query } from "./toollens.js"

export interface Dataset {
  readonly name: string
  readonly corpus: Corpus
  readonly queries: Query[]
  /** query id → gold corpus ids */
  readonly qrels: Map<string, string[]>
}

export const METATOOL_DIR = new URL("../../../../shared/bench/metatool/", import.meta.url).pathname

export function loadToolLens(corpus: string, queries: string, qrels: string): Dataset {
  return {
    name: "ToolLens",
    corpus: loadCorpus(corpus),
    queries: loadQueries(queries),
    qrels: loadQrels(qrels),
  }
}

function corpusOf(
  tools: Iterable<SearchableTool & { intents: string[] }>,
  raw: (t: SearchableTool) => string,
) {
  const corpus: Corpus = { tools: new Map(), corpusIdOf: new Map(), raw: new Map() }
  for (const t of tools) {
    corpus.tools.set(t.id, t)
    corpus.corpusIdOf.set(t.id, t.id)
    corpus.raw.set(t.id, raw(t))
  }
  return corpus
}

/** Parses CSV (RFC 4180 quoting) into rows. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ",") {
      row.push(field)
      field = ""
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++
      row.push(field)
      field = ""
      if (row.length > 1 || row[0] !== "") rows.push(row)
      row = []
    } else field += c
  }
  if (field !== "" || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  return rows
}

/**
 * MetaTool: 199 tools (name and a one-paragraph description, no parameters), the single-tool queries
 * of `all_clean_data.csv` and the two-tool queries of `multi_tool_query_golden.json`.
 */
export function loadMetaTool(dir = METATOOL_DIR): Dataset {
  const descriptions = JSON.parse(readFileSync(`${dir}/plugin_des.json`, "utf8")) as Record<string, string>
  const tools = Object.entries(descriptions).map(([name, description]) => ({
    id: name,
    namespace: "",
    name,
    description,
    inputSchema: { type: "object" },
    intents: [] as string[],
  }))
  const corpus = corpusOf(tools, (t) => `${t.name} ${t.description ?? ""}`)
  const queries: Query[] = []
  const qrels = new Map<string, string[]>()
  const add = (text: string, gold: string[]) => {
    const id = `q${queries.length}`
    queries.push({ id, text })
    qrels.set(id, gold)
  }
  const rows = parseCsv(readFileSync(`${dir}/all_clean_data.csv`, "utf8"))
  for (const [query, tool] of rows.slice(1)) if (query && tool && corpus.tools.has(tool)) add(query, [tool])
  const multi = `${dir}/multi_tool_query_golden.json`
  if (existsSync(multi)) {
    const rows = JSON.parse(readFileSync(multi, "utf8")) as { query: string; tool: string[] }[]
    for (const r of rows)
      add(
        r.query,
        r.tool.filter((t) => corpus.tools.has(t)),
      )
  }
  return { name: "MetaTool", corpus, queries, qrels }
}

function readJsonl(file: string): unknown[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l, i) => {
      try {
        return JSON.parse(l) as unknown
      } catch (cause) {
        throw new Error(`${file}:${i + 1}: not JSON`, { cause })
      }
    })
}

/** The documented JSONL shape (see the module comment). */
export function loadJsonl(toolsFile: string, queriesFile: string): Dataset {
  const tools = readJsonl(toolsFile).map((row, i) => {
    const t = row as Partial<SearchableTool> & { id?: unknown }
    if (typeof t.id !== "string" || t.id.length === 0)
      throw new Error(`${toolsFile}:${i + 1}: "id" must be a string`)
    const slash = t.id.indexOf("/")
    return {
      ...t,
      id: t.id,
      namespace: t.namespace ?? (slash > 0 ? t.id.slice(0, slash) : ""),
      name: t.name ?? (slash > 0 ? t.id.slice(slash + 1) : t.id),
      inputSchema: t.inputSchema ?? { type: "object" },
      intents: [] as string[],
    }
  })
  const corpus = corpusOf(tools, (t) => [t.name, t.title, t.description].filter(Boolean).join(" "))
  const queries: Query[] = []
  const qrels = new Map<string, string[]>()
  readJsonl(queriesFile).forEach((row, i) => {
    const q = row as { query?: unknown; tools?: unknown }
    if (typeof q.query !== "string" || !Array.isArray(q.tools))
      throw new Error(`${queriesFile}:${i + 1}: needs "query" (string) and "tools" (array of tool ids)`)
    const gold = q.tools.filter((t): t is string => typeof t === "string" && corpus.tools.has(t))
    const id = `q${i}`
    queries.push({ id, text: q.query })
    qrels.set(id, gold)
  })
  return { name: "JSONL", corpus, queries, qrels }
}
