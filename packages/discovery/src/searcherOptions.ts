/**
 * Options of a {@link Searcher} and the named presets of their defaults.
 *
 * @since 0.1.0
 */
import type { CursorCodec } from "@toolplane/foundation"
import type { AnalyzerOptions } from "./analyzer.js"
import type { Embedder } from "./embedder.js"
import type { FieldName, SearchableTool } from "./searchableTool.js"

/**
 * Options of example-driven voting. Two voters share the example queries:
 *
 * - nearest-example voting: the `neighbors` example queries most similar to the query (BM25)
 *   vote `(score / best) ^ power` for each of their tools;
 * - tool-set voting: examples are grouped by the exact set of tools they are listed under (a query
 *   that needed tools A and B together), each group is one BM25 document (all its example queries),
 *   and the `groups` best groups vote `(score / best) ^ groupPower` for their tools. Groups make
 *   multi-tool queries retrieve every tool they need.
 *
 * The two vote vectors are max-normalised and mixed: `(1 − groupWeight) · knn + groupWeight · groups`.
 *
 * @since 0.1.0
 */
export interface ExampleVotingOptions {
  /** Number of nearest example queries that vote. */
  readonly neighbors?: number
  /** Similarity exponent of a neighbour's vote. */
  readonly power?: number
  /** BM25 k1 over example queries. */
  readonly k1?: number
  /** BM25 b over example queries. */
  readonly b?: number
  /**
   * How an example shared by several tools splits its vote: each tool gets
   * `vote / toolCount ^ share` (0 = every tool gets the full vote).
   */
  readonly share?: number
  /**
   * Popularity correction: a tool's nearest-example votes are divided by `exampleCount ^ prior`
   * (0 = off).
   */
  readonly prior?: number
  /** Share of tool-set (group) votes in the example votes, in [0, 1]. */
  readonly groupWeight?: number
  /** Number of tool-set groups that vote. */
  readonly groups?: number
  /** Similarity exponent of a group's vote. */
  readonly groupPower?: number
  /** BM25 k1 over group documents. */
  readonly groupK1?: number
  /** BM25 b over group documents. */
  readonly groupB?: number
}

/**
 * Example-driven ranking options: nearest-example voting fused with BM25F.
 *
 * @since 0.1.0
 */
export interface ExampleRankingOptions extends ExampleVotingOptions {
  /** Weight of the (max-normalised) votes against the (max-normalised) BM25F score, in [0, 1]. */
  readonly weight?: number
  /**
   * Analyzer of example queries (and of the query, for voting). Default: no stop words removed and
   * no stemming, because the wording of example queries (function words included) tells intents
   * apart.
   */
  readonly analyzer?: AnalyzerOptions
  /** Query weight of word-pair terms in example queries (0 = no pair terms). */
  readonly phrases?: number
  /**
   * Query weight of stop words (the main analyzer's list) in the example channel, in [0, 1]: they
   * still tell apart examples that share informative words, but cannot make a match on their own.
   *
   * @since 0.1.0
   */
  readonly stopWordWeight?: number
  /**
   * How much the votes are trusted, from the share of the query's information (the IDF of its
   * informative terms over the examples) that the best-matching example covers: the vote weight is
   * `weight · coverage ^ confidence`. `0` trusts every match fully; a query whose informative terms
   * match no example at all is ranked by the tool documents alone whatever this is.
   *
   * @since 0.1.0
   */
  readonly confidence?: number
}

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
 * Names of the tuned presets of a {@link Searcher}'s ranking parameters:
 *
 * - `"default"`: tuned for robustness across catalogs of different styles (ToolLens and MetaTool,
 *   cross-validated; see the package README);
 * - `"toollens"`: tuned on the ToolLens training split alone (RapidAPI-style catalogs whose tools
 *   have long parameter lists), the defaults of 0.1.0.
 *
 * @since 0.1.0
 */
export type SearcherPreset = "default" | "toollens"

/**
 * Options of a {@link Searcher}. Every option has a tuned default (see {@link SearcherPreset});
 * no network, no model.
 *
 * @since 0.1.0
 */
export interface SearcherOptions {
  /**
   * The preset the other options are merged over. Default `"default"`.
   *
   * @since 0.1.0
   */
  readonly preset?: SearcherPreset
  /** BM25F k1. */
  readonly k1?: number
  /** BM25F field weights (merged over the preset's). */
  readonly weights?: Partial<Record<FieldName, number>>
  /** BM25F b: one value for all fields, or per field (merged over the preset's). */
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
   * Query weight of words of asking rather than of the task ("help", "find", "provide",
   * "information", ...), in [0, 1]: they still break ties, but cannot decide a ranking.
   *
   * @since 0.1.0
   */
  readonly requestWordWeight?: number
  /**
   * The semantic channel: tools and query compared as means of bundled English word vectors (GloVe,
   * 30,000 words; see the package README), so that a query finds tools described in other words. The
   * cosine relative to the best tool's, raised to `power`, adds `weight` × the best lexical score.
   * Catalogs of at most `scan` tools are compared whole; larger ones re-rank their 50 best lexical
   * hits. `false` or `weight: 0` disables it (and does not load the vectors).
   *
   * @since 0.1.0
   */
  readonly semantic?: SemanticOptions | false
  /**
   * Pseudo-relevance feedback (RM3-style query expansion from the catalog itself): the `docs` best
   * tools of a first pass lend the query their `terms` most telling other terms, weighed at most
   * `weight`. It bridges a query's words and a tool's (a query about "bitcoin" reaches the tools
   * described with the words of the tools that mention bitcoin). `false` or `weight: 0` disables it.
   *
   * @since 0.1.0
   */
  readonly feedback?: FeedbackOptions | false
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
 * Options of pseudo-relevance feedback (see {@link SearcherOptions.feedback}).
 *
 * @since 0.1.0
 */
export interface FeedbackOptions {
  /** First-pass tools taken as relevant. */
  readonly docs?: number
  /** Expansion terms added to the query. */
  readonly terms?: number
  /** Query weight of the best expansion term, in [0, 1] (the others in proportion). */
  readonly weight?: number
}

/**
 * Options of the semantic channel (see {@link SearcherOptions.semantic}).
 *
 * @since 0.1.0
 */
export interface SemanticOptions {
  /** Share of the best lexical score the most similar tool gets, in [0, 10]. */
  readonly weight?: number
  /** Exponent of the relative cosine: higher keeps the boost to the closest tools. */
  readonly power?: number
  /** Largest catalog compared whole with the query. */
  readonly scan?: number
}
