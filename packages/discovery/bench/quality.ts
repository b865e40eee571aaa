/**
 * Retrieval quality on ToolLens (COLT metrics).
 *
 *   pnpm --filter @toolplane/discovery bench:quality -- --corpus F --queries F --qrels F \
 *     [--examples-queries F --examples-qrels F] [--cv K] [--options JSON] [--json]
 *
 * Zero-shot: the corpus only. With examples: the example queries are attached as intents to
 * their gold tools. --cv K: K-fold cross-validation inside --queries/--qrels (zero-shot is
 * evaluated on every query; with examples, each fold is evaluated with the other folds'
 * queries as examples). Without flags, the ToolLens training split in ../shared is used with --cv 5.
 */
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { Searcher, type SearcherOptions, ToolIndex } from "../src/index.js"
import {
  type Corpus,
  DEFAULT_DIR,
  foldOf,
  formatMetrics,
  loadCorpus,
  loadQrels,
  loadQueries,
  MetricAccumulator,
  type Metrics,
  missing,
  type Query,
} from "./toollens.js"

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

function parseArgs(argv: string[]): Record<string, string | true> {
  const out: Record<string, string | true> = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === "--") continue
    if (!a.startsWith("--")) continue
    const next = argv[i + 1]
    if (next !== undefined && !next.startsWith("--")) {
      out[a.slice(2)] = next
      i++
    } else out[a.slice(2)] = true
  }
  return out
}

function main(): void {
  const args = parseArgs(process.argv.slice(2))
  const str = (k: string) => (typeof args[k] === "string" ? (args[k] as string) : undefined)
  // pnpm runs scripts in the package folder: resolve paths against where the command was typed
  const base = process.env.INIT_CWD ?? process.cwd()
  const file = (k: string) => (str(k) === undefined ? undefined : resolve(base, str(k)!))
  const defaults = str("corpus") === undefined && str("queries") === undefined
  const corpusFile = file("corpus") ?? `${DEFAULT_DIR}corpus.jsonl`
  const queriesFile = file("queries") ?? `${DEFAULT_DIR}train.queries.jsonl`
  const qrelsFile = file("qrels") ?? `${DEFAULT_DIR}train.qrels.tsv`
  const exQueriesFile = file("examples-queries")
  const exQrelsFile = file("examples-qrels")
  const cv =
    str("cv") !== undefined ? Number(str("cv")) : defaults && exQueriesFile === undefined ? 5 : undefined
  const json = args.json === true
  if ((exQueriesFile === undefined) !== (exQrelsFile === undefined)) {
    console.error("error: --examples-queries and --examples-qrels go together")
    process.exit(2)
  }
  if (cv !== undefined && (!Number.isInteger(cv) || cv < 2)) {
    console.error("error: --cv needs an integer >= 2")
    process.exit(2)
  }
  const absent = missing(corpusFile, queriesFile, qrelsFile, exQueriesFile, exQrelsFile)
  if (absent.length > 0) {
    console.error(
      `ToolLens files are absent, nothing to evaluate. Missing:\n${absent.map((f) => `  ${f}`).join("\n")}`,
    )
    console.error(
      "Pass --corpus F --queries F --qrels F (BEIR format, see ../shared/bench/toollens/README.md).",
    )
    process.exit(json ? 0 : 1)
  }
  let options: SearcherOptions = {}
  if (str("options") !== undefined) options = JSON.parse(str("options")!) as SearcherOptions

  const corpus = loadCorpus(corpusFile)
  const queries = loadQueries(queriesFile)
  const qrels = loadQrels(qrelsFile)
  const results: Record<string, Metrics> = {}
  const t0 = performance.now()

  results["zero-shot"] = evaluate(buildSearcher(corpus, new Map(), options), corpus, queries, qrels).result()
  if (exQueriesFile !== undefined && exQrelsFile !== undefined) {
    const examples = examplesOf(loadQueries(exQueriesFile), loadQrels(exQrelsFile))
    results["with examples"] = evaluate(
      buildSearcher(corpus, examples, options),
      corpus,
      queries,
      qrels,
    ).result()
  }
  if (cv !== undefined)
    results[`with examples, ${cv}-fold CV`] = crossValidate(corpus, queries, qrels, cv, options)
  const seconds = (performance.now() - t0) / 1000

  if (json) {
    console.log(
      JSON.stringify(
        { corpus: corpusFile, queries: queriesFile, tools: corpus.tools.size, results, seconds },
        null,
        2,
      ),
    )
    return
  }
  console.log(`ToolLens quality: ${corpus.tools.size} tools, ${queries.length} queries (${queriesFile})`)
  for (const [label, m] of Object.entries(results)) console.log(formatMetrics(label, m))
  console.log(`(${seconds.toFixed(1)} s)`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main()
