/**
 * OpenTelemetry metrics of prefetch, through `@opentelemetry/api` (no-ops until an SDK registers a meter
 * provider).
 *
 * @since 0.1.0
 */
import { type Counter, metrics } from "@opentelemetry/api"

/**
 * The counters a prefetcher records into.
 *
 * @since 0.1.0
 */
export interface PrefetchMeters {
  readonly issued: Counter
  readonly hits: Counter
  readonly wasted: Counter
  readonly cancelled: Counter
  readonly invalidated: Counter
  readonly skipped: Counter
  readonly timeSaved: Counter
}

/**
 * Creates the `toolplane.prefetch.*` counters on the global meter provider (looked up at creation).
 *
 * @since 0.1.0
 */
export const prefetchMeters = (): PrefetchMeters => {
  const meter = metrics.getMeter("@toolplane/exec", "0.2.0")
  const counter = (name: string, description: string, unit = "{call}") =>
    meter.createCounter(`toolplane.prefetch.${name}`, { description, unit })
  return {
    issued: counter("issued", "Speculative calls started"),
    hits: counter("hits", "Real calls served from a prefetch"),
    wasted: counter("wasted", "Speculative calls whose result was never served"),
    cancelled: counter("cancelled", "Speculative calls aborted while running"),
    invalidated: counter(
      "invalidated",
      "Prefetches dropped because their caller called a non-read-only tool",
    ),
    skipped: counter("skipped", "Proposed prefetches refused by a safety rule or a cap"),
    timeSaved: counter("time_saved", "Tool-wait time saved for callers", "ms"),
  }
}
