/**
 * The statistics every benchmark uses: one median, one percentile.
 *
 * @since 0.1.0
 */

/**
 * The median: the middle value of the sorted numbers, or the mean of the two middle values when their
 * count is even. `NaN` for no numbers.
 *
 * @since 0.1.0
 */
export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/**
 * The `p`-th percentile (0 < p <= 100) by nearest rank: the smallest value with at least `p`% of the
 * numbers at or below it (`percentile(xs, 99)` is p99). `NaN` for no numbers.
 *
 * @since 0.1.0
 */
export const percentile = (xs: readonly number[], p: number): number => {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`)
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}
