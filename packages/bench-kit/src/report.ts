/**
 * The one output format of every benchmark: a Markdown heading naming the machine and the settings, and
 * Markdown tables (paste-able into a README).
 *
 * @since 0.1.0
 */
import { availableParallelism, loadavg } from "node:os"
import type { CaseResult } from "./rounds.js"
import { ratio } from "./rounds.js"

/**
 * A number with thousands separators and exactly `digits` decimals.
 *
 * @since 0.1.0
 */
export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

/**
 * A Markdown table. Columns whose index is listed in `right` (default: every column but the first)
 * are right-aligned.
 *
 * @since 0.1.0
 */
export const markdownTable = (
  header: readonly string[],
  rows: readonly (readonly (string | number)[])[],
  right: readonly number[] = header.map((_, i) => i).slice(1),
): string =>
  [
    `| ${header.join(" | ")} |`,
    `| ${header.map((_, i) => (right.includes(i) ? "---:" : "---")).join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(String).join(" | ")} |`),
  ].join("\n")

/**
 * The heading every benchmark prints first: the title, then Node version, cores, load average and the
 * measuring settings.
 *
 * @since 0.1.0
 */
export const heading = (title: string, settings: string): string => {
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")
  return `\n## ${title}\n\nNode ${process.versions.node}, ${availableParallelism()} cores, load average ${load}; ${settings}\n`
}

/**
 * The settings line of a per-call comparison, for {@link heading}.
 *
 * @since 0.1.0
 */
export const roundsLine = (settings: { readonly rounds: number; readonly roundMs: number }): string =>
  `${settings.rounds} interleaved rounds × ${settings.roundMs} ms per case, median of rounds`

/**
 * A goal on a case's time per call relative to the baseline (`max: 1.05` is "at most 5% slower").
 *
 * @since 0.1.0
 */
export interface Goal {
  readonly max?: number
  readonly min?: number
}

/**
 * Whether `value` meets `goal`, as `"≤ 1.05 PASS"` / `"≥ 20 MISS"`.
 *
 * @since 0.1.0
 */
export const verdict = (value: number, goal: Goal): string => {
  const parts: string[] = []
  let ok = true
  if (goal.max !== undefined) {
    parts.push(`≤ ${goal.max}`)
    ok &&= value <= goal.max
  }
  if (goal.min !== undefined) {
    parts.push(`≥ ${goal.min}`)
    ok &&= value >= goal.min
  }
  return `${parts.join(", ")} ${ok ? "PASS" : "MISS"}`
}

/**
 * The standard table of a per-call comparison: µs per call and calls per second (medians of rounds),
 * and each case's time per call relative to the baseline (`÷ baseline`, from {@link ratio}) with the
 * extra µs, plus a goal column when `goals` names any case.
 *
 * @since 0.1.0
 */
export const comparisonTable = (
  results: readonly CaseResult[],
  options: { readonly baseline: string; readonly goals?: Readonly<Record<string, Goal>> },
): string => {
  const base = results.find((r) => r.name === options.baseline)
  if (base === undefined) throw new RangeError(`no case named "${options.baseline}"`)
  const goals = options.goals ?? {}
  const withGoals = Object.keys(goals).length > 0
  const rows = results.map((r) => {
    const x = ratio(r, base)
    const delta = r.usPerCall - base.usPerCall
    const goal = goals[r.name]
    return [
      r.name,
      fmt(r.usPerCall, 3),
      fmt(r.opsPerSec),
      r === base ? "baseline" : `${fmt(x, 2)}x (${delta >= 0 ? "+" : ""}${fmt(delta, 3)} µs)`,
      ...(withGoals ? [goal === undefined ? "" : verdict(x, goal)] : []),
    ]
  })
  return markdownTable(
    ["case", "µs/call", "calls/s", "÷ baseline (time per call)", ...(withGoals ? ["goal"] : [])],
    rows,
  )
}
