/**
 * What the Anthropic and Gemini tool-call runners share beyond foundation's `formatToolError` and
 * `unknownToolText`: running calls with a concurrency cap, and the decoded size of base64 data.
 */

/** Runs `run` over `items` with at most `max` in flight; results keep the input order. */
export const mapLimit = async <T, R>(
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

export const approxBytes = (base64: string) => Math.floor((base64.length * 3) / 4)
