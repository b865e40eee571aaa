import type { ScoreAccumulator } from "./scoreAccumulator.js"

/**
 * Partial selection of the `k` best touched slots of an accumulator, ordered by score
 * (descending) then by key (ascending, plain code-unit order): deterministic ties.
 * Uses a bounded binary heap: O(n log k), no full sort.
 *
 * @param accept optional predicate (filters); rejected slots are not counted in `total`.
 * @returns the selected slots (best first) and the number of accepted slots with score > 0.
 */
export function selectTop(
  acc: ScoreAccumulator,
  k: number,
  keyOf: (slot: number) => string,
  accept?: (slot: number) => boolean,
): { slots: number[]; total: number } {
  const scores = acc.scores
  const heap: number[] = [] // min-heap on (score, then key descending) → root is the worst kept
  let total = 0
  // worse(a, b): a ranks below b
  const worse = (a: number, b: number): boolean => {
    const sa = scores[a]!
    const sb = scores[b]!
    if (sa !== sb) return sa < sb
    return keyOf(a) > keyOf(b)
  }
  for (let i = 0; i < acc.count; i++) {
    const s = acc.touched[i]!
    if (!(scores[s]! > 0)) continue
    if (accept !== undefined && !accept(s)) continue
    total++
    if (k <= 0) continue
    if (heap.length < k) {
      heap.push(s)
      let c = heap.length - 1
      while (c > 0) {
        const p = (c - 1) >> 1
        if (worse(heap[c]!, heap[p]!)) {
          const t = heap[c]!
          heap[c] = heap[p]!
          heap[p] = t
          c = p
        } else break
      }
    } else if (worse(heap[0]!, s)) {
      heap[0] = s
      let p = 0
      const n = heap.length
      for (;;) {
        const l = 2 * p + 1
        const r = l + 1
        let m = p
        if (l < n && worse(heap[l]!, heap[m]!)) m = l
        if (r < n && worse(heap[r]!, heap[m]!)) m = r
        if (m === p) break
        const t = heap[m]!
        heap[m] = heap[p]!
        heap[p] = t
        p = m
      }
    }
  }
  heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0))
  return { slots: heap, total }
}
