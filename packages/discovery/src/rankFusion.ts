/**
 * A scored hit in a ranked list.
 *
 * @since 0.1.0
 */
export interface ScoredId {
  readonly id: string
  readonly score: number
}

/**
 * Result ordering used everywhere in discovery: score descending, then id ascending
 * (plain code-unit order) for deterministic ties.
 *
 * @since 0.1.0
 */
export function compareHits(a: ScoredId, b: ScoredId): number {
  if (a.score !== b.score) return b.score - a.score
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/**
 * Reciprocal rank fusion: `score(id) = Σ_l weight_l / (k + rank_l(id))` (ranks from 1).
 *
 * @param lists ranked lists, best first
 * @param options `k` (default 60) and per-list `weights` (default 1 each)
 * @since 0.1.0
 */
export function reciprocalRankFusion(
  lists: readonly (readonly ScoredId[])[],
  options: { readonly k?: number; readonly weights?: readonly number[] } = {},
): ScoredId[] {
  const k = options.k ?? 60
  const fused = new Map<string, number>()
  lists.forEach((list, l) => {
    const w = options.weights?.[l] ?? 1
    list.forEach((hit, r) => {
      fused.set(hit.id, (fused.get(hit.id) ?? 0) + w / (k + r + 1))
    })
  })
  return [...fused].map(([id, score]) => ({ id, score })).sort(compareHits)
}

/**
 * Weighted score fusion: each list's scores are normalised (`"max"`: divided by the list's
 * maximum, `"minmax"`: scaled to [0, 1], `"none"`), then `score(id) = Σ_l weight_l · norm_l(id)`.
 *
 * @since 0.1.0
 */
export function weightedScoreFusion(
  lists: readonly (readonly ScoredId[])[],
  options: { readonly weights?: readonly number[]; readonly normalize?: "max" | "minmax" | "none" } = {},
): ScoredId[] {
  const mode = options.normalize ?? "max"
  const fused = new Map<string, number>()
  lists.forEach((list, l) => {
    const w = options.weights?.[l] ?? 1
    let max = Number.NEGATIVE_INFINITY
    let min = Number.POSITIVE_INFINITY
    for (const h of list) {
      if (h.score > max) max = h.score
      if (h.score < min) min = h.score
    }
    for (const h of list) {
      let s = h.score
      if (mode === "max") s = max > 0 ? s / max : 0
      else if (mode === "minmax") s = max > min ? (s - min) / (max - min) : 1
      fused.set(h.id, (fused.get(h.id) ?? 0) + w * s)
    }
  })
  return [...fused].map(([id, score]) => ({ id, score })).sort(compareHits)
}

/**
 * Cosine similarity of two vectors (0 when either is zero).
 *
 * @since 0.1.0
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0
  let na = 0
  let nb = 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a[i]!
    const y = b[i]!
    dot += x * y
    na += x * x
    nb += y * y
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0
}
