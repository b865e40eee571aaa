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
