/**
 * BM25F scoring over an incrementally maintained inverted index.
 *
 * Documents live in integer slots; postings keep raw per-field term frequencies, so that
 * adding or removing a document never requires a rebuild. Collection statistics (N, df,
 * average field lengths) are exact integers, and the per-term score contributions are
 * recomputed lazily (per queried term) after a change: an index built incrementally scores
 * exactly like one built from scratch.
 *
 * Scoring (Robertson/Zaragoza "simple BM25F"):
 * `tf~ = Σ_f w_f · tf_f / (1 − b_f + b_f · len_f / avglen_f)`,
 * `score = Σ_t qw_t · idf_t · tf~ / (k1 + tf~)`, `idf = ln(1 + (N − df + 0.5) / (df + 0.5))`.
 */
import type { ScoreAccumulator } from "./scoreAccumulator.js"

/**
 * BM25F parameters for an engine with `F` fields.
 *
 * @since 0.1.0
 */
export interface Bm25fParams {
  /** Term-frequency saturation. */
  readonly k1: number
  /** Per-field weight (length F). */
  readonly weights: readonly number[]
  /** Per-field length normalisation in [0, 1] (length F). */
  readonly b: readonly number[]
}

interface Posting {
  /** slots, in insertion order */
  docs: number[]
  /** per posting, F raw term frequencies (flattened) */
  tfs: number[]
  /** cached contributions, valid while `version` matches the engine's */
  version: number
  cDocs: Int32Array
  cScores: Float64Array
}

/**
 * Multi-field BM25F inverted index with incremental add/remove.
 *
 * @since 0.1.0
 */
export class Bm25fEngine {
  readonly fieldCount: number
  private params: Bm25fParams
  private readonly postings = new Map<number, Posting>()
  /** per slot: the term ids it contains (for removal) */
  private readonly docTerms: (Int32Array | undefined)[] = []
  /** per slot: the field-weighted term frequency `Σ_f w_f · tf_f` of each of its terms (weights at add time) */
  private readonly docTermTf: (Float32Array | undefined)[] = []
  /** per slot × field: length in terms */
  private docLen = new Float64Array(0)
  private readonly sumLen: number[]
  private n = 0
  private version = 1
  private normVersion = 0
  /** per slot × field: w_f / (1 − b_f + b_f · len_f / avglen_f) */
  private norm = new Float64Array(0)

  constructor(params: Bm25fParams) {
    this.fieldCount = params.weights.length
    if (params.b.length !== this.fieldCount)
      throw new RangeError("Bm25fEngine: weights and b differ in length")
    this.params = params
    this.sumLen = new Array<number>(this.fieldCount).fill(0)
  }

  /** Number of indexed documents. */
  get size(): number {
    return this.n
  }

  /** Changes k1, weights or b without re-indexing. */
  setParams(params: Bm25fParams): void {
    if (params.weights.length !== this.fieldCount || params.b.length !== this.fieldCount) {
      throw new RangeError("Bm25fEngine: parameter arity differs from the field count")
    }
    this.params = params
    this.version++
  }

  /** Number of documents containing the term in any field. */
  df(term: number): number {
    return this.postings.get(term)?.docs.length ?? 0
  }

  /**
   * Indexes a document in `slot` from its per-field term ids (duplicates count as tf).
   * The slot must be free.
   */
  add(slot: number, fields: readonly (readonly number[])[]): void {
    const F = this.fieldCount
    if (this.docTerms[slot] !== undefined) throw new RangeError(`Bm25fEngine: slot ${slot} is in use`)
    this.ensureSlots(slot + 1)
    const tf = new Map<number, number[]>()
    for (let f = 0; f < F; f++) {
      const terms = fields[f] ?? []
      this.docLen[slot * F + f] = terms.length
      this.sumLen[f]! += terms.length
      for (const t of terms) {
        let row = tf.get(t)
        if (row === undefined) {
          row = new Array<number>(F).fill(0)
          tf.set(t, row)
        }
        row[f]!++
      }
    }
    const termIds = new Int32Array(tf.size)
    const termTf = new Float32Array(tf.size)
    const w = this.params.weights
    let i = 0
    for (const [t, row] of tf) {
      let wtf = 0
      for (let f = 0; f < F; f++) wtf += w[f]! * row[f]!
      termTf[i] = wtf
      termIds[i++] = t
      let p = this.postings.get(t)
      if (p === undefined) {
        p = { docs: [], tfs: [], version: 0, cDocs: new Int32Array(0), cScores: new Float64Array(0) }
        this.postings.set(t, p)
      }
      p.docs.push(slot)
      for (let f = 0; f < F; f++) p.tfs.push(row[f]!)
    }
    this.docTerms[slot] = termIds
    this.docTermTf[slot] = termTf
    this.n++
    this.version++
  }

