/**
 * Parameter search by coordinate descent, inside the ToolLens training split only:
 * zero-shot on all training queries ("zs"), or 5-fold CV with examples ("cv").
 *   tsx bench/tune.ts zs|cv '<start options JSON>' [subsample]
 */
import type { SearcherOptions } from "../src/index.js"
import { buildSearcher, crossValidate, evaluate } from "./evaluate.js"
import { DEFAULT_DIR, loadCorpus, loadQrels, loadQueries } from "./toollens.js"

const corpus = loadCorpus(`${DEFAULT_DIR}corpus.jsonl`)
const queries = loadQueries(`${DEFAULT_DIR}train.queries.jsonl`)
const qrels = loadQrels(`${DEFAULT_DIR}train.qrels.tsv`)
const mode = process.argv[2] ?? "zs"
const start = JSON.parse(process.argv[3] ?? "{}") as Record<string, unknown>
const step = Number(process.argv[4] ?? 1)
const sub = queries.filter((_, i) => i % step === 0)

type Path = string[]
const get = (o: Record<string, unknown>, p: Path): number => {
  let x: unknown = o
  for (const k of p) x = (x as Record<string, unknown> | undefined)?.[k]
  return x as number
}
const set = (o: Record<string, unknown>, p: Path, v: number): Record<string, unknown> => {
  const c = structuredClone(o)
  let x = c
  for (const k of p.slice(0, -1)) {
    x[k] ??= {}
    x = x[k] as Record<string, unknown>
  }
  x[p.at(-1)!] = v
  return c
}
const run = (o: Record<string, unknown>): number => {
  const m =
    mode === "zs"
      ? evaluate(buildSearcher(corpus, new Map(), o as SearcherOptions), corpus, sub, qrels).result()
      : crossValidate(corpus, sub, qrels, 5, o as SearcherOptions)
  return m["N@5"]
}
const paths: Path[] = (process.env.PATHS ?? "")
  .split(",")
  .filter(Boolean)
  .map((s) => s.split("."))
let best = start
let bestScore = run(best)
console.log(bestScore.toFixed(2), JSON.stringify(best))
for (let pass = 0; pass < Number(process.env.PASSES ?? 2); pass++) {
  for (const p of paths) {
    const cur = get(best, p) ?? 1
    const isB = p.includes("b") || p.at(-1) === "weight"
    const cands = isB
      ? [cur - 0.2, cur - 0.1, cur + 0.1, cur + 0.2].filter((v) => v >= 0 && v <= 1)
      : [cur * 0.5, cur * 0.75, cur * 1.33, cur * 2]
    for (const v of cands) {
      const o = set(best, p, Math.round(v * 1000) / 1000)
      const s = run(o)
      if (s > bestScore + 0.02) {
        bestScore = s
        best = o
        console.log(bestScore.toFixed(2), JSON.stringify(best))
      }
    }
  }
}
console.log("BEST", bestScore.toFixed(2), JSON.stringify(best))
