/**
 * Speed benchmark: index build time and query latency (p50, p99) at 1k and 10k tools, ours vs
 * minisearch, flexsearch, @orama/orama and wink-bm25-text-search on the same corpus, plus each
 * library's N@5 on the ToolLens training split (zero-shot, and with the training queries as examples:
 * cross-validated; the other libraries use examples by appending them to documents).
 *
 *   pnpm --filter @toolplane/discovery bench [-- --quick] [--json] [--baseline DIR]
 *
 * --no-competitors: ours only. --no-quality: no N@5 columns. BENCH_SIZES=1000,10000 (catalog sizes),
 * BENCH_ROUNDS=7 (rounds of the baseline comparison).
 * --baseline DIR: another version of this package's sources (DIR/src/index.ts, e.g. main's, extracted
 * with `git archive main packages/discovery/src`, with a `node_modules` link to this package's): its
 * Searcher is timed against ours on the same tools and queries, in interleaved rounds, and the
 * median ratio of the per-round p50s is printed.
 *
 * Corpus: ToolLens tools (../shared/bench/toollens) replicated under varied namespaces up to the
 * size; without ToolLens, a deterministic synthetic corpus (seeded RNG) and no quality columns.
 */
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { type SearchableTool, Searcher, ToolIndex } from "../src/index.js"
import { COMPETITORS, type Doc, type Engine } from "./competitors.js"
import { buildSearcher, crossValidate, evaluate as evaluateOurs, examplesOf } from "./evaluate.js"
import {
  type Corpus,
  DEFAULT_DIR,
  foldOf,
  loadCorpus,
  loadQrels,
  loadQueries,
  MetricAccumulator,
  missing,
  type Query,
} from "./toollens.js"

const argv = process.argv.slice(2)
const args = new Set(argv)
const BASELINE = argv.includes("--baseline") ? argv[argv.indexOf("--baseline") + 1] : undefined
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const QUICK = args.has("--quick")
const JSON_OUT = args.has("--json")
const SIZES = (process.env.BENCH_SIZES ?? "1000,10000").split(",").map(Number)
const NO_COMPETITORS = args.has("--no-competitors")
const QUERY_BUDGET_MS = QUICK ? 400 : 1500
const MAX_QUERIES = QUICK ? 300 : 2000
const NO_QUALITY = args.has("--no-quality")
const QUALITY_STEP = QUICK ? 16 : 4 // competitors' quality on every STEP-th training query

function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const SYN_WORDS =
  "account address alert analytics archive asset audit balance bank batch billing book booking budget cache calendar campaign card cart catalog channel chart city claim client cloud code comment company config contact container content contract country coupon course currency customer dashboard data database date deal delivery deploy device discount document domain download email employee event expense export feed file flight folder forecast game geocode group hotel image incident inventory invoice issue job language lead league location log map match media meeting message metric movie music news note order package page payment person photo playlist policy post price product profile project quote rate recipe record region release report repository request reservation review route sale schedule score search secret server session shipment song sport stock store stream subscription task team ticket timezone token track trade translation trip user vehicle video weather webhook".split(
    " ",
  )
const SYN_VERBS =
  "get list create update delete search find fetch send post upload convert calculate validate track".split(
    " ",
  )

function syntheticBase(n: number): { tools: SearchableTool[]; queries: string[] } {
  const r = rng(42)
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!
  const tools: SearchableTool[] = []
  for (let i = 0; i < n; i++) {
    const verb = pick(SYN_VERBS)
    const noun = pick(SYN_WORDS)
    const ns = `${pick(SYN_WORDS)}_api`
    const params = Object.fromEntries(
      Array.from({ length: 1 + Math.floor(r() * 3) }, () => [
        `${pick(SYN_WORDS)}_id`,
        { type: "string", description: `the ${pick(SYN_WORDS)} ${pick(SYN_WORDS)}` },
      ]),
    )
    tools.push({
      id: `${ns}/${verb}_${noun}_${i}`,
      namespace: ns,
      name: `${verb}_${noun}`,
      description: `${verb} ${noun} ${Array.from({ length: 8 }, () => pick(SYN_WORDS)).join(" ")}`,
      inputSchema: { type: "object", properties: params },
    })
  }
  const queries = Array.from(
    { length: 500 },
    () => `${pick(SYN_VERBS)} the ${pick(SYN_WORDS)} for my ${pick(SYN_WORDS)} ${pick(SYN_WORDS)}`,
  )
  return { tools, queries }
}

/** Replicates base tools up to `n` under varied namespaces (deterministic). */
function replicate(base: readonly SearchableTool[], n: number): SearchableTool[] {
  const out: SearchableTool[] = []
  for (let i = 0; i < n; i++) {
    const t = base[i % base.length]!
    const r = Math.floor(i / base.length)
    if (r === 0) out.push(t)
    else out.push({ ...t, id: `${t.namespace}_${r}/${t.id}`, namespace: `${t.namespace}_${r}`, intents: [] })
  }
  return out
}

