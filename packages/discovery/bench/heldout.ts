/**
 * The held-out check of the tuning: N@5 zero-shot of each preset (and of wink-bm25-text-search and a
 * plain BM25) on the queries of fold 4 of 5 of ToolLens' training split and of MetaTool, which
 * bench/tune.ts never sees.
 *
 *   tsx bench/heldout.ts
 */
import type { SearcherOptions } from "../src/index.js"
import { plainBm25Engine, winkEngine } from "./competitors.js"
import { loadMetaTool, loadToolLens } from "./datasets.js"
import { buildSearcher, evaluate, evaluateEngine } from "./evaluate.js"
import { DEFAULT_DIR, foldOf } from "./toollens.js"

const datasets = [
  loadToolLens(
    `${DEFAULT_DIR}corpus.jsonl`,
    `${DEFAULT_DIR}train.queries.jsonl`,
    `${DEFAULT_DIR}train.qrels.tsv`,
  ),
  loadMetaTool(),
].map((d) => ({ ...d, queries: d.queries.filter((q) => foldOf(q.id, 5) === 4) }))
console.log(
  "| corpus (held-out fold) | queries | default | toollens preset | wink-bm25-text-search | plain BM25 |",
)
console.log("| --- | --- | --- | --- | --- | --- |")
for (const d of datasets) {
  const ours = (o: SearcherOptions) =>
    evaluate(buildSearcher(d.corpus, new Map(), o), d.corpus, d.queries, d.qrels).result()["N@5"]
  const row = [
    ours({}),
    ours({ preset: "toollens" }),
    (await evaluateEngine(winkEngine(), d.corpus, d.queries, d.qrels))["N@5"],
    (await evaluateEngine(plainBm25Engine(), d.corpus, d.queries, d.qrels))["N@5"],
  ]
  console.log(`| ${d.name} | ${d.queries.length} | ${row.map((x) => x.toFixed(2)).join(" | ")} |`)
}
