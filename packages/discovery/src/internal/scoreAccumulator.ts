/**
 * A reusable score accumulator: a dense score array plus the list of touched slots.
 *
 * @since 0.1.0
 */
export class ScoreAccumulator {
  scores: Float64Array
  touched: Int32Array
  count = 0
  private mark: Uint8Array

  constructor(capacity = 64) {
    this.scores = new Float64Array(capacity)
    this.touched = new Int32Array(capacity)
    this.mark = new Uint8Array(capacity)
  }

  /** Makes room for slots `< capacity`. */
  ensure(capacity: number): void {
    if (capacity <= this.scores.length) return
    let n = this.scores.length * 2
    while (n < capacity) n *= 2
    const s = new Float64Array(n)
    s.set(this.scores)
    const t = new Int32Array(n)
    t.set(this.touched)
    const m = new Uint8Array(n)
    m.set(this.mark)
    this.scores = s
    this.touched = t
    this.mark = m
  }

  add(slot: number, value: number): void {
    if (this.mark[slot] === 0) {
      this.mark[slot] = 1
      this.touched[this.count++] = slot
    }
    this.scores[slot]! += value
  }

  /** Clears the touched entries (O(touched)). */
  reset(): void {
    const { touched, scores, mark } = this
    for (let i = 0; i < this.count; i++) {
      const s = touched[i]!
      scores[s] = 0
      mark[s] = 0
    }
    this.count = 0
  }

  /** Maximum score among touched slots (0 when none). */
  max(): number {
    let m = 0
    for (let i = 0; i < this.count; i++) {
      const v = this.scores[this.touched[i]!]!
      if (v > m) m = v
    }
    return m
  }
}
