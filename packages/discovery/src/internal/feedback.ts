/**
 * Pseudo-relevance feedback (RM3-style query expansion): the `docs` best documents of the first pass
 * are taken as relevant, each weighed by its share of their summed scores; a term's feedback weight is
 * `Σ_d p(d) · tf~(t, d) / |d|~` (its share of each document's field-weighted frequencies). The `terms`
 * terms of highest `weight · idf` that are not in the query are then scored as extra query terms,
 * weighed `weight · feedback / best feedback`. Catalog-agnostic: it uses only the catalog's own text.
 */
import type { Bm25fEngine } from "./bm25f.js"
import type { ScoreAccumulator } from "./scoreAccumulator.js"

export class PseudoRelevanceFeedback {
  private readonly topSlots: Int32Array
  private readonly topScores: Float64Array
  private readonly weightOf = new Map<number, number>()

  constructor(
    private readonly engine: Bm25fEngine,
    readonly docs: number,
    readonly terms: number,
    readonly weight: number,
  ) {
    this.topSlots = new Int32Array(docs)
    this.topScores = new Float64Array(docs)
  }

  get active(): boolean {
    return this.docs > 0 && this.terms > 0 && this.weight > 0
  }

  /** Adds the expansion terms' scores to `acc` (which holds the first pass). */
  expand(
    acc: ScoreAccumulator,
    queryTerms: readonly number[],
    accept: ((slot: number) => boolean) | undefined,
  ): void {
    // the `docs` best first-pass documents (ties: lower slot; only visible ones)
    const k = this.docs
    const slots = this.topSlots
    const scores = this.topScores
    let n = 0
    for (let i = 0; i < acc.count; i++) {
      const s = acc.touched[i]!
      const v = acc.scores[s]!
      if (n === k && v <= scores[n - 1]!) continue
      if (accept !== undefined && !accept(s)) continue
      let j = n < k ? n++ : k - 1
      while (j > 0 && scores[j - 1]! < v) {
        scores[j] = scores[j - 1]!
        slots[j] = slots[j - 1]!
        j--
      }
      scores[j] = v
      slots[j] = s
    }
    if (n === 0) return
    let total = 0
    for (let i = 0; i < n; i++) total += scores[i]!
    if (total <= 0) return
    const weights = this.weightOf
    weights.clear()
    for (let i = 0; i < n; i++) {
      const doc = this.engine.termsOf(slots[i]!)
      if (doc === undefined) continue
      let len = 0
      for (let j = 0; j < doc.tfs.length; j++) len += doc.tfs[j]!
      if (len <= 0) continue
      const pd = scores[i]! / total / len
      for (let j = 0; j < doc.ids.length; j++) {
        const t = doc.ids[j]!
        weights.set(t, (weights.get(t) ?? 0) + pd * doc.tfs[j]!)
      }
    }
    for (const t of queryTerms) weights.delete(t)
    // the best `terms` terms by feedback · idf
    const m = this.terms
    const chosen: number[] = []
    const keys: number[] = []
    for (const [t, w] of weights) {
      const key = w * this.engine.idf(t)
      if (chosen.length === m && key <= keys[m - 1]!) continue
      let j = chosen.length < m ? chosen.length : m - 1
      if (chosen.length < m) {
        chosen.push(t)
        keys.push(key)
      }
      while (j > 0 && (keys[j - 1]! < key || (keys[j - 1] === key && chosen[j - 1]! > t))) {
        keys[j] = keys[j - 1]!
        chosen[j] = chosen[j - 1]!
        j--
      }
      keys[j] = key
      chosen[j] = t
    }
    let best = 0
    for (const t of chosen) best = Math.max(best, weights.get(t)!)
    if (best <= 0) return
    for (const t of chosen) this.engine.scoreTerm(t, (this.weight * weights.get(t)!) / best, acc)
  }
}
