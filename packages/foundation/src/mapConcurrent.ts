/**
 * Bounded concurrency for the provider plugins' tool-call runners (`maxConcurrency`).
 *
 * @since 0.1.0
 */

/**
 * Runs `run` over `items` with at most `max` calls in flight (at least one; `Infinity` runs all at once)
 * and resolves with the results in input order. Rejects with the first rejection, as `Promise.all` does.
 *
 * @example
 * ```ts
 * const lengths = await mapConcurrent(["a", "bb", "ccc"], 2, async (word) => word.length) // [1, 2, 3]
 * ```
 * @since 0.1.0
 */
export const mapConcurrent = async <T, R>(
  items: readonly T[],
  max: number,
  run: (item: T) => Promise<R>,
): Promise<R[]> => {
  const out: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await run(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(max, items.length)) }, worker))
  return out
}
