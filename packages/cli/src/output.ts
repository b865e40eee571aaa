/**
 * Human-readable tables and stable JSON for the CLI's output.
 *
 * @since 0.1.0
 */

/**
 * Renders rows as an aligned text table with a header line. Cells are cut to `maxWidth` characters.
 *
 * @since 0.1.0
 */
export const table = (
  header: readonly string[],
  rows: readonly (readonly string[])[],
  maxWidth = 60,
): string => {
  const cut = (s: string) => (s.length > maxWidth ? `${s.slice(0, maxWidth - 1)}…` : s)
  const cells = [header, ...rows].map((r) => r.map((c) => cut(c.replace(/\s+/g, " "))))
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)))
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd()
  return [line(cells[0]!), line(widths.map((w) => "-".repeat(w))), ...cells.slice(1).map(line)].join("\n")
}

/**
 * Stable JSON: two-space indentation and a trailing newline.
 *
 * @since 0.1.0
 */
export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`

/**
 * The first line of a text, for one-line summaries.
 *
 * @since 0.1.0
 */
export const firstLine = (text: string | undefined): string => (text ?? "").split(/\r?\n/)[0]!.trim()