  /** Removes the document in `slot` (no-op when free). */
  remove(slot: number): void {
    const terms = this.docTerms[slot]
    if (terms === undefined) return
    const F = this.fieldCount
    for (const t of terms) {
      const p = this.postings.get(t)
      if (p === undefined) continue
      const i = p.docs.indexOf(slot)
      if (i < 0) continue
      const last = p.docs.length - 1
      // swap-remove: posting order never influences scores
      p.docs[i] = p.docs[last]!
      p.docs.pop()
      for (let f = 0; f < F; f++) p.tfs[i * F + f] = p.tfs[last * F + f]!
      p.tfs.length = last * F
      if (p.docs.length === 0) this.postings.delete(t)
    }
    for (let f = 0; f < F; f++) {
      this.sumLen[f]! -= this.docLen[slot * F + f]!
      this.docLen[slot * F + f] = 0
    }
    this.docTerms[slot] = undefined
    this.docTermTf[slot] = undefined
    this.n--
    this.version++
  }

  /**
   * The distinct terms of the document in `slot` and their field-weighted frequencies `Σ_f w_f · tf_f`
   * (with the field weights of when it was added), or `undefined` when the slot is free.
   */
  termsOf(slot: number): { readonly ids: Int32Array; readonly tfs: Float32Array } | undefined {
    const ids = this.docTerms[slot]
    return ids === undefined ? undefined : { ids, tfs: this.docTermTf[slot]! }
  }

  /** Whether `slot` holds a document. */
  has(slot: number): boolean {
    return this.docTerms[slot] !== undefined
  }

  /**
   * Adds `weight · idf · tf~/(k1 + tf~)` of `term` to every document containing it.
   */
  scoreTerm(term: number, weight: number, acc: ScoreAccumulator): void {
    const p = this.postings.get(term)
    if (p === undefined) return
    if (p.version !== this.version) this.refresh(p)
    const docs = p.cDocs
    const sc = p.cScores
    const len = docs.length
    const scores = acc.scores
    for (let i = 0; i < len; i++) {
      const d = docs[i]!
      if (scores[d] === 0) acc.add(d, weight * sc[i]!)
      else scores[d]! += weight * sc[i]!
    }
  }

  /** Calls `fn(slot, contribution)` for every document containing the term (unweighted contribution). */
  scan(term: number, fn: (slot: number, contribution: number) => void): void {
    const p = this.postings.get(term)
    if (p === undefined) return
    if (p.version !== this.version) this.refresh(p)
    const docs = p.cDocs
    const sc = p.cScores
    for (let i = 0; i < docs.length; i++) fn(docs[i]!, sc[i]!)
  }

  /** Inverse document frequency of a term (0 when absent). */
  idf(term: number): number {
    const df = this.df(term)
    if (df === 0) return 0
    return Math.log(1 + (this.n - df + 0.5) / (df + 0.5))
  }

  private ensureSlots(count: number): void {
    const F = this.fieldCount
    if (this.docLen.length >= count * F) return
    let cap = Math.max(16, this.docLen.length / F)
    while (cap < count) cap *= 2
    const dl = new Float64Array(cap * F)
    dl.set(this.docLen)
    this.docLen = dl
    this.norm = new Float64Array(cap * F)
    this.normVersion = 0
  }

  private refreshNorms(): void {
    const F = this.fieldCount
    const { weights, b } = this.params
    const slots = this.docLen.length / F
    const avg = this.sumLen.map((s) => (this.n > 0 ? s / this.n : 0))
    for (let d = 0; d < slots; d++) {
      if (this.docTerms[d] === undefined) continue
      for (let f = 0; f < F; f++) {
        const a = avg[f]!
        const bf = b[f]!
        const denom = a > 0 ? 1 - bf + (bf * this.docLen[d * F + f]!) / a : 1
        this.norm[d * F + f] = weights[f]! / denom
      }
    }
    this.normVersion = this.version
  }

  private refresh(p: Posting): void {
    if (this.normVersion !== this.version) this.refreshNorms()
    const F = this.fieldCount
    const k1 = this.params.k1
    const len = p.docs.length
    if (p.cDocs.length !== len) {
      p.cDocs = new Int32Array(len)
      p.cScores = new Float64Array(len)
    }
    const df = len
    const idf = Math.log(1 + (this.n - df + 0.5) / (df + 0.5))
    for (let i = 0; i < len; i++) {
      const d = p.docs[i]!
      let tf = 0
      for (let f = 0; f < F; f++) {
        const raw = p.tfs[i * F + f]!
        if (raw !== 0) tf += raw * this.norm[d * F + f]!
      }
      p.cDocs[i] = d
      p.cScores[i] = (idf * tf) / (k1 + tf)
    }
    p.version = this.version
  }
}
