/**
 * Load on more than two sides in the same rounds (the bench-kit's `compareLoad` compares two): every
 * round runs every concurrency level × side once, in a rotated order, and the table reports each side's
 * medians and its CPU per call as a ratio to the first side's in the same round.
 */
import { type CpuLoadSample, fmt, interleaved, markdownTable, median } from "@toolplane/bench-kit"

/** Samples by concurrency, then by side (in the order given). */
export type SideResults = ReadonlyMap<number, ReadonlyMap<string, readonly CpuLoadSample[]>>

/** Runs `measure` for every side at every concurrency level, `rounds` interleaved rounds. */
export const measureSides = async (
  sides: readonly string[],
  settings: { readonly rounds: number; readonly concurrency: readonly number[] },
  measure: (side: string, concurrency: number) => Promise<CpuLoadSample>,
): Promise<SideResults> => {
  const results = new Map<number, Map<string, CpuLoadSample[]>>()
  for (const c of settings.concurrency) results.set(c, new Map(sides.map((side) => [side, []])))
  const cells = settings.concurrency.flatMap((c) => sides.map((side) => ({ c, side })))
  await interleaved(settings.rounds, cells, async ({ c, side }) => {
    results
      .get(c)!
      .get(side)!
      .push(await measure(side, c))
  })
  return results
}

/**
 * One table per concurrency level: per side calls/s, p50, p99, CPU µs per call of its server process,
 * and throughput and CPU per call ÷ the first side's (medians of per-round ratios, with each round's).
 */
export const sidesTables = (results: SideResults, labels: Readonly<Record<string, string>>): string =>
  [...results]
    .map(([c, bySide]) => {
      const [first, base] = [...bySide][0]!
      const rounds = (samples: readonly CpuLoadSample[], key: "throughput" | "cpuPerCall") => {
        const ratios = samples.map((s, i) => s[key] / base[i]![key])
        return `${fmt(median(ratios), 2)} (${ratios.map((r) => r.toFixed(2)).join(", ")})`
      }
      const table = markdownTable(
        [
          "side",
          "calls/s",
          "p50 ms",
          "p99 ms",
          "server CPU µs/call",
          `calls/s ÷ ${labels[first] ?? first}`,
          `CPU/call ÷ ${labels[first] ?? first}`,
        ],
        [...bySide].map(([side, samples]) => [
          labels[side] ?? side,
          fmt(median(samples.map((s) => s.throughput))),
          fmt(median(samples.map((s) => s.p50)), 3),
          fmt(median(samples.map((s) => s.p99)), 3),
          fmt(median(samples.map((s) => s.cpuPerCall))),
          rounds(samples, "throughput"),
          rounds(samples, "cpuPerCall"),
        ]),
      )
      return `\nconcurrency ${c}:\n\n${table}`
    })
    .join("\n")
