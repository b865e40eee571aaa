/**
 * Online learning of one caller's call patterns: which tool follows which, and where each argument of the
 * follow-up came from (an argument or a result field of one of the last calls, or the value the tool got
 * last time). Starts from nothing; every completed call is one observation.
 *
 * @since 0.1.0
 */
import { canonicalJson } from "./canonical.js"
import type { Proposal } from "./planner.js"
import { resolvePointer } from "./pointer.js"

/** One completed call of the caller, with its values indexed by canonical JSON. */
interface Step {
  readonly tool: string
  readonly args: Readonly<Record<string, unknown>>
  /** canonical value -> argument names holding it (built on first use) */
  argIndex: Map<string, string[]> | undefined
  /** canonical value -> result pointers holding it (built on first use) */
  resultIndex: Map<string, string[]> | undefined
  readonly result: unknown
}

interface Successors {
  /** Times a call followed the tool. */
  seen: number
  /** Transitions that are not muted (0: nothing to propose, without looking further). */
  live: number
  readonly next: Map<string, Transition>
}

const NOTHING: Proposal[] = []
Object.freeze(NOTHING)

interface Transition {
  count: number
  /** Observations whose argument sources were learned. */
  learned: number
  /**
   * No source predicts some argument well enough: argument learning pauses (so an unpredictable
   * transition costs a counter per call) until `count` reaches `resumeAt`.
   */
  muted: boolean
  resumeAt: number
  /** argument name -> source -> times the source held the argument's value */
  readonly sources: Map<string, Map<string, number>>
  /** canonical list of argument names -> times */
  readonly shapes: Map<string, number>
}

const MAX_LEAVES = 256
const MAX_ARRAY = 16
const MAX_DEPTH = 5

