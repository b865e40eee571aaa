/**
 * @toolplane/discovery: tool search for agent tool catalogs.
 *
 * @since 0.1.0
 */
export { Bm25fEngine, type Bm25fParams, ScoreAccumulator } from "./bm25f.js"
export {
  capSchema,
  DEFAULT_DOC_CAPS,
  type DocCaps,
  type DocLevel,
  describeTool,
  summaryLine,
  type ToolDoc,
  type ToolFullDoc,
  type ToolSchemaDoc,
  type ToolSummaryDoc,
  truncate,
} from "./docs.js"
export type { Embedder } from "./embedder.js"
export { SearchError, type SearchErrorCode } from "./errors.js"
export {
  DEFAULT_VOTING,
  ExampleIndex,
  type ExampleVotingOptions,
  exampleKey,
  type ResolvedVotingOptions,
} from "./examples.js"
export { compareHits, cosine, reciprocalRankFusion, type ScoredId, weightedScoreFusion } from "./fusion.js"
export {
  checkCodec,
  decodeSearchCursor,
  defaultSearchCodec,
  SEARCH_CURSOR_PURPOSE,
  type SearchCursorScope,
  SIMILAR_CURSOR_PURPOSE,
  searchCursorBinding,
  withNextCursor,
} from "./searchCursor.js"
export {
  DEFAULT_ANALYZER,
  DEFAULT_COVERAGE,
  DEFAULT_EXAMPLE_ANALYZER,
  DEFAULT_EXAMPLE_PHRASE_WEIGHT,
  DEFAULT_EXAMPLE_WEIGHT,
  DEFAULT_FIELD_B,
  DEFAULT_FIELD_WEIGHTS,
  DEFAULT_K1,
  DEFAULT_PHRASE_WEIGHT,
  type ExampleRankingOptions,
  type HybridOptions,
  Searcher,
  type SearcherOptions,
  type SearchHit,
  type SearchOptions,
  type SearchResult,
} from "./searcher.js"
export {
  SEARCH_MODE_TOOLS,
  type SearchModeOptions,
  type SearchToolsHit,
  type SearchToolsResult,
  searchMode,
} from "./searchMode.js"
export {
  Analyzer,
  type AnalyzerOptions,
  DEFAULT_ALIASES,
  ENGLISH_STOP_WORDS,
  splitWords,
  tokenize,
} from "./tokenize.js"
export {
  checkTool,
  FIELD_NAMES,
  type FieldName,
  type SearchableTool,
  schemaText,
  toolFieldTexts,
} from "./tool.js"
export {
  type RegisterOptions,
  type ToolChangeEvent,
  type ToolChangeListener,
  ToolIndex,
} from "./tool-index.js"
export { selectTop } from "./topk.js"
export { Vocabulary } from "./vocabulary.js"
