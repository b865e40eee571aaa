import type { CursorCodec } from "@toolplane/foundation"
import { Bm25fEngine, ScoreAccumulator } from "./bm25f.js"
import { type DocCaps, type DocLevel, describeTool, type ToolDoc } from "./docs.js"
import type { Embedder } from "./embedder.js"
import { SearchError } from "./errors.js"
import {
  DEFAULT_VOTING,
  ExampleIndex,
  type ExampleVotingOptions,
  type ResolvedVotingOptions,
} from "./examples.js"
import { compareHits, cosine, reciprocalRankFusion, type ScoredId, weightedScoreFusion } from "./fusion.js"
import {
  checkCodec,
  decodeSearchCursor,
  defaultSearchCodec,
  SEARCH_CURSOR_PURPOSE,
  type SearchCursorScope,
  SIMILAR_CURSOR_PURPOSE,
  withNextCursor,
} from "./searchCursor.js"
import { Analyzer, type AnalyzerOptions } from "./tokenize.js"
import { FIELD_NAMES, type FieldName, type SearchableTool, toolFieldTexts } from "./tool.js"
import { type ToolChangeEvent, ToolIndex } from "./tool-index.js"
import { selectTop } from "./topk.js"
import { Vocabulary } from "./vocabulary.js"

/**
 * Tuned default BM25F field weights (cross-validated on the ToolLens training split).
 *
 * @since 0.1.0
 */
export const DEFAULT_FIELD_WEIGHTS: Readonly<Record<FieldName, number>> = {
  name: 0.25,
  namespace: 0.125,
  title: 1,
  description: 0.188,
  paramNames: 10.64,
  paramDescriptions: 7.98,
  tags: 0.5,
  category: 0.665,
  output: 0.125,
  intents: 0.5,
}

/**
 * Tuned default BM25F length normalisation per field.
 *
 * @since 0.1.0
 */
export const DEFAULT_FIELD_B: Readonly<Record<FieldName, number>> = {
  name: 0.7,
  namespace: 0.5,
  title: 0.6,
  description: 0.45,
  paramNames: 0.25,
  paramDescriptions: 0.25,
  tags: 0.5,
  category: 0.5,
  output: 0.75,
  intents: 0.75,
}

/**
 * Default analyzer of tool fields and queries: English stop words, Porter stemming, aliases, and
 * single-character tokens dropped.
 *
 * @since 0.1.0
 */
export const DEFAULT_ANALYZER: AnalyzerOptions = { minTokenLength: 2 }

/**
 * Tuned default BM25F k1.
 *
 * @since 0.1.0
 */
export const DEFAULT_K1 = 0.4

/**
 * Tuned default weight of example votes when fused with BM25F (both max-normalised):
 * `score = (1 − w) · bm25f / max + w · votes / max`.
 *
 * @since 0.1.0
 */
export const DEFAULT_EXAMPLE_WEIGHT = 0.9

/**
 * Example-driven ranking options: nearest-example voting fused with BM25F.
 *
 * @since 0.1.0
 */
export interface ExampleRankingOptions extends ExampleVotingOptions {
  /** Weight of the (max-normalised) votes against the (max-normalised) BM25F score, in [0, 1]. */
  readonly weight?: number
  /**
   * Analyzer of example queries (and of the query, for voting). Default
   * {@link DEFAULT_EXAMPLE_ANALYZER}: no stop words and no stemming, because the wording of
   * example queries (function words included) tells intents apart.
   */
  readonly analyzer?: AnalyzerOptions
  /** Query weight of word-pair terms in example queries (0 = no pair terms). */
  readonly phrases?: number
}

/**
 * Default analyzer of example queries: keeps stop words, no stemming.
 *
 * @since 0.1.0
 */
export const DEFAULT_EXAMPLE_ANALYZER: AnalyzerOptions = { stopWords: false, stem: false }

/**
 * Hybrid (lexical + dense) options: off unless an embedder is given. Used by
 * {@link Searcher.searchAsync}.
 *
 * @since 0.1.0
 */
