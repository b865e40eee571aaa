import type { ExampleVotingOptions } from "../searcherOptions.js"
import { Bm25fEngine } from "./bm25f.js"
import { ScoreAccumulator } from "./scoreAccumulator.js"
import { selectTop } from "./selectTop.js"

/** Resolved voting parameters. */
export type ResolvedVotingOptions = Required<ExampleVotingOptions>

interface Example {
  key: string
  terms: number[]
  /** tool id → number of times that tool lists this example */
  tools: Map<string, number>
  group: string | undefined
}

interface Group {
  key: string
  tools: string[]
  slot: number
  members: Set<number>
  dirty: boolean
  indexed: boolean
}

/**
 * Normalises an example text into its identity key (case and whitespace folded).
 */
export function exampleKey(text: string): string {
  return text.trim().replace(/\s+/g, " ").toLowerCase()
}

/**
 * An incremental index of example queries (intents), deduplicated by text: an example listed by
 * several tools is one document voting for all of them. Provides nearest-example voting and
 * tool-set (group) voting (see {@link ExampleVotingOptions}). Every structure is updated in place;
 * group documents are re-indexed lazily, only when they changed.
 */
export class IntentExampleIndex {
  private readonly engine: Bm25fEngine
  private readonly groupEngine: Bm25fEngine
  private readonly slots = new Map<string, number>()
  private readonly examples: (Example | undefined)[] = []
  private readonly free: number[] = []
  private readonly groups = new Map<string, Group>()
  private readonly groupBySlot: (Group | undefined)[] = []
  private readonly freeGroupSlots: number[] = []
  private readonly dirtyGroups = new Set<Group>()
  private readonly acc = new ScoreAccumulator()
  private readonly groupAcc = new ScoreAccumulator()
  private readonly toolAcc = new ScoreAccumulator()
  /** tool id → number of distinct examples listing it */
  private readonly toolCounts = new Map<string, number>()
  private options: ResolvedVotingOptions

  constructor(options: ResolvedVotingOptions) {
    this.options = options
    this.engine = new Bm25fEngine({ k1: options.k1, weights: [1], b: [options.b] })
    this.groupEngine = new Bm25fEngine({ k1: options.groupK1, weights: [1], b: [options.groupB] })
  }

  /** Number of distinct examples. */
  get size(): number {
    return this.slots.size
  }

  /** Number of distinct tool sets among examples. */
  get groupCount(): number {
    return this.groups.size
  }

  /** Adds the examples of a tool. `terms(text)` gives the term ids of an example. */
  addTool(toolId: string, intents: readonly string[], terms: (text: string) => number[]): void {
    for (const text of intents) {
      const key = exampleKey(text)
      if (key.length === 0) continue
      let slot = this.slots.get(key)
      if (slot === undefined) {
        slot = this.free.length > 0 ? this.free.pop()! : this.examples.length
        this.slots.set(key, slot)
        const t = terms(text)
        this.examples[slot] = { key, terms: t, tools: new Map(), group: undefined }
        this.engine.add(slot, [t])
      }
      const ex = this.examples[slot]!
      const before = ex.tools.get(toolId) ?? 0
      ex.tools.set(toolId, before + 1)
      if (before === 0) {
        this.toolCounts.set(toolId, (this.toolCounts.get(toolId) ?? 0) + 1)
        this.regroup(slot, ex)
      }
    }
  }

  /** Removes the examples of a tool (as added by {@link addTool}). */
  removeTool(toolId: string, intents: readonly string[]): void {
    for (const text of intents) {
      const key = exampleKey(text)
      const slot = this.slots.get(key)
      if (slot === undefined) continue
      const ex = this.examples[slot]!
      const c = (ex.tools.get(toolId) ?? 0) - 1
      if (c > 0) {
        ex.tools.set(toolId, c)
        continue
      }
      if (!ex.tools.delete(toolId)) continue
      const n = (this.toolCounts.get(toolId) ?? 1) - 1
      if (n > 0) this.toolCounts.set(toolId, n)
      else this.toolCounts.delete(toolId)
      if (ex.tools.size === 0) {
        this.leaveGroup(slot, ex)
        this.engine.remove(slot)
        this.slots.delete(key)
        this.examples[slot] = undefined
        this.free.push(slot)
      } else this.regroup(slot, ex)
    }
  }

