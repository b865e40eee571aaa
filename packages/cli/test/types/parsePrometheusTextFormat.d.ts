/** Types of the `parse-prometheus-text-format` package (it ships none): the parsed metric families. */
declare module "parse-prometheus-text-format" {
  export interface Sample {
    readonly labels?: Readonly<Record<string, string>>
    readonly value?: string
    readonly buckets?: Readonly<Record<string, string>>
    readonly count?: string
    readonly sum?: string
  }
  export interface MetricFamily {
    readonly name: string
    readonly help: string
    readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
    readonly metrics: readonly Sample[]
  }
  const parsePrometheusTextFormat: (text: string) => MetricFamily[]
  export default parsePrometheusTextFormat
}