export interface HybridOptions {
  readonly embedder: Embedder
  /** `"rrf"` (reciprocal rank fusion, default) or `"weighted"` (max-normalised score fusion). */
  readonly fusion?: "rrf" | "weighted"
  /** Weight of the dense list (the lexical list has weight 1 − weight for "weighted", 1 for "rrf"). Default 0.5. */
  readonly weight?: number
  /** RRF k. Default 60. */
  readonly rrfK?: number
  /** Candidates taken from each list before fusion. Default 100. */
  readonly candidates?: number
  /** Text embedded for a tool. Default: title/name, description, parameter names. */
  readonly toolText?: (tool: SearchableTool) => string
}

/**
 * Options of a {@link Searcher}. Every option has a tuned default; no network, no model.
 *
 * @since 0.1.0
 */
export interface SearcherOptions {
  /** BM25F k1. */
  readonly k1?: number
  /** BM25F field weights (merged over {@link DEFAULT_FIELD_WEIGHTS}). */
  readonly weights?: Partial<Record<FieldName, number>>
  /** BM25F b: one value for all fields, or per field (merged over {@link DEFAULT_FIELD_B}). */
  readonly b?: number | Partial<Record<FieldName, number>>
  /** Tokenizer: stemming, stop words, minimum token length. */
  readonly analyzer?: AnalyzerOptions
  /** Nearest-example voting over tools' intent examples; `false` disables it. */
  readonly examples?: ExampleRankingOptions | false
  /** Hybrid search with user-provided embeddings (off by default). */
  readonly hybrid?: HybridOptions
  /**
   * Query-coverage re-ranking of the lexical scores (for multi-tool queries): the top `depth`
   * tools are re-ranked greedily, each pick discounting the query terms it matches by
   * `(1 − discount)` for the next picks, so that later hits cover other parts of the query.
   * `discount: 0` disables it.
   */
  readonly coverage?: { readonly discount?: number; readonly depth?: number }
  /**
   * Query weight of word pairs (adjacent terms indexed as phrase terms); `0` disables phrase
   * terms (and does not index them).
   */
  readonly phrases?: number
  /**
   * Signs the `nextCursor` of result pages (see {@link SearchOptions.cursor}). Default: a random key
   * made once per process, so cursors do not survive a restart or cross replicas; give a codec with
   * a shared key (foundation `makeCursorCodec`) when they must.
   */
  readonly codec?: CursorCodec
}

/**
 * Options of a search: filters and pagination.
 *
 * @since 0.1.0
 */
export interface SearchOptions {
  /** Page size (default 10, at most 1000). */
  readonly limit?: number
  /** Hits to skip (default 0). Give either `offset` or `cursor`. */
  readonly offset?: number
  /**
   * The `nextCursor` of a previous page: continues the same query with the same filters (and the
   * same `caller`). Fails with foundation `InvalidCursor` when the cursor was altered, signed with
   * another key or issued for another query, filters or caller, and with `ExpiredCursor` after its
   * time to live. The page size (`limit`) may change between pages.
   */
  readonly cursor?: string
  /** Binds the cursors of this search to a caller (e.g. `ExecutionContext.callerId`). */
  readonly caller?: string
  /** Only tools of this namespace (or of one of these). */
  readonly namespace?: string | readonly string[]
  /** Only tools carrying every one of these tags. */
  readonly tags?: readonly string[]
  /** Only tools of this category (or of one of these). */
  readonly category?: string | readonly string[]
}

/**
 * One search hit.
 *
 * @since 0.1.0
 */
export interface SearchHit {
  readonly id: string
  readonly score: number
}

/**
 * A page of search hits. `total` counts every matching tool (all pages).
 *
 * @since 0.1.0
 */
export interface SearchResult {
  readonly hits: SearchHit[]
  readonly total: number
  readonly offset: number
  readonly limit: number
  /** Offset of the next page, when there is one. */
  readonly nextOffset?: number
  /**
   * Signed cursor of the next page, when there is one (pass it as {@link SearchOptions.cursor}).
   * Encoded on first read, so searches whose caller never reads it do not pay for signing.
   */
  readonly nextCursor?: string
}