  /**
   * Votes for tools (see {@link ExampleVotingOptions}) into `out`, indexed by tool slot
   * (`slotOf(toolId)`; tools without a slot are skipped). Each voter's tool votes are
   * max-normalised and weighted (`1 − groupWeight` and `groupWeight`).
   *
   * `info[i]` marks the informative query terms (1) and the others (0): when no informative term
   * occurs in any example, nothing votes. Returns the share of the query's information (the IDF over
   * the examples of its informative terms) that the best-matching example covers, in [0, 1]
   * (0 when nothing voted).
   */
  vote(
    terms: readonly number[],
    weights: readonly number[],
    info: readonly number[],
    slotOf: (toolId: string) => number | undefined,
    out: ScoreAccumulator,
  ): number {
    if (this.slots.size === 0) return 0
    let total = 0
    let known = false
    for (let i = 0; i < terms.length; i++) {
      if (info[i] === 0) continue
      const df = this.engine.df(terms[i]!)
      if (df > 0) known = true
      total += info[i]! * this.idf(df)
    }
    if (!known) return 0
    const o = this.options
    this.flushGroups()
    const tools = this.toolAcc
    tools.ensure(out.scores.length)
    let coverage = 1
    let voters = 0
    // nearest examples
    const knnWeight = 1 - o.groupWeight
    if (knnWeight > 0) {
      const acc = this.acc
      acc.ensure(this.examples.length)
      for (let i = 0; i < terms.length; i++) this.engine.scoreTerm(terms[i]!, weights[i]!, acc)
      const { slots } = selectTop(acc, o.neighbors, (s) => this.examples[s]!.key)
      if (slots.length > 0) {
        const best = acc.scores[slots[0]!]!
        coverage = this.covered(terms, info, this.examples[slots[0]!]!.terms) / total
        for (const s of slots) {
          const sim = acc.scores[s]! / best
          const v = o.power === 1 ? sim : sim ** o.power
          const ex = this.examples[s]!
          const share = o.share === 0 ? 1 : ex.tools.size ** o.share
          for (const toolId of ex.tools.keys()) {
            const t = slotOf(toolId)
            if (t === undefined) continue
            tools.add(t, o.prior === 0 ? v / share : v / share / this.toolCounts.get(toolId)! ** o.prior)
          }
          voters++
        }
      }
      acc.reset()
      mergeInto(tools, out, knnWeight)
    }
    // tool-set groups
    if (o.groupWeight > 0 && this.groups.size > 0) {
      const acc = this.groupAcc
      acc.ensure(this.groupBySlot.length)
      for (let i = 0; i < terms.length; i++) this.groupEngine.scoreTerm(terms[i]!, weights[i]!, acc)
      const { slots } = selectTop(acc, o.groups, (s) => this.groupBySlot[s]!.key)
      if (slots.length > 0) {
        const best = acc.scores[slots[0]!]!
        for (const s of slots) {
          const sim = acc.scores[s]! / best
          const v = o.groupPower === 1 ? sim : sim ** o.groupPower
          for (const toolId of this.groupBySlot[s]!.tools) {
            const t = slotOf(toolId)
            if (t !== undefined) tools.add(t, v)
          }
          voters++
        }
      }
      acc.reset()
      mergeInto(tools, out, o.groupWeight)
    }
    return voters === 0 ? 0 : coverage
  }

  /** IDF over the examples of a term found in `df` of them (unseen terms get the largest). */
  private idf(df: number): number {
    const n = this.slots.size
    return Math.log(1 + (n - df + 0.5) / (df + 0.5))
  }

  /** Information of the informative query terms that occur in an example's terms. */
  private covered(terms: readonly number[], info: readonly number[], example: readonly number[]): number {
    let sum = 0
    for (let i = 0; i < terms.length; i++) {
      if (info[i] === 0 || !example.includes(terms[i]!)) continue
      sum += info[i]! * this.idf(this.engine.df(terms[i]!))
    }
    return sum
  }

  /** Moves an example to the group of its current tool set. */
  private regroup(slot: number, ex: Example): void {
    const tools = [...ex.tools.keys()].sort()
    const key = tools.join("\u0000")
    if (ex.group === key) return
    this.leaveGroup(slot, ex)
    let g = this.groups.get(key)
    if (g === undefined) {
      g = { key, tools, slot: -1, members: new Set(), dirty: false, indexed: false }
      this.groups.set(key, g)
    }
    g.members.add(slot)
    ex.group = key
    this.markDirty(g)
  }

  private leaveGroup(slot: number, ex: Example): void {
    if (ex.group === undefined) return
    const g = this.groups.get(ex.group)
    ex.group = undefined
    if (g === undefined) return
    g.members.delete(slot)
    this.markDirty(g)
  }

  private markDirty(g: Group): void {
    g.dirty = true
    this.dirtyGroups.add(g)
  }

  /** Re-indexes the groups that changed since the last query. */
  private flushGroups(): void {
    if (this.dirtyGroups.size === 0) return
    for (const g of this.dirtyGroups) {
      g.dirty = false
      if (g.indexed) {
        this.groupEngine.remove(g.slot)
        g.indexed = false
      }
      if (g.members.size === 0) {
        if (g.slot >= 0) {
          this.groupBySlot[g.slot] = undefined
          this.freeGroupSlots.push(g.slot)
        }
        this.groups.delete(g.key)
        continue
      }
      if (g.slot < 0) {
        g.slot = this.freeGroupSlots.length > 0 ? this.freeGroupSlots.pop()! : this.groupBySlot.length
        this.groupBySlot[g.slot] = g
      }
      const terms: number[] = []
      for (const m of g.members) for (const t of this.examples[m]!.terms) terms.push(t)
      this.groupEngine.add(g.slot, [terms])
      g.indexed = true
    }
    this.dirtyGroups.clear()
  }
}

/** Adds `weight · from / max(from)` into `to`, then resets `from`. */
function mergeInto(from: ScoreAccumulator, to: ScoreAccumulator, weight: number): void {
  const max = from.max()
  if (max > 0) {
    const f = weight / max
    for (let i = 0; i < from.count; i++) {
      const s = from.touched[i]!
      to.add(s, f * from.scores[s]!)
    }
  }
  from.reset()
}