function toText(t: SearchableTool): string {
  const props = Object.entries(
    (t.inputSchema as { properties?: Record<string, { description?: string }> }).properties ?? {},
  )
    .map(([k, v]) => `${k} ${v.description ?? ""}`)
    .join(" ")
  return [t.category, t.title, t.namespace, t.name, t.description, props].filter(Boolean).join(" ")
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN
}

interface Row {
  library: string
  tools: number
  buildMs: number
  p50: number
  p99: number
  queries: number
}

async function timeQueries(
  search: (q: string) => unknown,
  queries: readonly string[],
): Promise<{ p50: number; p99: number; n: number }> {
  // warm-up
  for (let i = 0; i < Math.min(20, queries.length); i++) await search(queries[i]!)
  const times: number[] = []
  const start = performance.now()
  for (let i = 0; i < MAX_QUERIES; i++) {
    const q = queries[i % queries.length]!
    const t0 = performance.now()
    await search(q)
    times.push(performance.now() - t0)
    if (performance.now() - start > QUERY_BUDGET_MS && times.length >= 30) break
  }
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), n: times.length }
}

type SearchFn = (q: string) => unknown

/**
 * Ours against a baseline on the same queries: `ROUNDS` interleaved rounds (the order alternates),
 * each timing every query once per side; returns the median over rounds of each side's p50 and of
 * the per-round ratio ours/baseline.
 */
function compareRounds(ours: SearchFn, baseline: SearchFn, queries: readonly string[]) {
  const sample = queries.slice(0, Math.min(queries.length, QUICK ? 200 : 500))
  for (const q of sample.slice(0, 20)) {
    ours(q)
    baseline(q)
  }
  const oursP50: number[] = []
  const baseP50: number[] = []
  const ratios: number[] = []
  const time = (fn: SearchFn): number => {
    const times: number[] = []
    for (const q of sample) {
      const t0 = performance.now()
      fn(q)
      times.push(performance.now() - t0)
    }
    return percentile(times, 0.5)
  }
  for (let r = 0; r < ROUNDS; r++) {
    const [a, b] = r % 2 === 0 ? [time(ours), time(baseline)] : [0, 0]
    const [d, c] = r % 2 === 1 ? [time(baseline), time(ours)] : [b, a]
    oursP50.push(r % 2 === 0 ? a : c)
    baseP50.push(r % 2 === 0 ? b : d)
    ratios.push(oursP50.at(-1)! / baseP50.at(-1)!)
  }
  const median = (xs: number[]) => percentile(xs, 0.5)
  return { ours: median(oursP50), baseline: median(baseP50), ratio: median(ratios) }
}

async function competitorQuality(
  make: () => Engine,
  corpus: Corpus,
  queries: readonly Query[],
  qrels: ReadonlyMap<string, readonly string[]>,
): Promise<{ zeroShot: number; examples: number }> {
  const docs = (extra: ReadonlyMap<string, readonly string[]>): Doc[] =>
    [...corpus.raw].map(([id, text]) => ({ id, text: [text, ...(extra.get(id) ?? [])].join("\n") }))
  const sample = queries.filter((_, i) => i % QUALITY_STEP === 0)
  const zs = new MetricAccumulator()
  const e = make()
  await e.build(docs(new Map()))
  for (const q of sample) zs.add(await e.search(q.text, 5), qrels.get(q.id)!)
  const ex = new MetricAccumulator()
  for (let f = 0; f < 5; f++) {
    const train = queries.filter((q) => foldOf(q.id, 5) !== f)
    const engine = make()
    await engine.build(docs(examplesOf(train, qrels)))
    for (const q of sample)
      if (foldOf(q.id, 5) === f) ex.add(await engine.search(q.text, 5), qrels.get(q.id)!)
  }
  return { zeroShot: zs.result()["N@5"], examples: ex.result()["N@5"] }
}