interface ToolRecord {
  readonly id: string
  readonly tool: SearchableTool
  readonly intents: readonly string[]
  readonly tags: ReadonlySet<string>
}

const MAX_LIMIT = 1000

/**
 * Searches the tools of a {@link ToolIndex}: BM25F over tool fields, fused with
 * nearest-example voting when tools carry intent examples; optional hybrid fusion with
 * user-provided embeddings. Stays in sync with the index through its change events
 * (incremental updates, no rebuilds). Deterministic: ties are broken by id.
 *
 * @example
 * const index = new ToolIndex()
 * const searcher = new Searcher(index)
 * index.register({ id: "github/create_issue", namespace: "github", name: "create_issue",
 *   description: "Open a new issue", inputSchema: { type: "object" } })
 * searcher.search("open a bug report", { limit: 5 }) // { hits: [{ id: "github/create_issue", score }], total: 1, ... }
 * @since 0.1.0
 */
export class Searcher<T extends SearchableTool = SearchableTool> {
  /** The index searched. */
  readonly index: ToolIndex<T>
  private readonly analyzer: Analyzer
  private readonly exampleAnalyzer: Analyzer | undefined
  private readonly vocab = new Vocabulary()
  private readonly engine: Bm25fEngine
  private readonly examples: ExampleIndex | undefined
  private readonly exampleWeight: number
  private readonly hybrid: HybridOptions | undefined
  private readonly coverageDiscount: number
  private readonly phraseWeight: number
  private readonly examplePhraseWeight: number
  private readonly coverageDepth: number
  private candIndex = new Int32Array(0)
  private readonly records: (ToolRecord | undefined)[] = []
  private readonly slotOf = new Map<string, number>()
  private readonly freeSlots: number[] = []
  private readonly lexical = new ScoreAccumulator()
  private readonly votes = new ScoreAccumulator()
  private readonly fused = new ScoreAccumulator()
  private readonly unsubscribe: () => void
  private readonly slotLookup = (id: string): number | undefined => this.slotOf.get(id)
  private readonly vectors = new Map<string, { text: string; vector: number[] }>()
  private readonly codecOption: CursorCodec | undefined

