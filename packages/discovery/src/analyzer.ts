import { stemmer } from "stemmer"

/**
 * English stop words removed by the default analyzer (query and document side).
 * A compact list in the spirit of Lucene/NLTK, plus contraction fragments
 * ("s", "m", "ll", ...) produced by splitting on apostrophes.
 *
 * @since 0.1.0
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are aren as at be because been before being below " +
    "between both but by can cannot could couldn did didn do does doesn doing don down during each few for from " +
    "further had hadn has hasn have haven having he her here hers herself him himself his how i if in into is isn " +
    "it its itself just let me more most mustn my myself no nor not of off on once only or other ought our ours " +
    "ourselves out over own same shan she should shouldn so some such than that the their theirs them themselves " +
    "then there these they this those through to too under until up very was wasn we were weren what when where " +
    "which while who whom why will with won would wouldn you your yours yourself yourselves " +
    "s t m d ll re ve y o " +
    "also us via please could would like want need im id ive youre"
  ).split(" "),
)

/**
 * Default aliases: common developer abbreviations in identifiers, mapped (both query and document
 * side) to the word they abbreviate, so that `lat` matches `latitude`.
 *
 * @since 0.1.0
 */
export const DEFAULT_ALIASES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    lat: "latitude",
    lng: "longitude",
    lon: "longitude",
    coord: "coordinate",
    coords: "coordinates",
    num: "number",
    qty: "quantity",
    img: "image",
    imgs: "images",
    msg: "message",
    msgs: "messages",
    desc: "description",
    info: "information",
    addr: "address",
    lang: "language",
    tz: "timezone",
    pwd: "password",
    usr: "user",
    temp: "temperature",
    pct: "percent",
    avg: "average",
    config: "configuration",
    auth: "authentication",
    repo: "repository",
    repos: "repositories",
    dir: "directory",
    doc: "document",
    docs: "documents",
    org: "organization",
    src: "source",
    dst: "destination",
    dest: "destination",
    prev: "previous",
    tel: "telephone",
    db: "database",
    param: "parameter",
    params: "parameters",
    stats: "statistics",
    calc: "calculate",
    fav: "favorite",
    favourite: "favorite",
    colour: "color",
  }),
)

/**
 * Options of the text analyzer.
 *
 * @since 0.1.0
 */
export interface AnalyzerOptions {
  /** Apply English (Porter) stemming to ASCII words. Default `true`. */
  readonly stem?: boolean
  /**
   * Stop words to drop; `false` keeps every token. Default {@link ENGLISH_STOP_WORDS} and Chinese and
   * Japanese function words.
   */
  readonly stopWords?: ReadonlySet<string> | false
  /**
   * Drop tokens shorter than this many characters (after normalisation). Default `1`. Words of
   * scripts written without spaces are kept whatever their length (one Chinese character can be a
   * word).
   */
  readonly minTokenLength?: number
  /** Word aliases applied before stemming; `false` disables them. Default {@link DEFAULT_ALIASES}. */
  readonly aliases?: ReadonlyMap<string, string> | false
}

/**
 * Words of how people ask rather than of what they ask for ("can you help me find information
 * about ..."): common in queries, rare in tool descriptions, so IDF alone would make them count. The
 * searcher weighs them `requestWordWeight` on the query side.
 */
export const REQUEST_WORDS: readonly string[] = (
  "provide help find information specifically specific looking including detailed assist know give show " +
  "available recommend interested comprehensive various suggest make using planning focusing based " +
  "starting located within get tell fetch retrieve obtain display check some any currently possible " +
  "options option details kind type sure way able thanks tool app service"
).split(" ")

/**
 * Function words of Chinese and Japanese (particles, copulas, pronouns) that the segmenter returns as
 * words of their own; removed with the stop words.
 */
const CJK_STOP_WORDS: readonly string[] = (
  "的 了 着 过 是 在 和 与 及 或 把 被 给 对 从 向 就 都 也 还 又 很 吗 呢 吧 啊 我 你 他 她 它 我们 你们 这 那 这个 那个 " +
  "一个 请 帮 帮我 の を に は が で と も へ や か な ね よ から まで より する します して した です ます ください"
).split(" ")

/**
 * The stop words of the default analyzer: {@link ENGLISH_STOP_WORDS} and Chinese and Japanese
 * function words.
 */
export const DEFAULT_STOP_WORDS: ReadonlySet<string> = new Set([...ENGLISH_STOP_WORDS, ...CJK_STOP_WORDS])

const CAMEL_LOWER_UPPER = /([\p{Ll}\p{N}])(\p{Lu})/gu
const CAMEL_ACRONYM = /(\p{Lu})(\p{Lu}\p{Ll})/gu
const COMBINING_MARKS = /[\u0300-\u036f]/g
const WORD = /[\p{L}\p{M}\p{N}]+/gu
const ASCII_WORD = /^[a-z]+$/
/** Scripts written without spaces between words. */
const NO_SPACE =
  "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}"
const NO_SPACE_SCRIPT = new RegExp(`[${NO_SPACE}]`, "u")
const NO_SPACE_RUN = new RegExp(`[${NO_SPACE}\\p{M}ー]+|[^${NO_SPACE}]+`, "gu")
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u
const HAN = /\p{Script=Han}/u
const HAN_WORD = /^\p{Script=Han}+$/u
const HANGUL_WORD = /^\p{Script=Hangul}+$/u
const SOUTHEAST_ASIAN = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u

let segmenters: Map<string, Intl.Segmenter> | undefined

