/**
 * Query-coverage re-ranking of lexical scores (for multi-tool queries): the top `depth` tools are
 * re-ranked greedily, each pick discounting the query terms it matches by `(1 − discount)` for the
 * next picks, so that later hits cover other parts of the query.
 */
import type { Bm25fEngine } from "./bm25f.js"
import type { ScoreAccumulator } from "./scoreAccumulator.js"
import { selectTop } from "./selectTop.js"

/** Re-ranks lexical scores by query coverage, in place. Keeps a slot → candidate scratch array. */
export class CoverageReranker {
  private candIndex = new Int32Array(0)

  constructor(
    private readonly engine: Bm25fEngine,
    private readonly discount: number,
    private readonly depth: number,
  ) {}

  /** Whether re-ranking does anything (a discount above 0). */
  get active(): boolean {
    return this.discount > 0
  }

  /**
   * Re-ranks the top `depth` slots of `lex` (ties by `keyOf`), keeping everything below the head
   * below it, in its own order. `slotCount` bounds the slot numbers.
   */
  rerank(
    lex: ScoreAccumulator,
    terms: readonly number[],
    weights: readonly number[],
    slotCount: number,
    keyOf: (slot: number) => string,
    accept: ((slot: number) => boolean) | undefined,
  ): void {
    const { slots } = selectTop(lex, this.depth, keyOf, accept)
    const M = slots.length
    if (M < 2) return
    if (this.candIndex.length < slotCount) {
      this.candIndex = new Int32Array(Math.max(slotCount, this.candIndex.length * 2)).fill(-1)
    }
    const cand = this.candIndex
    for (let i = 0; i < M; i++) cand[slots[i]!] = i
    const T = terms.length
    const contrib = new Float64Array(M * T)
    for (let t = 0; t < T; t++) {
      const w = weights[t]!
      this.engine.scan(terms[t]!, (slot, c) => {
        const i = slot < cand.length ? cand[slot]! : -1
        if (i >= 0) contrib[i * T + t] = w * c
      })
    }
    for (let i = 0; i < M; i++) cand[slots[i]!] = -1
    const termWeight = new Float64Array(T).fill(1)
    const picked = new Uint8Array(M)
    const keep = 1 - this.discount
    let last = Number.POSITIVE_INFINITY
    const minOriginal = lex.scores[slots[M - 1]!]!
    for (let round = 0; round < M; round++) {
      let best = -1
      let bestScore = -1
      for (let i = 0; i < M; i++) {
        if (picked[i] === 1) continue
        let sc = 0
        for (let t = 0; t < T; t++) sc += contrib[i * T + t]! * termWeight[t]!
        // candidates are in rank order, so ">" keeps the id tie-break of selectTop
        if (sc > bestScore) {
          bestScore = sc
          best = i
        }
      }
      picked[best] = 1
      for (let t = 0; t < T; t++) if (contrib[best * T + t]! > 0) termWeight[t]! *= keep
      last = Math.min(last, bestScore)
      lex.scores[slots[best]!] = last
    }
    // everything below the re-ranked head stays below it, in its own order
    if (last < minOriginal && minOriginal > 0) {
      const ratio = last / minOriginal
      const head = new Set(slots)
      for (let i = 0; i < lex.count; i++) {
        const s = lex.touched[i]!
        if (!head.has(s)) lex.scores[s]! *= ratio
      }
    }
  }
}