  constructor(index: ToolIndex<T> = new ToolIndex<T>(), options: SearcherOptions = {}) {
    this.index = index
    this.codecOption = checkCodec(options.codec)
    this.analyzer = new Analyzer(options.analyzer ?? DEFAULT_ANALYZER)
    const k1 = options.k1 ?? DEFAULT_K1
    const weights = { ...DEFAULT_FIELD_WEIGHTS, ...options.weights }
    const b =
      typeof options.b === "number"
        ? Object.fromEntries(FIELD_NAMES.map((f) => [f, options.b as number]))
        : { ...DEFAULT_FIELD_B, ...options.b }
    checkNumber("k1", k1, 0, 100)
    for (const f of FIELD_NAMES) {
      checkNumber(`weights.${f}`, weights[f]!, 0, 1000)
      checkNumber(`b.${f}`, (b as Record<string, number>)[f]!, 0, 1)
    }
    this.engine = new Bm25fEngine({
      k1,
      weights: FIELD_NAMES.map((f) => weights[f]!),
      b: FIELD_NAMES.map((f) => (b as Record<string, number>)[f]!),
    })
    if (options.examples !== false) {
      const ex = options.examples ?? {}
      const voting: ResolvedVotingOptions = {
        neighbors: ex.neighbors ?? DEFAULT_VOTING.neighbors,
        power: ex.power ?? DEFAULT_VOTING.power,
        k1: ex.k1 ?? DEFAULT_VOTING.k1,
        b: ex.b ?? DEFAULT_VOTING.b,
        share: ex.share ?? DEFAULT_VOTING.share,
        prior: ex.prior ?? DEFAULT_VOTING.prior,
        groupWeight: ex.groupWeight ?? DEFAULT_VOTING.groupWeight,
        groups: ex.groups ?? DEFAULT_VOTING.groups,
        groupPower: ex.groupPower ?? DEFAULT_VOTING.groupPower,
        groupK1: ex.groupK1 ?? DEFAULT_VOTING.groupK1,
        groupB: ex.groupB ?? DEFAULT_VOTING.groupB,
      }
      checkNumber("examples.groupWeight", voting.groupWeight, 0, 1)
      checkNumber("examples.groups", voting.groups, 1, 100_000)
      checkNumber("examples.groupPower", voting.groupPower, 0, 100)
      checkNumber("examples.groupK1", voting.groupK1, 0, 100)
      checkNumber("examples.groupB", voting.groupB, 0, 1)
      this.exampleAnalyzer = new Analyzer(ex.analyzer ?? DEFAULT_EXAMPLE_ANALYZER)
      this.examplePhraseWeight = ex.phrases ?? DEFAULT_EXAMPLE_PHRASE_WEIGHT
      checkNumber("examples.phrases", this.examplePhraseWeight, 0, 100)
      checkNumber("examples.prior", voting.prior, 0, 10)
      checkNumber("examples.neighbors", voting.neighbors, 1, 100_000)
      checkNumber("examples.power", voting.power, 0, 100)
      checkNumber("examples.k1", voting.k1, 0, 100)
      checkNumber("examples.b", voting.b, 0, 1)
      checkNumber("examples.share", voting.share, 0, 10)
      this.exampleWeight = ex.weight ?? DEFAULT_EXAMPLE_WEIGHT
      checkNumber("examples.weight", this.exampleWeight, 0, 1)
      this.examples = new ExampleIndex(voting)
    } else {
      this.exampleWeight = 0
      this.exampleAnalyzer = undefined
      this.examplePhraseWeight = 0
    }
    if (options.hybrid !== undefined) {
      if (typeof options.hybrid.embedder?.embed !== "function") {
        throw new SearchError("InvalidOptions", "hybrid.embedder must have an embed(texts) method")
      }
      checkNumber("hybrid.weight", options.hybrid.weight ?? 0.5, 0, 1)
    }
    this.hybrid = options.hybrid
    this.phraseWeight = options.phrases ?? DEFAULT_PHRASE_WEIGHT
    checkNumber("phrases", this.phraseWeight, 0, 100)
    this.coverageDiscount = options.coverage?.discount ?? DEFAULT_COVERAGE.discount
    this.coverageDepth = options.coverage?.depth ?? DEFAULT_COVERAGE.depth
    checkNumber("coverage.discount", this.coverageDiscount, 0, 1)
    checkNumber("coverage.depth", this.coverageDepth, 1, 10_000)
    for (const tool of index.list()) this.add(tool)
    this.unsubscribe = index.subscribe((e) => this.onChange(e))
  }

  /** Number of tools searched. */
  get size(): number {
    return this.slotOf.size
  }

  /** Stops following the index's changes. */
  dispose(): void {
    this.unsubscribe()
  }

  /**
   * Lexical search (BM25F fused with example votes). An empty query (no terms after
   * analysis) lists the matching tools by id. Throws {@link SearchError} on bad options.
   */
  search(query: string, options: SearchOptions = {}): SearchResult {
    const { limit, offset } = this.pageOf(options, SEARCH_CURSOR_PURPOSE, query)
    const accept = this.filterOf(options)
    const q = this.queryTerms(query)
    const eq = this.exampleQuery(query)
    if (q.tokens === 0 && (eq === undefined || eq.tokens === 0))
      return this.withCursor(this.browse(limit, offset, accept), SEARCH_CURSOR_PURPOSE, query, options)
    const acc = this.score(q, eq, accept)
    const page = this.page(acc, limit, offset, accept)
    acc.reset()
    return this.withCursor(page, SEARCH_CURSOR_PURPOSE, query, options)
  }

