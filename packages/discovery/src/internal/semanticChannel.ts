/**
 * The semantic channel: each tool's text (name, title, description, parameter names) and the query
 * become word-vector means (see wordVectors.ts); the cosine of a tool to the query, relative to the best
 * tool's and raised to `power`, is added to the tool's lexical score, scaled by `weight` times the best
 * lexical score. It bridges words a tool's text does not contain ("bitcoin" → a finance tool).
 *
 * Cost: catalogs of at most `scan` tools are compared whole (every tool can come up); larger ones only
 * re-rank their `scan / 10` best lexical hits, so a query stays O(scan · dimensions).
 */
import type { ScoreAccumulator } from "./scoreAccumulator.js"
import { selectTop } from "./selectTop.js"
import type { WordVectors } from "./wordVectors.js"

export class SemanticChannel {
  private readonly vectors: (Float32Array | undefined)[] = []
  private readonly query: Float32Array
  private readonly live = new Set<number>()
  private candidates = new Int32Array(0)
  private cosines = new Float64Array(0)

  constructor(
    private readonly words: WordVectors,
    private readonly skip: ReadonlySet<string>,
    readonly weight: number,
    readonly power: number,
    readonly scan: number,
  ) {
    this.query = new Float32Array(words.dimensions)
  }

  add(slot: number, words: readonly string[]): void {
    const v = new Float32Array(this.words.dimensions)
    this.vectors[slot] = this.words.embed(words, v, this.skip) ? v : undefined
    this.live.add(slot)
  }

  remove(slot: number): void {
    this.vectors[slot] = undefined
    this.live.delete(slot)
  }

  /** Adds the semantic scores of the query's words to `acc` (which holds the lexical scores). */
  apply(
    words: readonly string[],
    acc: ScoreAccumulator,
    accept: ((slot: number) => boolean) | undefined,
    keyOf: (slot: number) => string,
  ): void {
    const q = this.query
    if (!this.words.embed(words, q, this.skip)) return
    let n = 0
    if (this.live.size <= this.scan) {
      if (this.candidates.length < this.live.size) this.candidates = new Int32Array(this.live.size * 2)
      for (const s of this.live) if (this.vectors[s] !== undefined) this.candidates[n++] = s
    } else {
      const top = selectTop(acc, Math.max(1, Math.floor(this.scan / 10)), keyOf, accept).slots
      if (this.candidates.length < top.length) this.candidates = new Int32Array(top.length)
      for (const s of top) this.candidates[n++] = s
    }
    if (n === 0) return
    if (this.cosines.length < n) this.cosines = new Float64Array(this.candidates.length)
    const D = q.length
    let best = 0
    for (let i = 0; i < n; i++) {
      const s = this.candidates[i]!
      if (accept !== undefined && !accept(s)) {
        this.cosines[i] = 0
        continue
      }
      const v = this.vectors[s]
      let c = 0
      if (v !== undefined) for (let d = 0; d < D; d++) c += q[d]! * v[d]!
      this.cosines[i] = c
      if (c > best) best = c
    }
    if (best <= 0) return
    const maxL = acc.max()
    const scale = this.weight * (maxL > 0 ? maxL : 1)
    const p = this.power
    for (let i = 0; i < n; i++) {
      const c = this.cosines[i]!
      if (c > 0) acc.add(this.candidates[i]!, scale * (c / best) ** p)
    }
  }
}