const escapePointer = (key: string): string =>
  key.includes("~") || key.includes("/") ? key.replace(/~/g, "~0").replace(/\//g, "~1") : key

interface IndexState {
  readonly index: Map<string, string[]>
  leaves: number
}

const addLeaf = (state: IndexState, key: string, pointer: string): void => {
  state.leaves++
  const list = state.index.get(key)
  if (list === undefined) state.index.set(key, [pointer])
  else if (list.length < 8) list.push(pointer)
}

const walkResult = (state: IndexState, v: unknown, pointer: string, depth: number): void => {
  if (state.leaves >= MAX_LEAVES) return
  if (v === null || typeof v !== "object") {
    addLeaf(state, canonicalJson(v), pointer)
    return
  }
  if (depth >= MAX_DEPTH) return
  if (Array.isArray(v)) {
    let scalars = v.length <= MAX_ARRAY
    for (let i = 0; scalars && i < v.length; i++) scalars = v[i] === null || typeof v[i] !== "object"
    if (scalars) addLeaf(state, canonicalJson(v), pointer)
    for (let i = 0; i < v.length && i < MAX_ARRAY; i++) walkResult(state, v[i], `${pointer}/${i}`, depth + 1)
    return
  }
  for (const key in v)
    if (Object.hasOwn(v, key))
      walkResult(state, (v as Record<string, unknown>)[key], `${pointer}/${escapePointer(key)}`, depth + 1)
}

/** Indexes the scalar leaves and small arrays of a result by canonical JSON. */
const indexResult = (value: unknown): Map<string, string[]> => {
  const state: IndexState = { index: new Map(), leaves: 0 }
  walkResult(state, value, "", 0)
  return state.index
}

/** Observations of a transition before deciding whether its arguments are predictable. */
const TRIAL = 8

const increment = <K>(map: Map<K, number>, key: K): void => {
  map.set(key, (map.get(key) ?? 0) + 1)
}

/**
 * Settings of a {@link Learner}.
 *
 * @since 0.1.0
 */
export interface LearnerSettings {
  readonly window: number
  readonly minConfidence: number
  readonly minSupport: number
}

/**
 * One caller's learned patterns.
 *
 * @since 0.1.0
 */
export class Learner {
  readonly #settings: LearnerSettings
  readonly #history: Step[] = []
  /** previous tool -> what followed it */
  readonly #follow = new Map<string, Successors>()
  /** tool -> arguments of its last call */
  readonly #last = new Map<string, Readonly<Record<string, unknown>>>()

  constructor(settings: LearnerSettings) {
    this.#settings = settings
  }

  /**
   * Forgets the recent calls (not what was learned): the next call follows nothing. Called when some of
   * the caller's completed calls were not observed.
   */
  gap(): void {
    this.#history.length = 0
  }

  #resultIndex(step: Step): Map<string, string[]> {
    if (step.resultIndex === undefined) step.resultIndex = indexResult(step.result)
    return step.resultIndex
  }

  /** Records a completed call and learns from how it relates to the calls before it. */
  observe(tool: string, args: Readonly<Record<string, unknown>>, result: unknown): void {
    const history = this.#history
    if (history.length > 0) {
      const prev = history[history.length - 1]!.tool
      let node = this.#follow.get(prev)
      if (node === undefined) this.#follow.set(prev, (node = { seen: 0, live: 0, next: new Map() }))
      node.seen++
      let t = node.next.get(tool)
      if (t === undefined) {
        node.next.set(
          tool,
          (t = { count: 0, learned: 0, muted: false, resumeAt: 0, sources: new Map(), shapes: new Map() }),
        )
        node.live++
      }
      t.count++
      if (t.muted && t.count >= t.resumeAt) {
        t.muted = false
        node.live++
        t.learned = 0
        t.sources.clear()
        t.shapes.clear()
      }
      if (!t.muted) {
        this.#learnSources(t, tool, args)
        if (t.learned >= TRIAL && !this.#predictable(t)) {
          t.muted = true
          node.live--
          t.resumeAt = t.count * 4
        }
      }
    }
    history.push({ tool, args, argIndex: undefined, resultIndex: undefined, result })
    if (history.length > this.#settings.window) history.shift()
    this.#last.set(tool, args)
  }

  #argIndex(step: Step): Map<string, string[]> {
    if (step.argIndex === undefined) {
      const index = new Map<string, string[]>()
      for (const key in step.args) {
        if (!Object.hasOwn(step.args, key)) continue
        const c = canonicalJson(step.args[key])
        const list = index.get(c)
        if (list === undefined) index.set(c, [key])
        else list.push(key)
      }
      step.argIndex = index
    }
    return step.argIndex
  }

  #learnSources(t: Transition, tool: string, args: Readonly<Record<string, unknown>>): void {
    const history = this.#history
    t.learned++
    const keys = Object.keys(args).sort()
    increment(t.shapes, keys.join("\u0000"))
    const last = this.#last.get(tool)
    const depth = Math.min(this.#settings.window, history.length)
    for (const key of keys) {
      const value = canonicalJson(args[key])
      let sources = t.sources.get(key)
      if (sources === undefined) t.sources.set(key, (sources = new Map()))
      if (last !== undefined && Object.hasOwn(last, key) && canonicalJson(last[key]) === value)
        increment(sources, "c")
      for (let k = 1; k <= depth; k++) {
        const step = history[history.length - k]!
        for (const name of this.#argIndex(step).get(value) ?? []) increment(sources, `a${k}:${name}`)
        for (const pointer of this.#resultIndex(step).get(value) ?? []) increment(sources, `r${k}:${pointer}`)
      }
    }
  }

  /** Every argument of the usual shape has a source right often enough to clear the threshold. */
  #predictable(t: Transition): boolean {
    let shape = ""
    let best = 0
    for (const [s, n] of t.shapes)
      if (n > best) {
        best = n
        shape = s
      }
    if (shape === "") return true
    for (const key of shape.split("\u0000")) {
      let top = 0
      for (const n of t.sources.get(key)?.values() ?? []) if (n > top) top = n
      if (top / (t.learned + 1) < this.#settings.minConfidence) return false
    }
    return true
  }

  #valueOf(source: string, tool: string, key: string): { ok: true; value: unknown } | { ok: false } {
    if (source === "c") {
      const last = this.#last.get(tool)
      return last !== undefined && Object.hasOwn(last, key) ? { ok: true, value: last[key] } : { ok: false }
    }
    const colon = source.indexOf(":")
    const k = Number(source.slice(1, colon))
    const step = this.#history[this.#history.length - k]
    if (step === undefined) return { ok: false }
    const path = source.slice(colon + 1)
    if (source[0] === "a")
      return Object.hasOwn(step.args, path) ? { ok: true, value: step.args[path] } : { ok: false }
    const value = resolvePointer(step.result, path)
    return value === undefined ? { ok: false } : { ok: true, value }
  }

  /** The calls likely to come next, with their estimated probability (at least `minConfidence`). */
  propose(): Proposal[] {
    const history = this.#history
    if (history.length === 0) return NOTHING
    const node = this.#follow.get(history[history.length - 1]!.tool)
    if (node === undefined || node.live === 0) return NOTHING
    const seen = node.seen
    const { minConfidence, minSupport } = this.#settings
    const out: Proposal[] = []
    for (const [tool, t] of node.next) {
      if (t.count < minSupport || t.muted || t.learned === 0) continue
      // One pseudo-observation of "something else" keeps a single sighting from being a certainty.
      let confidence = t.count / (seen + 1)
      if (confidence < minConfidence) continue
      let shape = ""
      let best = 0
      for (const [s, n] of t.shapes)
        if (n > best) {
          best = n
          shape = s
        }
      confidence *= best / t.learned
      const args: Record<string, unknown> = {}
      for (const key of shape === "" ? [] : shape.split("\u0000")) {
        // The most frequent source that holds a value now.
        let found = false
        let bestN = 0
        let bestValue: unknown
        const sources = t.sources.get(key)
        if (sources !== undefined)
          for (const [source, n] of sources) {
            if (n <= bestN) continue
            const v = this.#valueOf(source, tool, key)
            if (!v.ok) continue
            bestN = n
            bestValue = v.value
            found = true
          }
        if (found) {
          args[key] = bestValue
          confidence *= bestN / (t.learned + 1)
        }
        if (!found || confidence < minConfidence) {
          confidence = 0
          break
        }
      }
      if (confidence >= minConfidence)
        out.push({ toolId: tool, arguments: args, confidence, origin: "learned" })
    }
    return out.sort((a, b) => b.confidence - a.confidence)
  }
}