  /**
   * Tools similar to a registered tool (its name, title, description, tags and category used as
   * the query; the tool itself excluded). Throws {@link SearchError} for an unknown id.
   */
  similar(toolId: string, options: SearchOptions = {}): SearchResult {
    const self = this.slotOf.get(toolId)
    if (self === undefined) throw new SearchError("UnknownTool", `similar(): no tool with id "${toolId}"`)
    const { limit, offset } = this.pageOf(options, SIMILAR_CURSOR_PURPOSE, toolId)
    const filter = this.filterOf(options)
    const accept = (s: number) => s !== self && (filter === undefined || filter(s))
    const tool = this.records[self]!.tool
    const text = [
      tool.name,
      tool.namespace,
      tool.title,
      tool.description,
      ...(tool.tags ?? []),
      tool.category,
    ]
      .filter((x) => typeof x === "string")
      .join(" \n ")
    const q = this.queryTerms(text)
    const eq = this.exampleQuery(text)
    if (q.terms.length === 0 && (eq === undefined || eq.terms.length === 0))
      return { hits: [], total: 0, offset, limit }
    const acc = this.score(q, eq, accept)
    const page = this.page(acc, limit, offset, accept)
    acc.reset()
    return this.withCursor(page, SIMILAR_CURSOR_PURPOSE, toolId, options)
  }

  /**
   * The progressive-disclosure doc of a registered tool (see {@link describeTool}).
   * Throws {@link SearchError} for an unknown id.
   */
  describe(toolId: string, level: DocLevel = "summary", caps?: DocCaps): ToolDoc {
    const tool = this.index.get(toolId)
    if (tool === undefined) throw new SearchError("UnknownTool", `describe(): no tool with id "${toolId}"`)
    return describeTool(tool, level, caps)
  }

  /**
   * Search that also uses the configured {@link Embedder} (hybrid: lexical and dense lists
   * fused by RRF or weighted score fusion). Without `hybrid` options it equals {@link search}.
   */
  async searchAsync(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    const hybrid = this.hybrid
    if (hybrid === undefined) return this.search(query, options)
    const { limit, offset } = this.pageOf(options, SEARCH_CURSOR_PURPOSE, query)
    const accept = this.filterOf(options)
    const candidates = Math.max(hybrid.candidates ?? 100, offset + limit)
    await this.embedPending(hybrid)
    const [qv] = await embedChecked(hybrid.embedder, [query], 1)
    const dense: ScoredId[] = []
    for (const [id, slot] of this.slotOf) {
      if (accept !== undefined && !accept(slot)) continue
      const v = this.vectors.get(id)
      if (v !== undefined) dense.push({ id, score: cosine(qv!, v.vector) })
    }
    dense.sort(compareHits)
    dense.length = Math.min(dense.length, candidates)
    const lexical = this.search(query, {
      ...options,
      cursor: undefined,
      offset: 0,
      limit: Math.min(candidates, MAX_LIMIT),
    }).hits
    const w = hybrid.weight ?? 0.5
    const fused =
      hybrid.fusion === "weighted"
        ? weightedScoreFusion([lexical, dense], { weights: [1 - w, w] })
        : reciprocalRankFusion([lexical, dense], { k: hybrid.rrfK ?? 60, weights: [1, w / 0.5] })
    const hits = fused.slice(offset, offset + limit)
    const total = fused.length
    const result = {
      hits,
      total,
      offset,
      limit,
      ...(offset + limit < total ? { nextOffset: offset + limit } : {}),
    }
    return this.withCursor(result, SEARCH_CURSOR_PURPOSE, query, options)
  }

  /** Limit and offset of a request: from `offset`, or from a verified `cursor`. */
  private pageOf(options: SearchOptions, purpose: string, query: string): { limit: number; offset: number } {
    const page = pageOf(options)
    if (options.caller !== undefined && typeof options.caller !== "string")
      throw new SearchError("InvalidOptions", "caller must be a string")
    if (options.cursor === undefined) return page
    if (options.offset !== undefined && options.offset !== 0)
      throw new SearchError("InvalidOptions", "give either offset or cursor, not both")
    const offset = decodeSearchCursor(
      this.codecOption ?? defaultSearchCodec(),
      options.cursor,
      scopeOf(purpose, query, options),
    )
    return { limit: page.limit, offset }
  }

  /** Adds the (lazily signed) `nextCursor` when there is a next page. */
  private withCursor(
    result: SearchResult,
    purpose: string,
    query: string,
    options: SearchOptions,
  ): SearchResult {
    if (result.nextOffset === undefined) return result
    return withNextCursor(
      result as SearchResult & { readonly nextOffset: number },
      this.codecOption ?? defaultSearchCodec(),
      scopeOf(purpose, query, options),
    )
  }

