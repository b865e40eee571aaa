/**
 * Instruments for the per-call path of the gateway: counting and observing is plain arithmetic on
 * numbers this module owns, handed to prom-client only when the registry is scraped. A prom-client child
 * (`counter.labels(...)`, `histogram.labels(...)`) still builds a label object, validates it and hashes
 * it into a string on every `inc`/`observe`; at concurrency 1 that was most of what metrics cost a call.
 * The exposition text is prom-client's own (the same registry formats it), unchanged.
 *
 * @since 0.2.0
 */
import { Counter, type Registry } from "prom-client"

/**
 * A histogram with one label, observed by plain arithmetic, registered as a prom-client metric.
 *
 * @internal
 */
export interface HotHistogram {
  /** The cell of one label value (kept: observe through it on the hot path). */
  cell(labelValue: string): HistogramCell
}

/**
 * One label value's buckets of a {@link HotHistogram}.
 *
 * @internal
 */
export interface HistogramCell {
  observe(value: number): void
}

class Cell implements HistogramCell {
  /** Observations per bucket (not cumulative); the last slot is above the highest bound. */
  readonly counts: Float64Array
  sum = 0
  count = 0
  constructor(
    readonly bounds: readonly number[],
    readonly labels: Readonly<Record<string, string>>,
    /** Called at the first observation: a label value is exported once observed, as prom-client does. */
    private readonly first: (cell: Cell) => void,
  ) {
    this.counts = new Float64Array(bounds.length + 1)
  }
  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`)
    if (this.count === 0) this.first(this)
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && value > bounds[i]!) i++
    this.counts[i]!++
    this.sum += value
    this.count++
  }
}

/**
 * A one-label histogram on `registry` whose exposition matches prom-client's `Histogram` (buckets,
 * `+Inf`, `_sum`, `_count` per label value, in the order label values were first observed).
 *
 * @internal
 */
export const hotHistogram = (
  registry: Registry,
  options: {
    readonly name: string
    readonly help: string
    readonly label: string
    readonly buckets: readonly number[]
  },
): HotHistogram => {
  const { name, help, label } = options
  const bounds = [...options.buckets].sort((a, b) => a - b)
  /** Every cell handed out, by label value. */
  const cells = new Map<string, Cell>()
  /** The cells observed, in the order of their first observation (the export order). */
  const observed = new Set<Cell>()
  const values = () =>
    [...observed].flatMap((c) => {
      let acc = 0
      const shared = c.labels
      return [
        ...bounds.map((le, i) => {
          acc += c.counts[i]!
          return {
            labels: { le },
            sharedLabels: shared,
            value: acc,
            metricName: `${name}_bucket`,
            exemplar: null,
          }
        }),
        {
          labels: { le: "+Inf" },
          sharedLabels: shared,
          value: c.count,
          metricName: `${name}_bucket`,
          exemplar: null,
        },
        { labels: {}, sharedLabels: shared, value: c.sum, metricName: `${name}_sum`, exemplar: undefined },
        {
          labels: {},
          sharedLabels: shared,
          value: c.count,
          metricName: `${name}_count`,
          exemplar: undefined,
        },
      ]
    })
  const metric = {
    name,
    help,
    type: "histogram",
    aggregator: "sum",
    getForPromString: async () => ({ name, help, type: "histogram", values: values(), aggregator: "sum" }),
    get: async () => ({
      name,
      help,
      type: "histogram",
      values: values().map(({ labels, sharedLabels, ...rest }) => ({
        ...rest,
        labels: { ...labels, ...sharedLabels },
      })),
      aggregator: "sum",
    }),
    reset: () => {
      for (const c of observed) {
        c.counts.fill(0)
        c.sum = 0
        c.count = 0
      }
      observed.clear()
    },
  }
  registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0])
  return {
    cell: (value) => {
      let c = cells.get(value)
      if (c === undefined) {
        c = new Cell(bounds, { [label]: value }, (first) => observed.add(first))
        cells.set(value, c)
      }
      return c
    },
  }
}

/**
 * A labelled prom-client `Counter` counted in plain numbers: {@link HotCounter.cell} returns a slot to
 * increment; the counter's `collect` copies the slots into it at scrape time.
 *
 * @internal
 */
export interface HotCounter<L extends string> {
  cell(labels: Readonly<Record<L, string>>): { n: number }
}

/**
 * Creates a {@link HotCounter} on `registry`.
 *
 * @internal
 */
export const hotCounter = <L extends string>(
  registry: Registry,
  options: { readonly name: string; readonly help: string; readonly labelNames: readonly L[] },
): HotCounter<L> => {
  const cells: { readonly labels: Readonly<Record<L, string>>; n: number }[] = []
  new Counter<L>({
    name: options.name,
    help: options.help,
    labelNames: options.labelNames,
    registers: [registry],
    collect() {
      this.reset()
      for (const c of cells) if (c.n > 0) this.labels(c.labels).inc(c.n)
    },
  })
  return {
    cell: (labels) => {
      const c = { labels, n: 0 }
      cells.push(c)
      return c
    },
  }
}
