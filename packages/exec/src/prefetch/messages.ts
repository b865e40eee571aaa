/**
 * The prefetch planner's third source: the caller's conversation. When the user's message reaches the
 * agent, the model still has to think before it asks for a tool; this source reads the message, ranks the
 * caller's read-only tools by it and fills their arguments from literal values in the text (quoted
 * strings, file names, numbers, capitalized names, enum values of the schema) and from the caller's own
 * history (the value the tool got last time, recent values of an argument of the same name, recent string
 * arguments). Which words lead to which tool, and which kind of value fills which argument, is learned
 * online per caller from the calls that follow each message; nothing is fitted in advance.
 *
 * @since 0.1.0
 */
import type { JsonSchema } from "@toolplane/foundation"
import { canonicalJson } from "./canonical.js"
import type { Proposal } from "./planner.js"

/**
 * A conversation message a prefetcher may read (`prefetcher.observeMessage(callerId, message)`). Only
 * user messages are used for prediction today.
 *
 * @since 0.1.0
 */
export interface PrefetchMessage {
  readonly role: "user" | "assistant" | "system"
  readonly text: string
  /**
   * The ids of the tools offered to the model with this message, when it sees fewer than the runner
   * lists; only these are proposed. Default: every visible tool.
   */
  readonly tools?: readonly string[]
}

/**
 * A tool the message source may propose: its id, name, description and input schema.
 *
 * @since 0.1.0
 */
export interface MessageTool {
  readonly id: string
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema: JsonSchema
}

/**
 * Settings of a {@link MessagePredictor}.
 *
 * @since 0.1.0
 */
export interface MessageSettings {
  /** Smallest estimated probability that a proposed call is made during the turn, with these arguments. */
  readonly minConfidence: number
  /** Calls after a message during which it still predicts. */
  readonly horizon: number
  /** Past turns consulted (default 5), and the smallest similarity that counts (default 0.2). */
  readonly neighbors?: number
  readonly minSimilarity?: number
  /** Similarity of a phantom neighbour that made no call (default 0.25). */
  readonly pseudo?: number
}

/** A literal value found in the text, with the kind that names it (`q1` = first quoted string, ...). */
interface Literal {
  readonly kind: string
  readonly value: unknown
}

const STOP = new Set(
  "a an and are as at be but by can could do does for from get has have i if in into is it its it's let me my of on or our please so some that the their then there these this to up us we what when where which while will with would you your also now just".split(
    " ",
  ),
)

/** Lower-case word tokens, camelCase and snake_case split, stop words and one-letter tokens dropped. */
export const messageWords = (text: string): string[] => {
  const out: string[] = []
  for (const raw of text.replace(/([a-z])([A-Z])/g, "$1 $2").split(/[^A-Za-z0-9]+/)) {
    const w = raw.toLowerCase()
    if (w.length < 2 || STOP.has(w)) continue
    out.push(w.length > 4 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w)
  }
  return out
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  fifty: 50,
  hundred: 100,
}

/**
 * The literal values of a message, each under a kind: `q<n>` the n-th quoted string (single, double or
 * back quotes), `f<n>` the n-th file-name-like token, `n<n>` the n-th number (digits or a number word),
 * `c<n>` the n-th run of capitalized words not opening a sentence, `nums` all numbers as a list.
 *
 * @since 0.1.0
 */