  private async embedPending(hybrid: HybridOptions): Promise<void> {
    const textOf = hybrid.toolText ?? defaultEmbeddingText
    const ids: string[] = []
    const texts: string[] = []
    for (const [id, slot] of this.slotOf) {
      const text = textOf(this.records[slot]!.tool)
      if (this.vectors.get(id)?.text !== text) {
        ids.push(id)
        texts.push(text)
      }
    }
    if (ids.length === 0) return
    const vectors = await embedChecked(hybrid.embedder, texts, texts.length)
    for (let i = 0; i < ids.length; i++) this.vectors.set(ids[i]!, { text: texts[i]!, vector: vectors[i]! })
  }

  private onChange(e: ToolChangeEvent<T>): void {
    if (e.type === "registered") this.add(e.tool)
    else if (e.type === "removed") this.remove(e.tool.id)
    else {
      this.remove(e.previous.id)
      this.add(e.tool)
    }
  }

  private add(tool: SearchableTool): void {
    const slot = this.freeSlots.length > 0 ? this.freeSlots.pop()! : this.records.length
    const fields = toolFieldTexts(tool).map((text) => this.internAll(text))
    this.engine.add(slot, fields)
    const intents = (tool.intents ?? []).filter((x): x is string => typeof x === "string")
    this.records[slot] = { id: tool.id, tool, intents, tags: new Set(tool.tags ?? []) }
    this.slotOf.set(tool.id, slot)
    this.examples?.addTool(tool.id, intents, (text) =>
      this.internAll(text, this.exampleAnalyzer, this.examplePhraseWeight),
    )
    const cap = this.records.length
    this.lexical.ensure(cap)
    this.votes.ensure(cap)
    this.fused.ensure(cap)
  }

  private remove(id: string): void {
    const slot = this.slotOf.get(id)
    if (slot === undefined) return
    const rec = this.records[slot]!
    this.engine.remove(slot)
    this.examples?.removeTool(id, rec.intents)
    this.records[slot] = undefined
    this.slotOf.delete(id)
    this.vectors.delete(id)
    this.freeSlots.push(slot)
  }

  private internAll(text: string, analyzer: Analyzer = this.analyzer, phrases = this.phraseWeight): number[] {
    const terms = analyzer.analyze(text)
    const ids = new Array<number>(terms.length)
    for (let i = 0; i < terms.length; i++) ids[i] = this.vocab.intern(terms[i]!)
    if (phrases > 0)
      for (let i = 0; i + 1 < terms.length; i++)
        ids.push(this.vocab.intern(`${terms[i]}\u0001${terms[i + 1]}`))
    return ids
  }

  private queryTerms(
    query: string,
    analyzer: Analyzer = this.analyzer,
    phrases = this.phraseWeight,
  ): { terms: number[]; weights: number[]; tokens: number } {
    if (typeof query !== "string") throw new SearchError("InvalidOptions", "query must be a string")
    const terms: number[] = []
    const weights: number[] = []
    const analyzed = analyzer.analyze(query)
    const push = (t: string, w: number) => {
      const id = this.vocab.lookup(t)
      if (id === undefined) return
      const i = terms.indexOf(id)
      if (i >= 0) weights[i]! += w
      else {
        terms.push(id)
        weights.push(w)
      }
    }
    for (const t of analyzed) push(t, 1)
    if (phrases > 0) {
      for (let i = 0; i + 1 < analyzed.length; i++) push(`${analyzed[i]}\u0001${analyzed[i + 1]}`, phrases)
    }
    return { terms, weights, tokens: analyzed.length }
  }

  /** Scores every tool into an accumulator (caller resets it). */
  private exampleQuery(query: string): { terms: number[]; weights: number[]; tokens: number } | undefined {
    if (this.examples === undefined || this.examples.size === 0 || this.exampleWeight === 0) return undefined
    return this.queryTerms(query, this.exampleAnalyzer, this.examplePhraseWeight)
  }

