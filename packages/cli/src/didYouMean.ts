/**
 * "Did you mean" suggestions for mistyped commands, flags, configuration keys and values.
 *
 * @since 0.1.0
 */

/**
 * The optimal string alignment distance between two strings: insertions, deletions, substitutions and
 * swaps of two adjacent characters each cost 1 (`comand` → `command` is 1, `sreach` → `search` is 1).
 *
 * @since 0.1.0
 */
export const editDistance = (a: string, b: string): number => {
  const rows = a.length + 1
  const cols = b.length + 1
  const d: number[] = new Array(rows * cols).fill(0)
  for (let i = 0; i < rows; i++) d[i * cols] = i
  for (let j = 0; j < cols; j++) d[j] = j
  for (let i = 1; i < rows; i++)
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(
        d[(i - 1) * cols + j]! + 1,
        d[i * cols + j - 1]! + 1,
        d[(i - 1) * cols + j - 1]! + cost,
      )
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[(i - 2) * cols + j - 2]! + 1)
      d[i * cols + j] = best
    }
  return d[rows * cols - 1]!
}

/**
 * The candidate closest to `word` (case-insensitively), when it is close enough to be the likely
 * intent: at most a third of the word's length in edits (at least 1, at most 3), or `word` differing only
 * in case or `-`/`_`. `undefined` when nothing is that close.
 *
 * @since 0.1.0
 */
export const closest = (word: string, candidates: Iterable<string>): string | undefined => {
  const normal = (s: string) => s.toLowerCase().replaceAll("-", "_")
  const w = normal(word)
  const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)))
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    if (candidate === word) continue
    const distance = editDistance(w, normal(candidate))
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return bestDistance <= limit ? best : undefined
}

/**
 * `; did you mean "X"?` for the closest candidate, or `""`.
 *
 * @since 0.1.0
 */
export const didYouMean = (word: string, candidates: Iterable<string>): string => {
  const match = closest(word, candidates)
  return match === undefined ? "" : `; did you mean "${match}"?`
}
