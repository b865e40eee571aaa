/**
 * Evaluation helpers shared by the quality benchmark, the tuner and the tests: a searcher over a
 * corpus with examples, metrics over queries, K-fold cross-validation.
 */
import { Searcher, type SearcherOptions, ToolIndex } from "../src/index.js"
import type { Engine } from "./competitors.js"
import { type Corpus, foldOf, MetricAccumulator, type Metrics, type Query } from "./toollens.js"

/** Builds a searcher over the corpus with the given examples (corpus id → intents). */
export function buildSearcher(
  corpus: Corpus,
  examples: ReadonlyMap<string, readonly string[]>,
  options: SearcherOptions = {},
): Searcher {
  const index = new ToolIndex()
  const searcher = new Searcher(index, options)
  for (const [cid, tool] of corpus.tools) {
    index.register({ ...tool, intents: [...(examples.get(cid) ?? [])] })
  }
  return searcher
}

/** Example intents from queries + qrels: every query attached to each of its gold tools. */
export function examplesOf(queries: readonly Query[], qrels: ReadonlyMap<string, readonly string[]>) {
  const out = new Map<string, string[]>()
  for (const q of queries) {
    for (const cid of qrels.get(q.id) ?? []) {
      const list = out.get(cid) ?? []
      list.push(q.text)
      out.set(cid, list)
    }
  }
  return out
}

export function evaluate(
  searcher: Searcher,
  corpus: Corpus,
  queries: readonly Query[],
  qrels: ReadonlyMap<string, readonly string[]>,
  acc = new MetricAccumulator(),
): MetricAccumulator {
  for (const q of queries) {
    const gold = qrels.get(q.id)
    if (gold === undefined || gold.length === 0) continue
    const ranked = searcher.search(q.text, { limit: 5 }).hits.map((h) => corpus.corpusIdOf.get(h.id)!)
    acc.add(ranked, gold)
  }
  return acc
}

/** K-fold CV with examples: fold i is evaluated with the other folds' queries as examples. */
export function crossValidate(
  corpus: Corpus,
  queries: readonly Query[],
  qrels: ReadonlyMap<string, readonly string[]>,
  k: number,
  options: SearcherOptions = {},
): Metrics {
  const acc = new MetricAccumulator()
  for (let f = 0; f < k; f++) {
    const train = queries.filter((q) => foldOf(q.id, k) !== f)
    const test = queries.filter((q) => foldOf(q.id, k) === f)
    const searcher = buildSearcher(corpus, examplesOf(train, qrels), options)
    evaluate(searcher, corpus, test, qrels, acc)
  }
  return acc.result()
}

/** Zero-shot metrics of another engine (one text field per tool: the corpus' raw text). */
export async function evaluateEngine(
  engine: Engine,
  corpus: Corpus,
  queries: readonly Query[],
  qrels: ReadonlyMap<string, readonly string[]>,
): Promise<Metrics> {
  await engine.build([...corpus.raw].map(([id, text]) => ({ id, text })))
  const acc = new MetricAccumulator()
  for (const q of queries) {
    const gold = qrels.get(q.id)
    if (gold === undefined || gold.length === 0) continue
    acc.add(await engine.search(q.text, 5), gold)
  }
  return acc.result()
}