  private score(
    q: { terms: number[]; weights: number[] },
    eq: { terms: number[]; weights: number[] } | undefined,
    accept: ((slot: number) => boolean) | undefined,
  ): ScoreAccumulator {
    const { terms, weights } = q
    const lex = this.lexical
    for (let i = 0; i < terms.length; i++) this.engine.scoreTerm(terms[i]!, weights[i]!, lex)
    if (this.coverageDiscount > 0 && terms.length > 1) this.rerankCoverage(lex, terms, weights, accept)
    const ex = this.examples
    const w = this.exampleWeight
    if (ex === undefined || eq === undefined || w === 0) return lex
    const votes = this.votes
    ex.vote(eq.terms, eq.weights, this.slotLookup, votes)
    if (votes.count === 0) return lex
    const out = this.fused
    const maxL = lex.max()
    const maxV = votes.max()
    const wl = maxL > 0 ? (1 - w) / maxL : 0
    const wv = w / maxV
    for (let i = 0; i < lex.count; i++) {
      const s = lex.touched[i]!
      out.add(s, wl * lex.scores[s]!)
    }
    for (let i = 0; i < votes.count; i++) {
      const s = votes.touched[i]!
      out.add(s, wv * votes.scores[s]!)
    }
    lex.reset()
    votes.reset()
    return out
  }

  /** Greedy query-coverage re-ranking of the top `coverageDepth` lexical scores (in place). */
  private rerankCoverage(
    lex: ScoreAccumulator,
    terms: readonly number[],
    weights: readonly number[],
    accept: ((slot: number) => boolean) | undefined,
  ): void {
    const { slots } = selectTop(lex, this.coverageDepth, (s) => this.records[s]!.id, accept)
    const M = slots.length
    if (M < 2) return
    if (this.candIndex.length < this.records.length) {
      this.candIndex = new Int32Array(Math.max(this.records.length, this.candIndex.length * 2)).fill(-1)
    }
    const cand = this.candIndex
    for (let i = 0; i < M; i++) cand[slots[i]!] = i
    const T = terms.length
    const contrib = new Float64Array(M * T)
    for (let t = 0; t < T; t++) {
      const w = weights[t]!
      this.engine.scan(terms[t]!, (slot, c) => {
        const i = slot < cand.length ? cand[slot]! : -1
        if (i >= 0) contrib[i * T + t] = w * c
      })
    }
    for (let i = 0; i < M; i++) cand[slots[i]!] = -1
    const termWeight = new Float64Array(T).fill(1)
    const picked = new Uint8Array(M)
    const keep = 1 - this.coverageDiscount
    let last = Number.POSITIVE_INFINITY
    const minOriginal = lex.scores[slots[M - 1]!]!
    for (let round = 0; round < M; round++) {
      let best = -1
      let bestScore = -1
      for (let i = 0; i < M; i++) {
        if (picked[i] === 1) continue
        let sc = 0
        for (let t = 0; t < T; t++) sc += contrib[i * T + t]! * termWeight[t]!
        // candidates are in rank order, so ">" keeps the id tie-break of selectTop
        if (sc > bestScore) {
          bestScore = sc
          best = i
        }
      }
      picked[best] = 1
      for (let t = 0; t < T; t++) if (contrib[best * T + t]! > 0) termWeight[t]! *= keep
      last = Math.min(last, bestScore)
      lex.scores[slots[best]!] = last
    }
    // everything below the re-ranked head stays below it, in its own order
    if (last < minOriginal && minOriginal > 0) {
      const ratio = last / minOriginal
      for (let i = 0; i < lex.count; i++) {
        const s = lex.touched[i]!
        if (s < cand.length && !inHead(slots, s)) lex.scores[s]! *= ratio
      }
    }
  }

  private page(
    acc: ScoreAccumulator,
    limit: number,
    offset: number,
    accept: ((slot: number) => boolean) | undefined,
  ): SearchResult {
    const { slots, total } = selectTop(acc, offset + limit, (s) => this.records[s]!.id, accept)
    const hits: SearchHit[] = []
    for (let i = offset; i < slots.length; i++) {
      const s = slots[i]!
      hits.push({ id: this.records[s]!.id, score: acc.scores[s]! })
    }
    return { hits, total, offset, limit, ...(offset + limit < total ? { nextOffset: offset + limit } : {}) }
  }

