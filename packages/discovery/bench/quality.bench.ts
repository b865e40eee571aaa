/**
 * Retrieval quality (COLT metrics: R@K, NDCG@K, completeness C@K) on a tool catalog.
 *
 *   pnpm --filter @toolplane/discovery bench:quality -- [--format toollens|metatool|jsonl] ...
 *
 * --format toollens (the default): --corpus F --queries F --qrels F (BEIR files)
 *   [--examples-queries F --examples-qrels F]. Without files, the ToolLens training split in
 *   ../shared with --cv 5.
 * --format metatool: [--dir D] (plugin_des.json, all_clean_data.csv, multi_tool_query_golden.json;
 *   default ../shared/bench/metatool), with --cv 5 unless given.
 * --format jsonl: --tools F --queries F (one tool per line `{ id, name?, description?, inputSchema?, ... }`,
 *   one query per line `{ query, tools: [id, ...] }`; see bench/datasets.ts).
 *
 * Every format: zero-shot on every query (the catalog only); with examples, the example queries are
 * attached as intents to their gold tools. --cv K: K-fold cross-validation inside the queries (each
 * fold evaluated with the other folds' queries as examples). --baselines: also a plain BM25 and
 * wink-bm25-text-search (defaults, one text field per tool), zero-shot, in the same run.
 * --options JSON / --preset NAME: searcher options. --json: machine-readable output.
 */
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import type { SearcherOptions } from "../src/index.js"
import { plainBm25Engine, winkEngine } from "./competitors.js"
import { loadJsonl, loadMetaTool, loadToolLens, METATOOL_DIR } from "./datasets.js"
import { buildSearcher, crossValidate, evaluate, evaluateEngine, examplesOf } from "./evaluate.js"
import { DEFAULT_DIR, formatMetrics, loadQrels, loadQueries, type Metrics, missing } from "./toollens.js"

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

function fail(message: string, code = 2): never {
  console.error(`error: ${message}`)
  process.exit(code)
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  const str = (k: string) => (typeof args[k] === "string" ? (args[k] as string) : undefined)
  // pnpm runs scripts in the package folder: resolve paths against where the command was typed
  const base = process.env.INIT_CWD ?? process.cwd()
  const file = (k: string) => (str(k) === undefined ? undefined : resolve(base, str(k)!))
  const format = str("format") ?? "toollens"
  if (!["toollens", "metatool", "jsonl"].includes(format))
    fail(`--format must be toollens, metatool or jsonl, got ${format}`)
  const json = args.json === true
  const exQueriesFile = file("examples-queries")
  const exQrelsFile = file("examples-qrels")
  if ((exQueriesFile === undefined) !== (exQrelsFile === undefined))
    fail("--examples-queries and --examples-qrels go together")
  let files: (string | undefined)[]
  let defaults: boolean
  if (format === "toollens") {
    defaults = str("corpus") === undefined && str("queries") === undefined
    files = [
      file("corpus") ?? `${DEFAULT_DIR}corpus.jsonl`,
      file("queries") ?? `${DEFAULT_DIR}train.queries.jsonl`,
      file("qrels") ?? `${DEFAULT_DIR}train.qrels.tsv`,
    ]
  } else if (format === "metatool") {
    defaults = true
    const dir = file("dir") ?? METATOOL_DIR
    files = [`${dir}/plugin_des.json`, `${dir}/all_clean_data.csv`]
  } else {
    defaults = false
    if (str("tools") === undefined || str("queries") === undefined)
      fail("--format jsonl needs --tools F --queries F")
    files = [file("tools"), file("queries")]
  }
  const cv =
    str("cv") !== undefined ? Number(str("cv")) : defaults && exQueriesFile === undefined ? 5 : undefined
  if (cv !== undefined && (!Number.isInteger(cv) || cv < 2)) fail("--cv needs an integer >= 2")
  const absent = missing(...files, exQueriesFile, exQrelsFile)
  if (absent.length > 0) {
    console.error(
      `Benchmark files are absent, nothing to evaluate. Missing:\n${absent.map((f) => `  ${f}`).join("\n")}`,
    )
    console.error(
      "Pass --corpus F --queries F --qrels F (BEIR format, see ../shared/bench/toollens/README.md), --format metatool --dir D, or --format jsonl --tools F --queries F.",
    )
    process.exit(json ? 0 : 1)
  }
  let options: SearcherOptions = {}
  if (str("options") !== undefined) options = JSON.parse(str("options")!) as SearcherOptions
  if (str("preset") !== undefined)
    options = { ...options, preset: str("preset") as SearcherOptions["preset"] }

  const data =
    format === "toollens"
      ? loadToolLens(files[0]!, files[1]!, files[2]!)
      : format === "metatool"
        ? loadMetaTool(file("dir") ?? METATOOL_DIR)
        : loadJsonl(files[0]!, files[1]!)
  const { corpus, queries, qrels } = data
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
  if (args.baselines === true)
    for (const engine of [plainBm25Engine(), winkEngine()])
      results[`${engine.name}, zero-shot`] = await evaluateEngine(engine, corpus, queries, qrels)
  const seconds = (performance.now() - t0) / 1000

  if (json) {
    console.log(
      JSON.stringify(
        { format, corpus: files[0], queries: files[1], tools: corpus.tools.size, results, seconds },
        null,
        2,
      ),
    )
    return
  }
  console.log(`${data.name} quality: ${corpus.tools.size} tools, ${queries.length} queries (${files[1]})`)
  for (const [label, m] of Object.entries(results)) console.log(formatMetrics(label, m))
  console.log(`(${seconds.toFixed(1)} s)`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) void main()
