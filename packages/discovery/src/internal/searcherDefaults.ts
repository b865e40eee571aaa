/**
 * The tuned presets of a searcher's ranking parameters, and the resolution (preset, then the
 * caller's options) with the range checks of every number.
 */
import type { AnalyzerOptions } from "../analyzer.js"
import { FIELD_NAMES, type FieldName } from "../searchableTool.js"
import { SearchError } from "../searchError.js"
import type { HybridOptions, SearcherOptions, SearcherPreset } from "../searcherOptions.js"
import type { ResolvedVotingOptions } from "./intentExampleIndex.js"

/** Every ranking parameter of a searcher, resolved. */
export interface ResolvedSearcherOptions {
  readonly k1: number
  readonly weights: Readonly<Record<FieldName, number>>
  readonly b: Readonly<Record<FieldName, number>>
  readonly analyzer: AnalyzerOptions
  readonly phrases: number
  readonly requestWordWeight: number
  readonly coverage: { readonly discount: number; readonly depth: number }
  readonly feedback: { readonly docs: number; readonly terms: number; readonly weight: number }
  readonly semantic: { readonly weight: number; readonly power: number; readonly scan: number }
  /** `undefined` when example voting is off. */
  readonly examples:
    | (ResolvedVotingOptions & {
        readonly weight: number
        readonly analyzer: AnalyzerOptions
        readonly phrases: number
        readonly stopWordWeight: number
        readonly confidence: number
      })
    | undefined
  readonly hybrid: HybridOptions | undefined
}

type Preset = Omit<ResolvedSearcherOptions, "hybrid" | "examples"> & {
  readonly examples: NonNullable<ResolvedSearcherOptions["examples"]>
}

/** Example voting of 0.1.0 (5-fold CV on the ToolLens training split). */
const TOOLLENS_VOTING: ResolvedVotingOptions = {
  neighbors: 30,
  power: 2,
  k1: 2.4,
  b: 1,
  share: 0,
  prior: 0,
  groupWeight: 0.5,
  groups: 3,
  groupPower: 8,
  groupK1: 6.65,
  groupB: 1,
}

/** Tuned on the ToolLens training split alone (the defaults of 0.1.0). */
const TOOLLENS: Preset = {
  k1: 0.4,
  weights: {
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
  },
  b: {
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
  },
  analyzer: { minTokenLength: 2 },
  phrases: 0,
  requestWordWeight: 1,
  coverage: { discount: 0, depth: 20 },
  feedback: { docs: 5, terms: 10, weight: 0 },
  semantic: { weight: 0, power: 4, scan: 2000 },
  examples: {
    ...TOOLLENS_VOTING,
    weight: 0.9,
    analyzer: { stopWords: false, stem: false },
    phrases: 0.375,
    stopWordWeight: 1,
    confidence: 0,
  },
}

/**
 * Tuned across corpora on the tuning folds only (fold 4 of 5 of ToolLens and MetaTool held out), with
 * bench/tune.ts: first the lexical weights (OBJ=mean MIN_FIRST=38: the mean over ToolLens, MetaTool and
 * the repository's MCP servers of N@5 relative to wink-bm25-text-search, ToolLens at least 38), then
 * with the semantic channel on (OBJ=goals: the worse of ToolLens N@5 / 38 and MetaTool's ratio to wink /
 * 1.15): semantic weight 0.3, power 4, k1 0.665, request words 0.4, parameter names 14.15. See the
 * package README.
 */
const DEFAULT: Preset = {
  ...TOOLLENS,
  k1: 0.665,
  weights: { ...TOOLLENS.weights, name: 0.376, title: 2, description: 0.188, paramNames: 14.15 },
  b: { ...TOOLLENS.b, description: 0.25 },
  requestWordWeight: 0.4,
  semantic: { weight: 0.3, power: 4, scan: 2000 },
  examples: { ...TOOLLENS.examples },
}

/** The presets, by name. */
export const PRESETS: Readonly<Record<SearcherPreset, Preset>> = { default: DEFAULT, toollens: TOOLLENS }

