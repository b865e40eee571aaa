/**
 * The semantic channel: each tool's text (name, title, description, parameter names) and the query
 * become word-vector means (see wordVectors.ts); the cosine of a tool to the query, relative to the best
 * tool's and raised to `power`, is added to the tool's lexical score, scaled by `weight` times the best
 * lexical score (contributions under a tenth of the best one are left out: they would only touch every
 * tool). It bridges words a tool's text does not contain ("bitcoin" → a finance tool).
 *
 * Cost: catalogs of at most `scan` tools are compared whole (every tool can come up); larger ones only
 * re-rank their best lexical hits (`RERANK`), so a query stays O(min(size, scan) · dimensions).
 */
import type { ScoreAccumulator } from "./scoreAccumulator.js"
import type { WordVectors } from "./wordVectors.js"

/** Lexical hits re-ranked in a catalog larger than `scan`. */
const RERANK = 50
/** Smallest relative contribution `(cos / best) ^ power` added. */
const FLOOR = 0.1
/** Smallest cosine of a tool that no query word matches lexically (keeps "no match" meaning no match). */
const MIN_COS = 0.5

export class SemanticChannel {
  private readonly D: number
  /** slot × D: unit vectors (0 for a tool without one) */
  private matrix = new Float32Array(0)
  /** per slot: 1 when the slot holds a tool with a vector */
  private has = new Uint8Array(0)
  private slots = 0
  private live = 0
  private readonly query: Float32Array
  private candidates = new Int32Array(RERANK)
  private cosines = new Float64Array(RERANK)

  constructor(
    private readonly words: WordVectors,
    private readonly skip: ReadonlySet<string>,
    readonly weight: number,
    readonly power: number,
    readonly scan: number,
  ) {
    this.D = words.dimensions
    this.query = new Float32Array(this.D)
  }

  add(slot: number, words: readonly string[]): void {
    if (slot >= this.has.length) {
      let cap = Math.max(16, this.has.length)
      while (cap <= slot) cap *= 2
      const m = new Float32Array(cap * this.D)
      m.set(this.matrix)
      this.matrix = m
      const h = new Uint8Array(cap)
      h.set(this.has)
      this.has = h
    }
    const v = this.matrix.subarray(slot * this.D, (slot + 1) * this.D)
    this.has[slot] = this.words.embed(words, v, this.skip) ? 1 : 0
    if (this.has[slot] === 0) v.fill(0)
    this.slots = Math.max(this.slots, slot + 1)
    this.live++
  }

  remove(slot: number): void {
    if (slot >= this.has.length) return
    this.has[slot] = 0
    this.live--
  }

  /** Adds the semantic scores of the query's words to `acc` (which holds the lexical scores). */
  apply(
    words: readonly string[],
    acc: ScoreAccumulator,
    accept: ((slot: number) => boolean) | undefined,
    weightOf?: (word: string) => number,
  ): void {
    const q = this.query
    if (!this.words.embed(words, q, this.skip, weightOf)) return
    const D = this.D
    const m = this.matrix
    const has = this.has
    let n = 0
    if (this.live <= this.scan) {
      if (this.candidates.length < this.slots) {
        this.candidates = new Int32Array(this.slots)
        this.cosines = new Float64Array(this.slots)
      }
      for (let s = 0; s < this.slots; s++) if (has[s] === 1) this.candidates[n++] = s
    } else n = this.topLexical(acc)
    let best = 0
    for (let i = 0; i < n; i++) {
      const s = this.candidates[i]!
      let c = 0
      if (has[s] === 1 && (accept === undefined || accept(s))) {
        const at = s * D
        for (let d = 0; d < D; d++) c += q[d]! * m[at + d]!
      }
      this.cosines[i] = c
      if (c > best) best = c
    }
    if (best <= 0) return
    const maxL = acc.max()
    const scale = this.weight * (maxL > 0 ? maxL : 1)
    const p = this.power
    const inv = 1 / best
    for (let i = 0; i < n; i++) {
      const c = this.cosines[i]!
      if (c <= 0) continue
      const r = (c * inv) ** p
      if (r < FLOOR) continue
      const s = this.candidates[i]!
      if (c < MIN_COS && acc.scores[s] === 0) continue
      acc.add(s, scale * r)
    }
  }

  /** The `RERANK` best lexical hits (ties: lower slot) into `candidates`, unordered; returns how many. */
  private topLexical(acc: ScoreAccumulator): number {
    const c = this.candidates
    const sc = acc.scores
    const k = RERANK
    let n = 0
    // min-heap on (score, then slot descending): the root is the worst kept
    const worse = (a: number, b: number) => sc[a]! < sc[b]! || (sc[a] === sc[b] && a > b)
    for (let i = 0; i < acc.count; i++) {
      const s = acc.touched[i]!
      if (n < k) {
        let j = n++
        c[j] = s
        while (j > 0) {
          const p = (j - 1) >> 1
          if (!worse(c[j]!, c[p]!)) break
          const t = c[j]!
          c[j] = c[p]!
          c[p] = t
          j = p
        }
      } else if (worse(c[0]!, s)) {
        c[0] = s
        let j = 0
        for (;;) {
          const l = 2 * j + 1
          const r = l + 1
          let w = j
          if (l < n && worse(c[l]!, c[w]!)) w = l
          if (r < n && worse(c[r]!, c[w]!)) w = r
          if (w === j) break
          const t = c[w]!
          c[w] = c[j]!
          c[j] = t
          j = w
        }
      }
    }
    return n
  }
}