  private browse(
    limit: number,
    offset: number,
    accept: ((slot: number) => boolean) | undefined,
  ): SearchResult {
    const ids: string[] = []
    for (const [id, slot] of this.slotOf) if (accept === undefined || accept(slot)) ids.push(id)
    ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    const total = ids.length
    const hits = ids.slice(offset, offset + limit).map((id) => ({ id, score: 0 }))
    return { hits, total, offset, limit, ...(offset + limit < total ? { nextOffset: offset + limit } : {}) }
  }

  private filterOf(options: SearchOptions): ((slot: number) => boolean) | undefined {
    const ns = asList("namespace", options.namespace)
    const cat = asList("category", options.category)
    const tags = options.tags
    if (tags !== undefined && (!Array.isArray(tags) || tags.some((t) => typeof t !== "string"))) {
      throw new SearchError("InvalidOptions", "tags must be an array of strings")
    }
    if (ns === undefined && cat === undefined && (tags === undefined || tags.length === 0)) return undefined
    return (slot) => {
      const r = this.records[slot]!
      if (ns !== undefined && !ns.includes(r.tool.namespace)) return false
      if (cat !== undefined && (r.tool.category === undefined || !cat.includes(r.tool.category))) return false
      if (tags !== undefined) for (const t of tags) if (!r.tags.has(t)) return false
      return true
    }
  }
}

function inHead(slots: readonly number[], s: number): boolean {
  for (let i = 0; i < slots.length; i++) if (slots[i] === s) return true
  return false
}

/**
 * Tuned default query-coverage re-ranking.
 *
 * @since 0.1.0
 */
export const DEFAULT_COVERAGE = { discount: 0, depth: 20 } as const

/**
 * Tuned default query weight of phrase (word pair) terms.
 *
 * @since 0.1.0
 */
export const DEFAULT_PHRASE_WEIGHT = 0

/**
 * Tuned default query weight of word-pair terms in example queries.
 *
 * @since 0.1.0
 */
export const DEFAULT_EXAMPLE_PHRASE_WEIGHT = 0.375

function defaultEmbeddingText(tool: SearchableTool): string {
  const fields = toolFieldTexts(tool)
  return [tool.title ?? tool.name, tool.description ?? "", fields[4] ?? ""]
    .filter((s) => s.length > 0)
    .join("\n")
}

async function embedChecked(embedder: Embedder, texts: string[], expected: number): Promise<number[][]> {
  let out: number[][]
  try {
    out = await embedder.embed(texts)
  } catch (cause) {
    throw new SearchError("EmbedderFailed", "the embedder failed", { cause })
  }
  if (!Array.isArray(out) || out.length !== expected) {
    throw new SearchError(
      "EmbedderFailed",
      `the embedder returned ${out?.length} vectors for ${expected} texts`,
    )
  }
  return out
}

function asList(name: string, v: string | readonly string[] | undefined): readonly string[] | undefined {
  if (v === undefined) return undefined
  if (typeof v === "string") return [v]
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v
  throw new SearchError("InvalidOptions", `${name} must be a string or an array of strings`)
}

function scopeOf(purpose: string, query: string, options: SearchOptions): SearchCursorScope {
  return {
    purpose,
    query,
    namespace: options.namespace,
    tags: options.tags,
    category: options.category,
    caller: options.caller,
  }
}

function pageOf(options: SearchOptions): { limit: number; offset: number } {
  const limit = options.limit ?? 10
  const offset = options.offset ?? 0
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) {
    throw new SearchError("InvalidOptions", `limit must be an integer in [0, ${MAX_LIMIT}], got ${limit}`)
  }
  if (!Number.isInteger(offset) || offset < 0) {
    throw new SearchError("InvalidOptions", `offset must be a non-negative integer, got ${offset}`)
  }
  return { limit, offset }
}

function checkNumber(name: string, v: number, min: number, max: number): void {
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max) {
    throw new SearchError("InvalidOptions", `${name} must be a number in [${min}, ${max}], got ${String(v)}`)
  }
}