export const extractLiterals = (text: string): Literal[] => {
  const out: Literal[] = []
  const seen = new Set<string>()
  const push = (prefix: string, n: number, value: unknown) => {
    out.push({ kind: `${prefix}${n}`, value })
    seen.add(`${prefix}\u0000${canonicalJson(value)}`)
  }
  let n = 0
  let w = 0
  // Quotes: an opening quote after a boundary, a closing one before a boundary (so "I'd" is no quote).
  for (const m of text.matchAll(
    /(?:^|[\s([{:,=])(['"`\u2018\u201c])([^'"`\u2018\u2019\u201c\u201d\n]{1,200}?)(['"`\u2019\u201d])(?=$|[\s.,;:!?)\]}])/g,
  )) {
    const q = m[2]!
    if (q.trim() === "") continue
    if (n < 4) push("q", ++n, q)
    // A quoted text that is not a file name (a search pattern, a message, an id).
    if (!FILE_LIKE.test(q) && w < 4) push("w", ++w, q)
  }
  n = 0
  for (const m of text.matchAll(
    /(?<![\w./-])([A-Za-z0-9_~-][\w~-]*(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5})(?![\w/-])/g,
  ))
    if (n < 4 && !seen.has(`f\u0000${canonicalJson(m[1])}`)) push("f", ++n, m[1]!)
  n = 0
  // Dates, as ISO text: "2026-11-15", "November 15th, 2026", "15th of November 2026", "09/10, 2026".
  for (const d of extractDates(text)) if (n < 3 && !seen.has(`d\u0000${canonicalJson(d)}`)) push("d", ++n, d)
  n = 0
  const nums: number[] = []
  for (const m of text.matchAll(/(?<![\w.])(-?\d+(?:[.,]\d+)*(?:\.\d+)?)(?![\w])|\b([a-z]+)\b/gi)) {
    let v: number | undefined
    if (m[1] !== undefined) {
      const t = m[1].includes(",") && !m[1].includes(".") ? m[1].replace(/,/g, "") : m[1]
      v = Number(t)
    } else v = NUMBER_WORDS[m[2]!.toLowerCase()]
    if (v === undefined || !Number.isFinite(v)) continue
    nums.push(v)
    if (n < 6) push("n", ++n, v)
  }
  if (nums.length > 1) out.push({ kind: "nums", value: nums })
  n = 0
  // Capitalized runs that do not open a sentence ("Apollo Project", "VisionX", "San Francisco").
  for (const m of text.matchAll(/(?<=[a-z0-9,;:]\s+|\bin\s+|\bto\s+)([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)/g))
    if (n < 4 && m[1]!.length > 1 && !MONTHS.includes(m[1]!.toLowerCase()) && !DAYS.has(m[1]!.toLowerCase()))
      push("c", ++n, m[1]!)
  return out
}

const FILE_LIKE = /^[\w~-][\w~-]*(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5}$/

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
]

const DAYS = new Set(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])

const iso = (y: number, m: number, d: number): string | undefined =>
  m >= 1 && m <= 12 && d >= 1 && d <= 31
    ? `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`
    : undefined

/** The dates a text names, as ISO `YYYY-MM-DD`, in order. */
const extractDates = (text: string): string[] => {
  const found: { at: number; value: string }[] = []
  const add = (at: number, value: string | undefined) => {
    if (value !== undefined) found.push({ at, value })
  }
  const month = "(january|february|march|april|may|june|july|august|september|october|november|december)"
  for (const m of text.matchAll(/\b(\d{4})-(\d{2})-(\d{2})\b/g)) add(m.index, iso(+m[1]!, +m[2]!, +m[3]!))
  for (const m of text.matchAll(new RegExp(`\\b${month}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})`, "gi")))
    add(m.index, iso(+m[3]!, MONTHS.indexOf(m[1]!.toLowerCase()) + 1, +m[2]!))
  for (const m of text.matchAll(
    new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${month},?\\s+(\\d{4})`, "gi"),
  ))
    add(m.index, iso(+m[3]!, MONTHS.indexOf(m[2]!.toLowerCase()) + 1, +m[1]!))
  for (const m of text.matchAll(/\b(\d{1,2})\/(\d{1,2}),?\s+(\d{4})\b/g))
    add(m.index, iso(+m[3]!, +m[1]!, +m[2]!))
  found.sort((a, b) => a.at - b.at)
  return found.map((f) => f.value)
}

/** The JSON Schema type of a property, as far as this source needs it. */
const typeOf = (schema: JsonSchema | undefined): string | undefined => {
  if (schema === undefined || typeof schema !== "object") return undefined
  const t = (schema as { type?: unknown }).type
  return typeof t === "string" ? t : Array.isArray(t) ? (t.find((x) => x !== "null") as string) : undefined
}

/** Whether a value may fill a property of this schema (type and enum, not the whole schema). */
const fits = (schema: JsonSchema | undefined, value: unknown): boolean => {
  const s = schema as { enum?: unknown[]; items?: JsonSchema } | undefined
  if (s?.enum !== undefined && !s.enum.some((e) => canonicalJson(e) === canonicalJson(value))) return false
  switch (typeOf(schema)) {
    case "string":
      return typeof value === "string"
    case "integer":
      return typeof value === "number" && Number.isInteger(value)
    case "number":
      return typeof value === "number"
    case "boolean":
      return typeof value === "boolean"
    case "array":
      return Array.isArray(value) && value.every((v) => fits(s?.items, v))
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value)
    default:
      return true
  }
}

interface ToolModel {
  readonly tool: MessageTool
  /** Lower-case words of the tool's name and parameter names (the prior before anything is learned). */
  readonly nameWords: ReadonlySet<string>
  readonly properties: Readonly<Record<string, JsonSchema>>
  readonly required: readonly string[]
}

/** One argument of a call seen after a message: the kinds of source that held its value then. */
interface PastArg {
  readonly key: string
  /** Kinds that held the value, most general first; empty when none did (then the value is a constant). */
  readonly kinds: readonly string[]
  readonly value: unknown
}

/** An eligible call that followed a message. */
interface PastCall {
  readonly tool: string
  readonly args: readonly PastArg[]
  /** Writes (calls to tools that are not read-only) made in the turn before it. */
  readonly writesBefore: number
}

/** A finished turn: the message's words and the eligible calls that followed it. */
interface PastTurn {
  readonly words: ReadonlySet<string>
  readonly calls: readonly PastCall[]
}

/** What one message leads to: the literals, the words, the most similar past turns, what followed. */
interface Turn {
  readonly words: ReadonlySet<string>
  readonly literals: readonly Literal[]
  /** The most similar past turns with their similarity. */
  readonly neighbors: readonly { readonly turn: PastTurn; readonly similarity: number }[]
  /** Eligible calls made since the message (first of each tool and arguments). */
  readonly calls: PastCall[]
  /** Calls (tool + canonical arguments) made since the message: never proposed again in this turn. */
  readonly done: Set<string>
  /** The tools offered with the message, when given. */
  readonly offered: ReadonlySet<string> | undefined
  count: number
  /** Writes made since the message. */
  writes: number
}

/** Past turns kept per caller. */
const MAX_TURNS = 1000
/** Neighbors consulted, and the smallest similarity that counts. */
const NEIGHBORS = 5
const MIN_SIMILARITY = 0.2
/**
 * A phantom neighbour of this similarity that made no call: one similar turn alone is no certainty (the
 * same role as the learner's pseudo-count).
 */
const PSEUDO = 0.25
const MAX_STRINGS = 4
/** Confidence of a proposal from the tool's name alone, before the caller has a similar past turn. */
const NAME_PRIOR = 0.3

/** Literal and history kinds, most general first: the order an argument's source is picked in. */
const KIND_ORDER = ["f", "d", "w", "n", "nums", "c", "q", "result", "name", "last", "s"]
const kindRank = (kind: string): number => {
  const i = KIND_ORDER.indexOf(kind.replace(/\d+$/, ""))
  return (i < 0 ? KIND_ORDER.length : i) * 16 + (Number(kind.match(/\d+$/)?.[0] ?? 0) || 0)
}

/**
 * One caller's message source. Each finished turn (a message and the eligible calls that followed it,
 * with the kind of source each argument came from) is remembered; a new message is compared with them
 * (cosine of idf-weighted words), and the calls of the most similar turns are replayed with this
 * message's values: a proposal's confidence is the similarity-weighted share of those turns (plus a phantom
 * one of similarity 0.25 that made no call) that made it.
 * Before any similar turn exists, a tool whose name the message mentions is proposed at a low confidence.
 *
 * @since 0.1.0
 */
export class MessagePredictor {
  readonly #settings: MessageSettings
  #turn: Turn | undefined
  readonly #past: PastTurn[] = []
  /** word -> past turns containing it */
  readonly #df = new Map<string, number>()
  /** tool -> arguments of its last call */
  readonly #last = new Map<string, Readonly<Record<string, unknown>>>()
  /** argument name -> its last value in any tool */
  readonly #lastByName = new Map<string, unknown>()
  /** The most recent distinct string argument values, newest first. */
  readonly #strings: string[] = []
  /** field name -> its value in the latest result that had it (scalars of the top two levels) */
  readonly #resultByName = new Map<string, unknown>()

  constructor(settings: MessageSettings) {
    this.#settings = settings
  }

  /** A new user message: the previous turn is remembered, and this one starts. */
  message(text: string, offered?: readonly string[]): void {
    this.#finish()
    const words = new Set(messageWords(text))
    this.#turn = {
      words,
      literals: extractLiterals(text),
      neighbors: this.#neighbors(words),
      calls: [],
      done: new Set(),
      offered: offered === undefined ? undefined : new Set(offered),
      count: 0,
      writes: 0,
    }
  }

  /** Whether a message turn is open (calls since the last message are within the horizon). */
  get active(): boolean {
    return this.#turn !== undefined && this.#turn.count < this.#settings.horizon
  }

  #idf(word: string): number {
    return Math.log((this.#past.length + 1) / ((this.#df.get(word) ?? 0) + 1)) + 1
  }

  #neighbors(words: ReadonlySet<string>): { turn: PastTurn; similarity: number }[] {
    if (this.#past.length === 0 || words.size === 0) return []
    let norm = 0
    const weight = new Map<string, number>()
    for (const w of words) {
      const x = this.#idf(w)
      weight.set(w, x)
      norm += x * x
    }
    const best: { turn: PastTurn; similarity: number }[] = []
    for (const turn of this.#past) {
      let dot = 0
      let other = 0
      for (const w of turn.words) {
        const x = this.#idf(w)
        other += x * x
        const y = weight.get(w)
        if (y !== undefined) dot += x * y
      }
      if (dot === 0) continue
      const similarity = dot / Math.sqrt(norm * other)
      if (similarity < (this.#settings.minSimilarity ?? MIN_SIMILARITY)) continue
      const k = this.#settings.neighbors ?? NEIGHBORS
      if (best.length < k || similarity > best[best.length - 1]!.similarity) {
        best.push({ turn, similarity })
        best.sort((a, b) => b.similarity - a.similarity)
        if (best.length > k) best.pop()
      }
    }
    return best
  }

  /** Remembers the finished turn (when anything was called after it). */
  #finish(): void {
    const turn = this.#turn
    this.#turn = undefined
    if (turn === undefined || turn.count === 0) return
    this.#past.push({ words: turn.words, calls: turn.calls })
    for (const w of turn.words) this.#df.set(w, (this.#df.get(w) ?? 0) + 1)
    if (this.#past.length > MAX_TURNS) {
      const old = this.#past.shift()!
      for (const w of old.words) {
        const n = (this.#df.get(w) ?? 1) - 1
        if (n === 0) this.#df.delete(w)
        else this.#df.set(w, n)
      }
    }
  }

  /** The values each kind of source holds now for an argument of a tool. */
  #candidates(turn: Turn, tool: string, arg: string): Map<string, unknown> {
    const out = new Map<string, unknown>()
    for (const l of turn.literals) out.set(l.kind, l.value)
    const last = this.#last.get(tool)
    if (last !== undefined && Object.hasOwn(last, arg)) out.set("last", last[arg])
    if (this.#lastByName.has(arg)) out.set("name", this.#lastByName.get(arg))
    if (this.#resultByName.has(arg)) out.set("result", this.#resultByName.get(arg))
    for (let i = 0; i < this.#strings.length; i++) out.set(`s${i + 1}`, this.#strings[i])
    return out
  }

  /** Records a call of the caller (any tool): what followed the message, and where its arguments came from. */
  observe(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    eligible: boolean,
    result?: unknown,
    write = !eligible,
  ): void {
    const turn = this.#turn
    if (turn !== undefined && turn.count < this.#settings.horizon) {
      turn.count++
      if (write) turn.writes++
      const key = `${tool}\u0000${canonicalJson(args)}`
      if (eligible && !turn.done.has(key)) {
        const past: PastArg[] = []
        for (const name of Object.keys(args).sort()) {
          const value = canonicalJson(args[name])
          const kinds: string[] = []
          for (const [kind, v] of this.#candidates(turn, tool, name))
            if (canonicalJson(v) === value) kinds.push(kind)
          kinds.sort((a, b) => kindRank(a) - kindRank(b))
          past.push({ key: name, kinds, value: args[name] })
        }
        turn.calls.push({ tool, args: past, writesBefore: turn.writes })
      }
      turn.done.add(key)
    }
    this.#last.set(tool, args)
    for (const key in args) {
      if (!Object.hasOwn(args, key)) continue
      const v = args[key]
      this.#lastByName.set(key, v)
      if (typeof v === "string") {
        const i = this.#strings.indexOf(v)
        if (i >= 0) this.#strings.splice(i, 1)
        this.#strings.unshift(v)
        if (this.#strings.length > MAX_STRINGS) this.#strings.length = MAX_STRINGS
      }
    }
    if (result !== null && typeof result === "object" && !Array.isArray(result))
      for (const [key, v] of Object.entries(result)) {
        if (v === null || typeof v !== "object") this.#resultByName.set(key, v)
        else if (!Array.isArray(v))
          for (const [inner, x] of Object.entries(v as Record<string, unknown>))
            if (x === null || typeof x !== "object") this.#resultByName.set(inner, x)
      }
  }

  /** A past call replayed with the current values: each argument from its kind of source, else the constant. */
  #replay(turn: Turn, model: ToolModel, call: PastCall): Record<string, unknown> | undefined {
    const args: Record<string, unknown> = {}
    for (const arg of call.args) {
      const schema = model.properties[arg.key]
      if (arg.kinds.length === 0) {
        // A value no source held: replayed as a constant only when it is a flag, a number or an enum
        // member (a free string, such as a name the model inferred, would be guessed).
        const enumValues = (schema as { enum?: unknown[] } | undefined)?.enum
        if (typeof arg.value === "string" && enumValues === undefined) return undefined
        if (arg.value !== null && typeof arg.value === "object") return undefined
        args[arg.key] = arg.value
        continue
      }
      const candidates = this.#candidates(turn, model.tool.id, arg.key)
      let found = false
      for (const kind of arg.kinds) {
        const value = candidates.get(kind)
        if (value !== undefined && fits(schema, value)) {
          args[arg.key] = value
          found = true
          break
        }
      }
      if (!found) return undefined
    }
    for (const key of model.required) if (!Object.hasOwn(args, key)) return undefined
    return args
  }

  /**
   * The calls the current message suggests, best first, with an estimated probability of at least
   * `minConfidence`; `tools` are the caller's eligible tools.
   */
  propose(tools: readonly ToolModel[], max: number): Proposal[] {
    const turn = this.#turn
    if (turn === undefined || turn.count >= this.#settings.horizon || max === 0) return []
    const { minConfidence } = this.#settings
    const byId = new Map<string, ToolModel>()
    for (const model of tools)
      if (turn.offered === undefined || turn.offered.has(model.tool.id)) byId.set(model.tool.id, model)
    const votes = new Map<string, { toolId: string; arguments: Record<string, unknown>; weight: number }>()
    let total = 0
    // How often each tool was called in this turn: a neighbour's calls of a tool are replayed from there on.
    const made = new Map<string, number>()
    for (const call of turn.calls) made.set(call.tool, (made.get(call.tool) ?? 0) + 1)
    for (const { turn: past, similarity } of turn.neighbors) {
      total += similarity
      const mine = new Set<string>()
      const seen = new Map<string, number>()
      for (const call of past.calls) {
        const model = byId.get(call.tool)
        if (model === undefined) continue
        const nth = seen.get(call.tool) ?? 0
        seen.set(call.tool, nth + 1)
        if (nth < (made.get(call.tool) ?? 0)) continue
        // It came after a write this turn has not made yet: that write would drop it.
        if (call.writesBefore > turn.writes) continue
        const args = this.#replay(turn, model, call)
        if (args === undefined) continue
        const key = `${call.tool}\u0000${canonicalJson(args)}`
        if (mine.has(key) || turn.done.has(key)) continue
        mine.add(key)
        const vote = votes.get(key)
        if (vote === undefined) votes.set(key, { toolId: call.tool, arguments: args, weight: similarity })
        else vote.weight += similarity
      }
    }
    const out: Proposal[] = []
    if (total > 0) {
      for (const vote of votes.values()) {
        const confidence = vote.weight / (total + (this.#settings.pseudo ?? PSEUDO))
        if (confidence >= minConfidence)
          out.push({ toolId: vote.toolId, arguments: vote.arguments, confidence, origin: "message" })
      }
    } else if (NAME_PRIOR >= minConfidence) {
      // Nothing similar yet: a tool the message names, with the natural values for its required arguments.
      for (const model of byId.values()) {
        let named = false
        for (const w of model.nameWords) if (turn.words.has(w)) named = true
        if (!named) continue
        const args: Record<string, unknown> = {}
        let ok = true
        for (const key of model.required) {
          const schema = model.properties[key]
          let value: unknown
          for (const [kind, v] of this.#candidates(turn, model.tool.id, key))
            if (naturalKind(schema, key, kind) && fits(schema, v)) {
              value = v
              break
            }
          if (value === undefined) {
            ok = false
            break
          }
          args[key] = value
        }
        if (!ok || turn.done.has(`${model.tool.id}\u0000${canonicalJson(args)}`)) continue
        out.push({ toolId: model.tool.id, arguments: args, confidence: NAME_PRIOR, origin: "message" })
      }
    }
    out.sort((a, b) => b.confidence - a.confidence)
    return out.length > max ? out.slice(0, max) : out
  }
}

/** Whether a literal kind is the natural first guess for a property of this schema. */
const naturalKind = (schema: JsonSchema | undefined, key: string, kind: string): boolean => {
  switch (typeOf(schema)) {
    case "string":
      return /file|path|dir|folder|source|destination/i.test(key)
        ? kind === "f1"
        : /date/i.test(key)
          ? kind === "d1"
          : kind === "w1"
    case "integer":
    case "number":
      return kind === "n1"
    case "array":
      return kind === "nums"
    default:
      return kind === "last"
  }
}

const splitName = (s: string): string[] =>
  s
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length > 1 && !STOP.has(w))

/**
 * The model of a tool the message source ranks: name and parameter-name words, properties, required
 * arguments.
 *
 * @since 0.1.0
 */
export const messageToolModel = (tool: MessageTool): ToolModel => {
  const schema = tool.inputSchema as { properties?: Record<string, JsonSchema>; required?: string[] }
  const properties = schema.properties ?? {}
  const nameWords = new Set(splitName(tool.name))
  return {
    tool,
    nameWords,
    properties,
    required: Array.isArray(schema.required) ? schema.required : [],
  }
}

export type { ToolModel as MessageToolModel }
