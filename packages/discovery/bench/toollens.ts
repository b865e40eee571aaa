/**
 * ToolLens loading, parsing and metrics shared by the quality and speed benchmarks.
 */
import { existsSync, readFileSync } from "node:fs"
import type { SearchableTool } from "../src/index.js"

export interface Corpus {
  /** corpus id → tool */
  tools: Map<string, SearchableTool & { intents: string[] }>
  /** tool id → corpus id */
  corpusIdOf: Map<string, string>
  /** corpus id → original text */
  raw: Map<string, string>
}

export interface Query {
  id: string
  text: string
}

export const DEFAULT_DIR = new URL("../../../../shared/bench/toollens/", import.meta.url).pathname

export function missing(...files: (string | undefined)[]): string[] {
  return files.filter((f): f is string => f !== undefined && !existsSync(f))
}

function readJsonl<T>(file: string): T[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as T)
}

interface Param {
  name?: string
  type?: string
  description?: string
  default?: unknown
}

function parseParams(raw: string | undefined): Param[] {
  if (raw === undefined) return []
  try {
    const v = JSON.parse(raw) as unknown
    return Array.isArray(v) ? (v as Param[]) : []
  } catch {
    return []
  }
}

function slug(s: string): string {
  return (
    s
      .trim()
      .replace(/[^\p{L}\p{N}]+/gu, "_")
      .replace(/^_+|_+$/g, "")
      .toLowerCase() || "tool"
  )
}

/**
 * Parses a ToolLens `text` ("category_name:…, tool_name:…, api_name:…, api_description:…,
 * required_params: […], optional_params: […], return_schema: …") into a tool.
 */
export function parseToolLensText(corpusId: string, text: string): SearchableTool & { intents: string[] } {
  const grab = (start: string, end: string | undefined): string | undefined => {
    const i = text.indexOf(start)
    if (i < 0) return undefined
    const from = i + start.length
    const j = end === undefined ? text.length : text.indexOf(end, from)
    return text.slice(from, j < 0 ? text.length : j).trim()
  }
  const category = grab("category_name:", ", tool_name:") ?? ""
  const toolName = grab("tool_name:", ", api_name:") ?? ""
  const apiName = grab("api_name:", ", api_description:") ?? ""
  const description = grab("api_description:", ", required_params:") ?? ""
  const required = parseParams(grab("required_params:", ", optional_params:"))
  const optional = parseParams(grab("optional_params:", ", return_schema:"))
  const properties: Record<string, unknown> = {}
  for (const p of [...required, ...optional]) {
    if (typeof p.name !== "string") continue
    properties[p.name] = {
      type: typeof p.type === "string" ? p.type.toLowerCase() : "string",
      ...(p.description ? { description: p.description } : {}),
    }
  }
  let output: Record<string, unknown> | undefined
  try {
    const sample = JSON.parse(grab("return_schema:", undefined) ?? "") as unknown
    if (sample !== null && typeof sample === "object")
      output = sampleToSchema(sample) as Record<string, unknown>
  } catch {
    output = undefined
  }
  const namespace = slug(toolName)
  return {
    id: `${namespace}/${slug(apiName)}#${corpusId}`,
    namespace,
    name: apiName,
    title: toolName,
    description,
    category: category.replace(/_/g, " "),
    inputSchema: {
      type: "object",
      properties,
      required: required.map((p) => p.name).filter((n): n is string => typeof n === "string"),
    },
    ...(output !== undefined ? { outputSchema: output } : {}),
    intents: [],
  }
}

/** ToolLens return schemas are example values ({"name": "str", ...}): turn them into JSON Schema. */
function sampleToSchema(v: unknown, depth = 0): unknown {
  if (depth > 6) return {}
  if (Array.isArray(v))
    return { type: "array", ...(v.length > 0 ? { items: sampleToSchema(v[0], depth + 1) } : {}) }
  if (v !== null && typeof v === "object") {
    const properties: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v))
      if (!k.startsWith("_list_length")) properties[k] = sampleToSchema(x, depth + 1)
    return { type: "object", properties }
  }
  return { type: typeof v === "string" ? v : typeof v }
}

export function loadCorpus(file: string): Corpus {
  const tools = new Map<string, SearchableTool & { intents: string[] }>()
  const corpusIdOf = new Map<string, string>()
  const raw = new Map<string, string>()
  for (const row of readJsonl<{ _id: string; text: string }>(file)) {
    const t = parseToolLensText(String(row._id), row.text)
    tools.set(String(row._id), t)
    corpusIdOf.set(t.id, String(row._id))
    raw.set(String(row._id), row.text)
  }
  return { tools, corpusIdOf, raw }
}

export function loadQueries(file: string): Query[] {
  return readJsonl<{ _id: string; text: string }>(file).map((q) => ({ id: String(q._id), text: q.text }))
}

/** query id → gold corpus ids */
export function loadQrels(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  const lines = readFileSync(file, "utf8").split("\n")
  for (const line of lines) {
    const [q, c, s] = line.split("\t")
    if (q === undefined || c === undefined || q === "query-id" || q.trim() === "") continue
    if (s !== undefined && Number(s) <= 0) continue
    const list = out.get(q) ?? []
    list.push(c.trim())
    out.set(q, list)
  }
  return out
}

export interface Metrics {
  "R@3": number
  "R@5": number
  "N@3": number
  "N@5": number
  "C@3": number
  "C@5": number
  queries: number
}

/** Accumulates COLT metrics (R@K, NDCG@K with binary gains, completeness C@K), in %. */
export class MetricAccumulator {
  private sums = { "R@3": 0, "R@5": 0, "N@3": 0, "N@5": 0, "C@3": 0, "C@5": 0 }
  private n = 0

  add(ranked: readonly string[], gold: readonly string[]): void {
    const g = new Set(gold)
    for (const k of [3, 5] as const) {
      let hits = 0
      let dcg = 0
      for (let i = 0; i < Math.min(k, ranked.length); i++) {
        if (g.has(ranked[i]!)) {
          hits++
          dcg += 1 / Math.log2(i + 2)
        }
      }
      let idcg = 0
      for (let i = 0; i < Math.min(g.size, k); i++) idcg += 1 / Math.log2(i + 2)
      this.sums[`R@${k}`] += hits / g.size
      this.sums[`N@${k}`] += idcg > 0 ? dcg / idcg : 0
      this.sums[`C@${k}`] += hits === g.size ? 1 : 0
    }
    this.n++
  }

  result(): Metrics {
    const r = (x: number) => Math.round((10000 * x) / Math.max(1, this.n)) / 100
    return {
      "R@3": r(this.sums["R@3"]),
      "R@5": r(this.sums["R@5"]),
      "N@3": r(this.sums["N@3"]),
      "N@5": r(this.sums["N@5"]),
      "C@3": r(this.sums["C@3"]),
      "C@5": r(this.sums["C@5"]),
      queries: this.n,
    }
  }
}

/** Deterministic fold of a query id (hash), in [0, k). */
export function foldOf(id: string, k: number): number {
  let h = 2166136261
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i)
    h = Math.imul(h, 16777619)
  }
  return (h >>> 0) % k
}

export function formatMetrics(label: string, m: Metrics): string {
  const cols = ["R@3", "R@5", "N@3", "N@5", "C@3", "C@5"] as const
  return `${label.padEnd(34)} ${cols.map((c) => `${c} ${m[c].toFixed(2).padStart(6)}`).join("  ")}  (${m.queries} queries)`
}