/** A word segmenter for the language a run of text is most likely in (one per language, reused). */
function segmenterFor(run: string): Intl.Segmenter {
  const locale = KANA.test(run) ? "ja" : HAN.test(run) ? "zh" : SOUTHEAST_ASIAN.test(run) ? "th" : "und"
  segmenters ??= new Map()
  let s = segmenters.get(locale)
  if (s === undefined) {
    s = new Intl.Segmenter(locale, { granularity: "word" })
    segmenters.set(locale, s)
  }
  return s
}

/** Pushes the character bigrams of a word (of at least three characters). */
function pushBigrams(chars: readonly string[], out: string[]): void {
  if (chars.length < 3) return
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!)
}

/**
 * Words of a run written without spaces: the words of `Intl.Segmenter` (dictionary-based for
 * Chinese, Japanese, Thai, Lao, Khmer and Burmese), single characters kept where the segmenter
 * finds them to be words; plus the character bigrams inside Chinese words of three or more
 * characters and across runs of single-character words, so that a query segmented differently from the tool text still matches.
 */
function segmentRun(run: string, out: string[]): void {
  let singles: string[] = []
  const flush = () => {
    if (singles.length > 1)
      for (let i = 0; i + 1 < singles.length; i++) out.push(singles[i]! + singles[i + 1]!)
    singles = []
  }
  for (const seg of segmenterFor(run).segment(run)) {
    if (!seg.isWordLike) {
      flush()
      continue
    }
    const word = seg.segment
    const chars = Array.from(word)
    out.push(word)
    if (chars.length === 1) singles.push(word)
    else {
      flush()
      if (HAN_WORD.test(word)) pushBigrams(chars, out)
    }
  }
  flush()
}

/**
 * Splits an identifier or free text into lower-case words: camelCase and PascalCase
 * (with acronyms: `HTTPServer` → `http server`), snake_case, kebab-case, dots, slashes and any
 * other non-letter/non-digit separators. Width and case are folded (NFKC, lower case) and so are
 * diacritics (`café` → `cafe`). Scripts written without spaces (Chinese, Japanese, Thai, ...) are
 * split into words with `Intl.Segmenter`; Korean words also give their character bigrams (particles
 * attach to Korean words). No stop words, no stemming.
 *
 * @example splitWords("github/createIssue_v2") // ["github", "create", "issue", "v2"]
 * @since 0.1.0
 */
export function splitWords(text: string): string[] {
  const spaced = text.replace(CAMEL_LOWER_UPPER, "$1 $2").replace(CAMEL_ACRONYM, "$1 $2")
  const folded = spaced.normalize("NFKD").replace(COMBINING_MARKS, "").normalize("NFKC").toLowerCase()
  const out: string[] = []
  for (const m of folded.matchAll(WORD)) {
    const word = m[0]
    if (NO_SPACE_SCRIPT.test(word)) {
      for (const run of word.matchAll(NO_SPACE_RUN)) {
        const r = run[0]
        if (NO_SPACE_SCRIPT.test(r)) segmentRun(r, out)
        else out.push(r)
      }
    } else {
      out.push(word)
      if (HANGUL_WORD.test(word)) pushBigrams(Array.from(word), out)
    }
  }
  return out
}

/**
 * A text analyzer: `splitWords`, stop-word removal and stemming, with a memo of stems.
 *
 * @since 0.1.0
 */
export class Analyzer {
  readonly stem: boolean
  readonly stopWords: ReadonlySet<string> | undefined
  readonly minTokenLength: number
  readonly aliases: ReadonlyMap<string, string> | undefined
  private readonly stemCache = new Map<string, string>()

  constructor(options: AnalyzerOptions = {}) {
    this.stem = options.stem ?? true
    this.stopWords = options.stopWords === false ? undefined : (options.stopWords ?? DEFAULT_STOP_WORDS)
    this.minTokenLength = options.minTokenLength ?? 1
    this.aliases = options.aliases === false ? undefined : (options.aliases ?? DEFAULT_ALIASES)
  }

  /** Normalises one lower-case word: `undefined` when it is a stop word or too short. */
  term(word: string): string | undefined {
    word = this.aliases?.get(word) ?? word
    if (word.length < this.minTokenLength && !NO_SPACE_SCRIPT.test(word)) return undefined
    if (this.stopWords?.has(word)) return undefined
    if (!this.stem || !ASCII_WORD.test(word)) return word
    let s = this.stemCache.get(word)
    if (s === undefined) {
      s = stemmer(word)
      if (this.stemCache.size > 50_000) this.stemCache.clear()
      this.stemCache.set(word, s)
    }
    return s
  }

  /** Analyzes text into terms (duplicates kept, in order). */
  analyze(text: string): string[] {
    return this.analyzeWords(splitWords(text))
  }

  /**
   * Analyzes the words of {@link splitWords} into terms (duplicates kept, in order): for analyzing one
   * text with several analyzers after splitting it once.
   *
   * @since 0.1.0
   */
  analyzeWords(words: readonly string[]): string[] {
    const out: string[] = []
    for (const w of words) {
      const t = this.term(w)
      if (t !== undefined) out.push(t)
    }
    return out
  }
}

/**
 * Tokenizes text with the default analyzer settings (or the given ones): splits identifiers
 * and words, folds case and diacritics, drops English stop words and stems.
 *
 * @example tokenize("Create GitHub issues") // ["creat", "github", "issu"]
 * @since 0.1.0
 */
export function tokenize(text: string, options?: AnalyzerOptions): string[] {
  return (options === undefined ? defaultAnalyzer : new Analyzer(options)).analyze(text)
}

const defaultAnalyzer = new Analyzer()
