/**
 * @toolplane/discovery: tool search for agent tool catalogs.
 *
 * @since 0.1.0
 */
export { Analyzer, type AnalyzerOptions, ENGLISH_STOP_WORDS, splitWords, tokenize } from "./analyzer.js"
export type { Embedder } from "./embedder.js"
export {
  fileIntentStore,
  type IntentStore,
  type LearnedIntents,
  memoryIntentStore,
} from "./intentStore.js"
export { reciprocalRankFusion, type ScoredId, weightedScoreFusion } from "./rankFusion.js"
export { FIELD_NAMES, type FieldName, type SearchableTool } from "./searchableTool.js"
export { SearchError, type SearchErrorCode } from "./searchError.js"
export { Searcher, type SearchHit, type SearchOptions, type SearchResult } from "./searcher.js"
export type {
  ExampleRankingOptions,
  ExampleVotingOptions,
  FeedbackOptions,
  HybridOptions,
  SearcherOptions,
  SearcherPreset,
  SemanticOptions,
} from "./searcherOptions.js"
export {
  type LearnOptions,
  SEARCH_MODE_TOOLS,
  type SearchModeOptions,
  type SearchToolsHit,
  type SearchToolsResult,
  type SearchVisibility,
  searchMode,
} from "./searchModeMiddleware.js"
export {
  type DocCaps,
  type DocLevel,
  describeTool,
  summaryLine,
  type ToolDoc,
  type ToolFullDoc,
  type ToolSchemaDoc,
  type ToolSummaryDoc,
} from "./toolDocs.js"
export {
  type RegisterOptions,
  type ToolChangeEvent,
  type ToolChangeListener,
  ToolIndex,
} from "./toolIndex.js"