/** Resolves a searcher's options over its preset; throws {@link SearchError} on a bad value. */
export function resolveSearcherOptions(options: SearcherOptions): ResolvedSearcherOptions {
  const presetName = options.preset ?? "default"
  const preset = PRESETS[presetName]
  if (preset === undefined)
    throw new SearchError(
      "InvalidOptions",
      `preset must be one of ${Object.keys(PRESETS).join(", ")}, got ${String(presetName)}`,
    )
  const k1 = options.k1 ?? preset.k1
  const weights = { ...preset.weights, ...options.weights }
  const b: Record<FieldName, number> =
    typeof options.b === "number"
      ? (Object.fromEntries(FIELD_NAMES.map((f) => [f, options.b as number])) as Record<FieldName, number>)
      : { ...preset.b, ...options.b }
  checkNumber("k1", k1, 0, 100)
  for (const f of FIELD_NAMES) {
    checkNumber(`weights.${f}`, weights[f], 0, 1000)
    checkNumber(`b.${f}`, b[f], 0, 1)
  }
  let examples: ResolvedSearcherOptions["examples"]
  if (options.examples !== false) {
    const ex = options.examples ?? {}
    const p = preset.examples
    examples = {
      neighbors: ex.neighbors ?? p.neighbors,
      power: ex.power ?? p.power,
      k1: ex.k1 ?? p.k1,
      b: ex.b ?? p.b,
      share: ex.share ?? p.share,
      prior: ex.prior ?? p.prior,
      groupWeight: ex.groupWeight ?? p.groupWeight,
      groups: ex.groups ?? p.groups,
      groupPower: ex.groupPower ?? p.groupPower,
      groupK1: ex.groupK1 ?? p.groupK1,
      groupB: ex.groupB ?? p.groupB,
      weight: ex.weight ?? p.weight,
      analyzer: ex.analyzer ?? p.analyzer,
      phrases: ex.phrases ?? p.phrases,
      stopWordWeight: ex.stopWordWeight ?? p.stopWordWeight,
      confidence: ex.confidence ?? p.confidence,
    }
    checkNumber("examples.groupWeight", examples.groupWeight, 0, 1)
    checkNumber("examples.groups", examples.groups, 1, 100_000)
    checkNumber("examples.groupPower", examples.groupPower, 0, 100)
    checkNumber("examples.groupK1", examples.groupK1, 0, 100)
    checkNumber("examples.groupB", examples.groupB, 0, 1)
    checkNumber("examples.phrases", examples.phrases, 0, 100)
    checkNumber("examples.prior", examples.prior, 0, 10)
    checkNumber("examples.neighbors", examples.neighbors, 1, 100_000)
    checkNumber("examples.power", examples.power, 0, 100)
    checkNumber("examples.k1", examples.k1, 0, 100)
    checkNumber("examples.b", examples.b, 0, 1)
    checkNumber("examples.share", examples.share, 0, 10)
    checkNumber("examples.weight", examples.weight, 0, 1)
    checkNumber("examples.stopWordWeight", examples.stopWordWeight, 0, 1)
    checkNumber("examples.confidence", examples.confidence, 0, 100)
  }
  if (options.hybrid !== undefined) {
    if (typeof options.hybrid.embedder?.embed !== "function") {
      throw new SearchError("InvalidOptions", "hybrid.embedder must have an embed(texts) method")
    }
    checkNumber("hybrid.weight", options.hybrid.weight ?? 0.5, 0, 1)
  }
  const phrases = options.phrases ?? preset.phrases
  checkNumber("phrases", phrases, 0, 100)
  const requestWordWeight = options.requestWordWeight ?? preset.requestWordWeight
  checkNumber("requestWordWeight", requestWordWeight, 0, 1)
  const coverage = {
    discount: options.coverage?.discount ?? preset.coverage.discount,
    depth: options.coverage?.depth ?? preset.coverage.depth,
  }
  checkNumber("coverage.discount", coverage.discount, 0, 1)
  checkNumber("coverage.depth", coverage.depth, 1, 10_000)
  const fb = options.feedback === false ? { weight: 0 } : (options.feedback ?? {})
  const feedback = {
    docs: fb.docs ?? preset.feedback.docs,
    terms: fb.terms ?? preset.feedback.terms,
    weight: fb.weight ?? preset.feedback.weight,
  }
  checkNumber("feedback.docs", feedback.docs, 1, 1000)
  checkNumber("feedback.terms", feedback.terms, 1, 1000)
  checkNumber("feedback.weight", feedback.weight, 0, 1)
  if (!Number.isInteger(feedback.docs) || !Number.isInteger(feedback.terms))
    throw new SearchError("InvalidOptions", "feedback.docs and feedback.terms must be integers")
  const sem = options.semantic === false ? { weight: 0 } : (options.semantic ?? {})
  const semantic = {
    weight: sem.weight ?? preset.semantic.weight,
    power: sem.power ?? preset.semantic.power,
    scan: sem.scan ?? preset.semantic.scan,
  }
  checkNumber("semantic.weight", semantic.weight, 0, 10)
  checkNumber("semantic.power", semantic.power, 0, 100)
  checkNumber("semantic.scan", semantic.scan, 10, 1_000_000)
  return {
    k1,
    weights,
    b,
    analyzer: options.analyzer ?? preset.analyzer,
    phrases,
    requestWordWeight,
    coverage,
    feedback,
    semantic,
    examples,
    hybrid: options.hybrid,
  }
}

/** Throws {@link SearchError} `InvalidOptions` unless `v` is a finite number in `[min, max]`. */
export function checkNumber(name: string, v: number, min: number, max: number): void {
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max) {
    throw new SearchError("InvalidOptions", `${name} must be a number in [${min}, ${max}], got ${String(v)}`)
  }
}
