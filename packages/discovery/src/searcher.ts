import type { CursorCodec } from "@toolplane/foundation"
import { Analyzer, DEFAULT_STOP_WORDS, REQUEST_WORDS, splitWords } from "./analyzer.js"
import type { Embedder } from "./embedder.js"
import { Bm25fEngine } from "./internal/bm25f.js"
import { CoverageReranker } from "./internal/coverage.js"
import { PseudoRelevanceFeedback } from "./internal/feedback.js"
import { IntentExampleIndex } from "./internal/intentExampleIndex.js"
import { ScoreAccumulator } from "./internal/scoreAccumulator.js"
import {
  checkCodec,
  decodeSearchCursor,
  defaultSearchCodec,
  SEARCH_CURSOR_PURPOSE,
  type SearchCursorScope,
  SIMILAR_CURSOR_PURPOSE,
  withNextCursor,
} from "./internal/searchCursor.js"
import { resolveSearcherOptions } from "./internal/searcherDefaults.js"
import { selectTop } from "./internal/selectTop.js"
import { SemanticChannel } from "./internal/semanticChannel.js"
import { toolFieldTexts } from "./internal/toolFields.js"
import { Vocabulary } from "./internal/vocabulary.js"
import { bundledWordVectors, type WordVectors } from "./internal/wordVectors.js"
import {
  compareHits,
  cosine,
  reciprocalRankFusion,
  type ScoredId,
  weightedScoreFusion,
} from "./rankFusion.js"
import { FIELD_NAMES, type SearchableTool } from "./searchableTool.js"
import { SearchError } from "./searchError.js"
import type { HybridOptions, SearcherOptions } from "./searcherOptions.js"
import { type DocCaps, type DocLevel, describeTool, type ToolDoc } from "./toolDocs.js"
import { type ToolChangeEvent, ToolIndex } from "./toolIndex.js"

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
  /**
   * Only tools for which this returns `true`: the caller's visibility (capability filters, auth
   * scopes). Hits, `total` and pages count visible tools only. The predicate is not part of the
   * cursor binding: bind cursors to the caller (`caller`) whose visibility it is.
   *
   * @since 0.1.0
   */
  readonly visible?: (toolId: string) => boolean
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

interface ExampleQuery {
  readonly terms: number[]
  readonly weights: number[]
  /** 1 for an informative term, 0 for a stop word or a word pair */
  readonly info: number[]
  readonly tokens: number
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
  private readonly examples: IntentExampleIndex | undefined
  private readonly exampleWeight: number
  private readonly hybrid: HybridOptions | undefined
  private readonly coverage: CoverageReranker
  private readonly feedback: PseudoRelevanceFeedback
  private readonly semantic: SemanticChannel | undefined
  private readonly phraseWeight: number
  private readonly examplePhraseWeight: number
  private readonly stopWordWeight: number
  private readonly confidence: number
  private readonly stopWords: ReadonlySet<string>
  /** analyzed forms of the request words, and their query weight */
  private readonly requestTerms: ReadonlySet<string>
  private readonly requestWordWeight: number
  private readonly records: (ToolRecord | undefined)[] = []
  private readonly slotOf = new Map<string, number>()
  private readonly freeSlots: number[] = []
  private readonly lexical = new ScoreAccumulator()
  private readonly votes = new ScoreAccumulator()
  private readonly fused = new ScoreAccumulator()
  private readonly unsubscribe: () => void
  /**
   * Query-side weight of a word in the semantic channel: its squared catalog IDF relative to the largest
   * possible (1 for a word the catalog lacks, 0 for a stop word), so words common in the catalog
   * ("data", "get") do not steer the query's vector.
   */
  private readonly semanticWeightOf = (word: string): number => {
    const t = this.analyzer.term(word)
    if (t === undefined) return 0
    const id = this.vocab.lookup(t)
    if (id === undefined || this.engine.df(id) === 0) return 1
    const idf = this.engine.idf(id) / Math.log(1 + (this.engine.size + 0.5) / 0.5)
    return idf * idf
  }
  private readonly slotLookup = (id: string): number | undefined => this.slotOf.get(id)
  private readonly keyOf = (slot: number): string => this.records[slot]!.id
  private readonly vectors = new Map<string, { text: string; vector: number[] }>()
  private readonly codecOption: CursorCodec | undefined

