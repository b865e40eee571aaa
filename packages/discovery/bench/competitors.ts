/**
 * Adapters of other JavaScript search libraries (defaults, one text field per tool) for the
 * speed benchmark and the quality comparison.
 */
import { createRequire } from "node:module"
import { create, insertMultiple, search as oramaSearch } from "@orama/orama"
import { Index as FlexIndex } from "flexsearch"
import MiniSearch from "minisearch"

const require = createRequire(import.meta.url)

export interface Doc {
  id: string
  text: string
}

export interface Engine {
  name: string
  build(docs: readonly Doc[]): Promise<void> | void
  search(query: string, k: number): Promise<string[]> | string[]
}

export function winkEngine(): Engine {
  const bm25 = require("wink-bm25-text-search") as () => {
    defineConfig(c: unknown): void
    definePrepTasks(t: unknown[]): void
    addDoc(d: unknown, id: string): void
    consolidate(): void
    search(q: string, k: number): [string, number][]
  }
  const nlp = require("wink-nlp-utils") as Record<string, Record<string, unknown>>
  let engine: ReturnType<typeof bm25>
  return {
    name: "wink-bm25-text-search",
    build(docs) {
      engine = bm25()
      engine.defineConfig({ fldWeights: { text: 1 } })
      engine.definePrepTasks([
        nlp.string!.lowerCase,
        nlp.string!.removeExtraSpaces,
        nlp.string!.tokenize0,
        nlp.tokens!.removeWords,
        nlp.tokens!.stem,
        nlp.tokens!.propagateNegations,
      ])
      for (const d of docs) engine.addDoc({ text: d.text }, d.id)
      engine.consolidate()
    },
    search(q, k) {
      return engine.search(q, k).map((r) => r[0])
    },
  }
}

export function miniSearchEngine(): Engine {
  let ms: MiniSearch<Doc>
  return {
    name: "minisearch",
    build(docs) {
      ms = new MiniSearch<Doc>({ fields: ["text"], idField: "id" })
      ms.addAll(docs as Doc[])
    },
    search(q, k) {
      return ms
        .search(q)
        .slice(0, k)
        .map((r) => String(r.id))
    },
  }
}

export function flexSearchEngine(): Engine {
  let index: FlexIndex
  let ids: string[] = []
  return {
    name: "flexsearch",
    build(docs) {
      index = new FlexIndex()
      ids = docs.map((d) => d.id)
      for (let i = 0; i < docs.length; i++) index.add(i, docs[i]!.text)
    },
    search(q, k) {
      return (index.search(q, { limit: k, suggest: true }) as number[]).map((i) => ids[i]!)
    },
  }
}

export function oramaEngine(): Engine {
  let db: any
  return {
    name: "@orama/orama",
    async build(docs) {
      db = create({ schema: { key: "string", text: "string" } as const })
      await insertMultiple(
        db,
        docs.map((d) => ({ key: d.id, text: d.text })),
      )
    },
    async search(q, k) {
      const r = await oramaSearch(db, { term: q, limit: k, properties: ["text"] })
      return r.hits.map((h: { document: { key: string } }) => h.document.key)
    },
  }
}

export const COMPETITORS: (() => Engine)[] = [winkEngine, miniSearchEngine, flexSearchEngine, oramaEngine]

/**
 * A plain BM25 in a few lines (k1 1.2, b 0.75, lower-cased letter/digit runs, no stop words, no
 * stemming): the floor any tuned ranking must clear.
 */
export function plainBm25Engine(): Engine {
  const tokens = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  let ids: string[] = []
  let tfs: Map<string, number>[] = []
  let lens: number[] = []
  let df = new Map<string, number>()
  let avg = 0
  return {
    name: "plain BM25",
    build(docs) {
      ids = docs.map((d) => d.id)
      tfs = []
      lens = []
      df = new Map()
      for (const d of docs) {
        const tf = new Map<string, number>()
        const ts = tokens(d.text)
        for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1)
        for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1)
        tfs.push(tf)
        lens.push(ts.length)
      }
      avg = lens.reduce((a, b) => a + b, 0) / Math.max(1, lens.length)
    },
    search(q, k) {
      const n = ids.length
      const terms = [...new Set(tokens(q))]
      const scored: [string, number][] = []
      for (let i = 0; i < n; i++) {
        let s = 0
        for (const t of terms) {
          const f = tfs[i]!.get(t)
          if (f === undefined) continue
          const d = df.get(t)!
          const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5))
          s += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * lens[i]!) / avg))
        }
        if (s > 0) scored.push([ids[i]!, s])
      }
      scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      return scored.slice(0, k).map((x) => x[0])
    },
  }
}
