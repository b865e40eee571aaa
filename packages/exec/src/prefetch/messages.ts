/**
 * The prefetch planner's third source: the caller's conversation. When the user's message reaches the
 * agent, the model still has to think before it asks for a tool; this source reads the message, ranks the
 * caller's read-only tools by it and fills their arguments from literal values in the text (quoted
 * strings, file names, numbers, capitalized names, enum values of the schema) and from the caller's own
 * history (the value the tool got last time, recent values of an argument of the same name, recent string
 * arguments). Which words lead to which tool, and which kind of value fills which argument, is learned
 * online per caller from the calls that follow each message; nothing is fitted in advance.
 *
 * @since 0.2.0
 */
import type { JsonSchema } from "@toolplane/foundation"
import { canonicalJson } from "./canonical.js"
import type { Proposal } from "./planner.js"

/**
 * A conversation message a prefetcher may read (`prefetcher.observeMessage(callerId, message)`). Only
 * user messages are used for prediction today.
 *
 * @since 0.2.0
 */
export interface PrefetchMessage {
  readonly role: "user" | "assistant" | "system"
  readonly text: string
}

/**
 * A tool the message source may propose: its id, name, description and input schema.
 *
 * @since 0.2.0
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
 * @since 0.2.0
 */
export interface MessageSettings {
  /** Smallest estimated probability that a proposed call is made during the turn, with these arguments. */
  readonly minConfidence: number
  /** Calls after a message during which it still predicts. */
  readonly horizon: number
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
 * @since 0.2.0
 */
export const extractLiterals = (text: string): Literal[] => {
  const out: Literal[] = []
  const seen = new Set<string>()
  const push = (prefix: string, n: number, value: unknown) => {
    out.push({ kind: `${prefix}${n}`, value })
    seen.add(`${prefix}\u0000${canonicalJson(value)}`)
  }
  let n = 0
  // Quotes: an opening quote after a boundary, a closing one before a boundary (so "I'd" is no quote).
  for (const m of text.matchAll(/(?:^|[\s([{:,=])(['"`\u2018\u201c])([^'"`\u2018\u2019\u201c\u201d\n]{1,200}?)(['"`\u2019\u201d])(?=$|[\s.,;:!?)\]}])/g))
    if (m[2]!.trim() !== "" && n < 4) push("q", ++n, m[2]!)
  n = 0
  for (const m of text.matchAll(/(?<![\w./-])([A-Za-z0-9_~-][\w~-]*(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5})(?![\w/-])/g))
    if (n < 4 && !seen.has(`f\u0000${canonicalJson(m[1])}`)) push("f", ++n, m[1]!)
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
    if (n < 4 && m[1]!.length > 1 && m[1] !== "I") push("c", ++n, m[1]!)
  return out
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

/** What one message leads to: the literals, the words, and what the caller did since. */
interface Turn {
  readonly words: ReadonlySet<string>
  readonly literals: readonly Literal[]
  /** Tools called since the message (read-only or not). */
  readonly called: Set<string>
  /** Calls (tool + canonical arguments) made since the message: never proposed again in this turn. */
  readonly done: Set<string>
  calls: number
}

/** Kinds of argument source: per tool and argument, how often each held the value, over how many calls. */
interface ArgStats {
  calls: number
  readonly kinds: Map<string, number>
}

/** Pseudo-count for the prior of a tool's name words, and of an argument's natural literal kind. */
const PRIOR = 1
const MAX_STRINGS = 4

/**
 * One caller's message source: learns from the calls that follow each message, and proposes calls for
 * the current one.
 *
 * @since 0.2.0
 */
export class MessagePredictor {
  readonly #settings: MessageSettings
  #turn: Turn | undefined
  /** word -> messages containing it that were followed by calls */
  readonly #wordTurns = new Map<string, number>()
  /** word -> tool -> such messages after which the tool was called */
  readonly #wordTool = new Map<string, Map<string, number>>()
  /** tool -> argument -> kind statistics */
  readonly #args = new Map<string, Map<string, ArgStats>>()
  /** tool -> canonical list of argument names -> times */
  readonly #shapes = new Map<string, Map<string, number>>()
  /** tool -> arguments of its last call */
  readonly #last = new Map<string, Readonly<Record<string, unknown>>>()
  /** argument name -> its last value in any tool */
  readonly #lastByName = new Map<string, unknown>()
  /** The most recent distinct string argument values, newest first. */
  readonly #strings: string[] = []

  constructor(settings: MessageSettings) {
    this.#settings = settings
  }

  /** A new user message: the previous turn's outcome is learned, and this one starts. */
  message(text: string): void {
    this.#finish()
    const words = new Set(messageWords(text))
    this.#turn = { words, literals: extractLiterals(text), called: new Set(), done: new Set(), calls: 0 }
  }

  /** Whether a message turn is open (calls since the last message are within the horizon). */
  get active(): boolean {
    return this.#turn !== undefined && this.#turn.calls < this.#settings.horizon
  }

  /** Learns the word-tool counts of the finished turn. */
  #finish(): void {
    const turn = this.#turn
    this.#turn = undefined
    if (turn === undefined || turn.calls === 0) return
    for (const w of turn.words) {
      this.#wordTurns.set(w, (this.#wordTurns.get(w) ?? 0) + 1)
      if (turn.called.size === 0) continue
      let tools = this.#wordTool.get(w)
      if (tools === undefined) this.#wordTool.set(w, (tools = new Map()))
      for (const t of turn.called) tools.set(t, (tools.get(t) ?? 0) + 1)
    }
  }

  /** The values each kind of source holds now for an argument of a tool. */
  #candidates(turn: Turn, tool: string, arg: string): Map<string, unknown> {
    const out = new Map<string, unknown>()
    for (const l of turn.literals) out.set(l.kind, l.value)
    const last = this.#last.get(tool)
    if (last !== undefined && Object.hasOwn(last, arg)) out.set("last", last[arg])
    if (this.#lastByName.has(arg)) out.set("name", this.#lastByName.get(arg))
    this.#strings.forEach((s, i) => out.set(`s${i + 1}`, s))
    return out
  }

  /** Records a call of the caller (any tool): what followed the message, and where its arguments came from. */
  observe(tool: string, args: Readonly<Record<string, unknown>>, eligible: boolean): void {
    const turn = this.#turn
    if (turn !== undefined && turn.calls < this.#settings.horizon) {
      turn.calls++
      turn.done.add(`${tool}\u0000${canonicalJson(args)}`)
      // Only eligible tools are ranked, and only the first call of a tool in a turn teaches.
      if (eligible && !turn.called.has(tool)) {
        turn.called.add(tool)
        let perTool = this.#args.get(tool)
        if (perTool === undefined) this.#args.set(tool, (perTool = new Map()))
        const keys = Object.keys(args).sort()
        let shapes = this.#shapes.get(tool)
        if (shapes === undefined) this.#shapes.set(tool, (shapes = new Map()))
        const shape = keys.join("\u0000")
        shapes.set(shape, (shapes.get(shape) ?? 0) + 1)
        for (const key of keys) {
          let stats = perTool.get(key)
          if (stats === undefined) perTool.set(key, (stats = { calls: 0, kinds: new Map() }))
          stats.calls++
          const value = canonicalJson(args[key])
          for (const [kind, v] of this.#candidates(turn, tool, key))
            if (canonicalJson(v) === value) stats.kinds.set(kind, (stats.kinds.get(kind) ?? 0) + 1)
        }
      }
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
  }

  /** The estimated probability that the tool is called in a turn with these words. */
  #toolScore(model: ToolModel, words: ReadonlySet<string>): number {
    let best = 0
    for (const w of words) {
      const n = this.#wordTurns.get(w) ?? 0
      const k = this.#wordTool.get(w)?.get(model.tool.id) ?? 0
      const prior = model.nameWords.has(w) ? PRIOR : 0
      if (k + prior === 0) continue
      const p = (k + prior) / (n + 1 + prior)
      if (p > best) best = p
    }
    return best
  }

  /**
   * The calls the current message suggests, best first, with an estimated probability of at least
   * `minConfidence`; `tools` are the caller's eligible tools.
   */
  propose(tools: readonly ToolModel[], max: number): Proposal[] {
    const turn = this.#turn
    if (turn === undefined || turn.calls >= this.#settings.horizon || max === 0) return []
    const { minConfidence } = this.#settings
    const out: Proposal[] = []
    for (const model of tools) {
      let confidence = this.#toolScore(model, turn.words)
      if (confidence < minConfidence) continue
      const id = model.tool.id
      // The usual argument names of the tool, else its required ones.
      let shape: readonly string[] = model.required
      let best = 0
      for (const [s, n] of this.#shapes.get(id) ?? [])
        if (n > best) {
          best = n
          shape = s === "" ? [] : s.split("\u0000")
        }
      const args: Record<string, unknown> = {}
      const perTool = this.#args.get(id)
      for (const key of shape) {
        const schema = model.properties[key]
        const stats = perTool?.get(key)
        const candidates = this.#candidates(turn, id, key)
        let bestP = 0
        let bestValue: unknown
        for (const [kind, value] of candidates) {
          if (!fits(schema, value)) continue
          const k = stats?.kinds.get(kind) ?? 0
          // Before anything is learned, the natural kind of the argument's type is the guess.
          const prior = naturalKind(schema, kind) ? PRIOR / 2 : 0
          const p = (k + prior) / ((stats?.calls ?? 0) + 1)
          if (p > bestP) {
            bestP = p
            bestValue = value
          }
        }
        // An enum value the message names.
        const enumValues = (schema as { enum?: unknown[] } | undefined)?.enum
        if (bestP === 0 && enumValues !== undefined)
          for (const e of enumValues)
            if (typeof e === "string" && turn.words.has(e.toLowerCase())) {
              bestP = PRIOR / 2 / ((stats?.calls ?? 0) + 1)
              bestValue = e
              break
            }
        confidence *= bestP
        if (confidence < minConfidence) break
        args[key] = bestValue
      }
      if (confidence < minConfidence) continue
      if (turn.done.has(`${id}\u0000${canonicalJson(args)}`)) continue
      out.push({ toolId: id, arguments: args, confidence, origin: "message" })
    }
    out.sort((a, b) => b.confidence - a.confidence)
    return out.length > max ? out.slice(0, max) : out
  }
}

/** Whether a literal kind is the natural first guess for a property of this schema. */
const naturalKind = (schema: JsonSchema | undefined, kind: string): boolean => {
  switch (typeOf(schema)) {
    case "string":
      return kind === "q1" || kind === "f1"
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
 * @since 0.2.0
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