  constructor(index: ToolIndex<T> = new ToolIndex<T>(), options: SearcherOptions = {}) {
    this.index = index
    this.codecOption = checkCodec(options.codec)
    const o = resolveSearcherOptions(options)
    this.analyzer = new Analyzer(o.analyzer)
    this.stopWords = this.analyzer.stopWords ?? DEFAULT_STOP_WORDS
    this.requestWordWeight = o.requestWordWeight
    this.requestTerms = new Set(
      REQUEST_WORDS.map((w) => this.analyzer.term(w)).filter((t): t is string => t !== undefined),
    )
    this.engine = new Bm25fEngine({
      k1: o.k1,
      weights: FIELD_NAMES.map((f) => o.weights[f]),
      b: FIELD_NAMES.map((f) => o.b[f]),
    })
    const ex = o.examples
    if (ex !== undefined) {
      this.exampleAnalyzer = new Analyzer(ex.analyzer)
      this.examplePhraseWeight = ex.phrases
      this.exampleWeight = ex.weight
      this.stopWordWeight = ex.stopWordWeight
      this.confidence = ex.confidence
      this.examples = new IntentExampleIndex(ex)
    } else {
      this.exampleWeight = 0
      this.exampleAnalyzer = undefined
      this.examplePhraseWeight = 0
      this.stopWordWeight = 1
      this.confidence = 0
    }
    this.hybrid = o.hybrid
    this.phraseWeight = o.phrases
    this.coverage = new CoverageReranker(this.engine, o.coverage.discount, o.coverage.depth)
    this.feedback = new PseudoRelevanceFeedback(
      this.engine,
      o.feedback.docs,
      o.feedback.terms,
      o.feedback.weight,
    )
    this.semantic =
      o.semantic.weight > 0 ? semanticChannel(o.semantic, this.stopWords, options.semantic) : undefined
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
    if (typeof query !== "string") throw new SearchError("InvalidOptions", "query must be a string")
    const words = splitWords(query)
    const q = this.queryTerms(words)
    const eq = this.exampleQuery(words)
    if (q.tokens === 0 && (eq === undefined || eq.tokens === 0))
      return this.withCursor(this.browse(limit, offset, accept), SEARCH_CURSOR_PURPOSE, query, options)
    const acc = this.score(q, eq, accept, words)
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
    const words = splitWords(text)
    const q = this.queryTerms(words)
    const eq = this.exampleQuery(words)
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
    const texts = toolFieldTexts(tool)
    const fields = texts.map((text) => this.internAll(text))
    this.engine.add(slot, fields)
    this.semantic?.add(slot, splitWords(`${texts[0]} ${texts[2]} ${texts[3]} ${texts[4]}`))
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
    this.semantic?.remove(slot)
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

  /**
   * The lexical query: terms of the main analyzer, request words weighed `requestWordWeight`. A term
   * repeated in the query counts once (its highest weight): long, chatty queries that repeat a word
   * ("...papers... research papers...") otherwise let that word outweigh the rest.
   */
  private queryTerms(words: readonly string[]): { terms: number[]; weights: number[]; tokens: number } {
    const phrases = this.phraseWeight
    const terms: number[] = []
    const weights: number[] = []
    const analyzed = this.analyzer.analyzeWords(words)
    const push = (t: string, w: number) => {
      const id = this.vocab.lookup(t)
      if (id === undefined) return
      const i = terms.indexOf(id)
      if (i >= 0) weights[i] = Math.max(weights[i]!, w)
      else {
        terms.push(id)
        weights.push(w)
      }
    }
    const rw = this.requestWordWeight
    for (const t of analyzed) push(t, rw !== 1 && this.requestTerms.has(t) ? rw : 1)
    if (phrases > 0) {
      for (let i = 0; i + 1 < analyzed.length; i++) push(`${analyzed[i]}\u0001${analyzed[i + 1]}`, phrases)
    }
    return { terms, weights, tokens: analyzed.length }
  }

  /**
   * The query of the example channel: stop words weigh `stopWordWeight`, and `info` marks the
   * informative terms (1; stop words and word pairs 0) whose IDF measures how much of the query a
   * matching example covers.
   */
  private exampleQuery(words: readonly string[]): ExampleQuery | undefined {
    if (this.examples === undefined || this.examples.size === 0 || this.exampleWeight === 0) return undefined
    const analyzed = this.exampleAnalyzer!.analyzeWords(words)
    const terms: number[] = []
    const weights: number[] = []
    const info: number[] = []
    const push = (t: string, w: number, informative: number) => {
      const id = this.vocab.lookup(t)
      if (id === undefined) return
      const i = terms.indexOf(id)
      if (i >= 0) weights[i]! += w
      else {
        terms.push(id)
        weights.push(w)
        info.push(informative)
      }
    }
    for (const t of analyzed) {
      const stop = this.stopWords.has(t)
      push(t, stop ? this.stopWordWeight : 1, stop ? 0 : 1)
    }
    const phrases = this.examplePhraseWeight
    if (phrases > 0)
      for (let i = 0; i + 1 < analyzed.length; i++) push(`${analyzed[i]}\u0001${analyzed[i + 1]}`, phrases, 0)
    return { terms, weights, info, tokens: analyzed.length }
  }

  /** Scores every tool into an accumulator (caller resets it). */
  private score(
    q: { terms: number[]; weights: number[] },
    eq: ExampleQuery | undefined,
    accept: ((slot: number) => boolean) | undefined,
    words?: readonly string[],
  ): ScoreAccumulator {
    const { terms, weights } = q
    const lex = this.lexical
    for (let i = 0; i < terms.length; i++) this.engine.scoreTerm(terms[i]!, weights[i]!, lex)
    if (this.feedback.active && lex.count > 0) this.feedback.expand(lex, terms, accept)
    if (this.semantic !== undefined && words !== undefined)
      this.semantic.apply(words, lex, accept, this.semanticWeightOf)
    if (this.coverage.active && terms.length > 1)
      this.coverage.rerank(lex, terms, weights, this.records.length, this.keyOf, accept)
    const ex = this.examples
    if (ex === undefined || eq === undefined || this.exampleWeight === 0) return lex
    const votes = this.votes
    const match = ex.vote(eq.terms, eq.weights, eq.info, this.slotLookup, votes)
    if (votes.count === 0) return lex
    const w = this.confidence === 0 ? this.exampleWeight : this.exampleWeight * match ** this.confidence
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
    const visible = options.visible
    if (visible !== undefined && typeof visible !== "function")
      throw new SearchError("InvalidOptions", "visible must be a function (toolId) => boolean")
    if (ns === undefined && cat === undefined && (tags === undefined || tags.length === 0)) {
      if (visible === undefined) return undefined
      return (slot) => visible(this.records[slot]!.id)
    }
    return (slot) => {
      const r = this.records[slot]!
      if (visible !== undefined && !visible(r.id)) return false
      if (ns !== undefined && !ns.includes(r.tool.namespace)) return false
      if (cat !== undefined && (r.tool.category === undefined || !cat.includes(r.tool.category))) return false
      if (tags !== undefined) for (const t of tags) if (!r.tags.has(t)) return false
      return true
    }
  }
}

/**
 * The semantic channel over the bundled word vectors. When they cannot be loaded (a bundle that left
 * the package's data file behind), the default settings fall back to lexical search; options that ask
 * for the channel fail with the loader's {@link SearchError}.
 */
function semanticChannel(
  o: { readonly weight: number; readonly power: number; readonly scan: number },
  stopWords: ReadonlySet<string>,
  asked: SearcherOptions["semantic"],
): SemanticChannel | undefined {
  let vectors: WordVectors
  try {
    vectors = bundledWordVectors()
  } catch (error) {
    if (asked === undefined) return undefined
    throw error
  }
  return new SemanticChannel(vectors, stopWords, o.weight, o.power, o.scan)
}

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
