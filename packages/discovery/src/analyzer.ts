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
  /** Stop words to drop; `false` keeps every token. Default {@link ENGLISH_STOP_WORDS}. */
  readonly stopWords?: ReadonlySet<string> | false
  /** Drop tokens shorter than this many characters (after normalisation). Default `1`. */
  readonly minTokenLength?: number
  /** Word aliases applied before stemming; `false` disables them. Default {@link DEFAULT_ALIASES}. */
  readonly aliases?: ReadonlyMap<string, string> | false
}

const CAMEL_LOWER_UPPER = /([\p{Ll}\p{N}])(\p{Lu})/gu
const CAMEL_ACRONYM = /(\p{Lu})(\p{Lu}\p{Ll})/gu
const COMBINING_MARKS = /[\u0300-\u036f]/g
const WORD = /[\p{L}\p{N}]+/gu
const ASCII_WORD = /^[a-z]+$/
const NO_SPACE_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u
const NO_SPACE_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]+/gu

/**
 * Splits an identifier or free text into lower-case words: camelCase and PascalCase
 * (with acronyms: `HTTPServer` → `http server`), snake_case, kebab-case, dots, slashes and any
 * other non-letter/non-digit separators. Diacritics are folded (`café` → `cafe`). No stop
 * words, no stemming.
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
      // Scripts written without spaces: emit the other runs as words, and character
      // bigrams (or the single character) for the no-space runs.
      for (const run of word.matchAll(NO_SPACE_RUN)) {
        const r = run[0]
        if (!NO_SPACE_SCRIPT.test(r)) {
          out.push(r)
          continue
        }
        const chars = Array.from(r)
        if (chars.length === 1) out.push(r)
        else for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!)
      }
    } else {
      out.push(word)
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
    this.stopWords = options.stopWords === false ? undefined : (options.stopWords ?? ENGLISH_STOP_WORDS)
    this.minTokenLength = options.minTokenLength ?? 1
    this.aliases = options.aliases === false ? undefined : (options.aliases ?? DEFAULT_ALIASES)
  }

  /** Normalises one lower-case word: `undefined` when it is a stop word or too short. */
  term(word: string): string | undefined {
    word = this.aliases?.get(word) ?? word
    if (word.length < this.minTokenLength) return undefined
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
    const out: string[] = []
    for (const w of splitWords(text)) {
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