async function main(): Promise<void> {
  const t0 = performance.now()
  const files = [
    `${DEFAULT_DIR}corpus.jsonl`,
    `${DEFAULT_DIR}train.queries.jsonl`,
    `${DEFAULT_DIR}train.qrels.tsv`,
  ]
  const haveToolLens = missing(...files).length === 0
  let base: SearchableTool[]
  let queryTexts: string[]
  let corpus: Corpus | undefined
  let queries: Query[] = []
  let qrels = new Map<string, string[]>()
  if (haveToolLens) {
    corpus = loadCorpus(files[0]!)
    queries = loadQueries(files[1]!)
    qrels = loadQrels(files[2]!)
    const examples = examplesOf(queries, qrels)
    base = [...corpus.tools].map(([cid, t]) => ({ ...t, intents: examples.get(cid) ?? [] }))
    queryTexts = queries.filter((_, i) => i % 7 === 0).map((q) => q.text)
    console.log(
      `corpus: ToolLens (${base.length} tools) replicated under varied namespaces; ${queryTexts.length} query texts`,
    )
  } else {
    const syn = syntheticBase(500)
    base = syn.tools
    queryTexts = syn.queries
    console.log(
      "corpus: ToolLens is absent (../shared/bench/toollens): deterministic synthetic corpus (seeded RNG), no quality columns",
    )
  }

  const rows: Row[] = []
  const comparisons: { label: string; tools: number; ours: number; baseline: number; ratio: number }[] = []
  const Base =
    BASELINE === undefined
      ? undefined
      : ((await import(
          pathToFileURL(resolve(process.env.INIT_CWD ?? process.cwd(), BASELINE, "src/index.ts")).href
        )) as {
          Searcher: new (index: unknown) => { search(q: string, o: { limit: number }): unknown }
          ToolIndex: new (tools: Iterable<SearchableTool>) => unknown
        })
  for (const n of SIZES) {
    const tools = replicate(base, n)
    const noEx = tools.map(({ intents: _, ...t }) => t)
    // ours, without examples
    {
      const b0 = performance.now()
      const s = new Searcher(new ToolIndex(noEx))
      s.search("warm up the caches")
      const buildMs = performance.now() - b0
      const r = await timeQueries((q) => s.search(q, { limit: 5 }), queryTexts)
      rows.push({ library: "@toolplane/discovery", tools: n, buildMs, p50: r.p50, p99: r.p99, queries: r.n })
      if (Base !== undefined) {
        const b = new Base.Searcher(new Base.ToolIndex(noEx))
        const c = compareRounds(
          (q) => s.search(q, { limit: 5 }),
          (q) => b.search(q, { limit: 5 }),
          queryTexts,
        )
        comparisons.push({ label: "zero-shot", tools: n, ...c })
      }
    }
    // ours, with the ToolLens training queries as examples
    if (haveToolLens) {
      const b0 = performance.now()
      const s = new Searcher(new ToolIndex(tools))
      s.search("warm up the caches")
      const buildMs = performance.now() - b0
      const r = await timeQueries((q) => s.search(q, { limit: 5 }), queryTexts)
      const exCount = new Set(tools.flatMap((t) => t.intents ?? [])).size
      if (Base !== undefined) {
        const b = new Base.Searcher(new Base.ToolIndex(tools))
        const c = compareRounds(
          (q) => s.search(q, { limit: 5 }),
          (q) => b.search(q, { limit: 5 }),
          queryTexts,
        )
        comparisons.push({ label: `${exCount} examples`, tools: n, ...c })
      }
      rows.push({
        library: `@toolplane/discovery + ${exCount} examples`,
        tools: n,
        buildMs,
        p50: r.p50,
        p99: r.p99,
        queries: r.n,
      })
    }
    const docs = noEx.map((t) => ({ id: t.id, text: toText(t) }))
    for (const make of NO_COMPETITORS ? [] : COMPETITORS) {
      const e = make()
      const b0 = performance.now()
      await e.build(docs)
      const buildMs = performance.now() - b0
      const r = await timeQueries((q) => e.search(q, 5), queryTexts)
      rows.push({ library: e.name, tools: n, buildMs, p50: r.p50, p99: r.p99, queries: r.n })
    }
  }

  const quality = new Map<string, { zeroShot: number; examples: number }>()
  if (haveToolLens && corpus !== undefined && !NO_QUALITY) {
    const zs = evaluateOurs(buildSearcher(corpus, new Map()), corpus, queries, qrels).result()["N@5"]
    const cv = crossValidate(corpus, queries, qrels, 5)["N@5"]
    quality.set("@toolplane/discovery", { zeroShot: zs, examples: cv })
    for (const make of COMPETITORS)
      quality.set(make().name, await competitorQuality(make, corpus, queries, qrels))
  }

  const seconds = (performance.now() - t0) / 1000
  if (JSON_OUT) {
    console.log(
      JSON.stringify(
        { toollens: haveToolLens, rows, comparisons, quality: Object.fromEntries(quality), seconds },
        null,
        2,
      ),
    )
    return
  }
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(3))
  console.log(
    "\n| library | tools | build ms | query p50 ms | query p99 ms | N@5 zero-shot | N@5 with examples |",
  )
  console.log("| --- | --- | --- | --- | --- | --- | --- |")
  for (const r of rows) {
    const q = quality.get(r.library.split(" + ")[0]!)
    const qs = q === undefined ? "n/a | n/a" : `${q.zeroShot.toFixed(2)} | ${q.examples.toFixed(2)}`
    console.log(`| ${r.library} | ${r.tools} | ${f(r.buildMs)} | ${f(r.p50)} | ${f(r.p99)} | ${qs} |`)
  }
  if (comparisons.length > 0) {
    console.log(`\nOurs against the baseline in ${BASELINE} (${ROUNDS} interleaved rounds, medians):\n`)
    console.log("| catalog | tools | ours p50 ms | baseline p50 ms | ratio ours/baseline |")
    console.log("| --- | --- | --- | --- | --- |")
    for (const c of comparisons)
      console.log(`| ${c.label} | ${c.tools} | ${f(c.ours)} | ${f(c.baseline)} | ${c.ratio.toFixed(2)} |`)
  }
  console.log(
    `\nN@5: ToolLens training split; ours: zero-shot on all ${queries.length} queries, examples by 5-fold CV; others: every ${QUALITY_STEP}th query, examples appended to documents (5-fold CV). ${seconds.toFixed(0)} s in all.`,
  )
}

await main()
