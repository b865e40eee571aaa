/**
 * The gateway's metrics: Prometheus instruments (`prom-client`, its own registry, served as the text
 * exposition format) and, when an OpenTelemetry SDK has registered a meter provider, the same call
 * instruments as OpenTelemetry metrics. Label values are bounded: backends and outcomes are finite
 * sets, and tools beyond `maxTools` distinct ids are counted as `tool="other"`.
 *
 * @since 0.1.0
 */
import {
  type Attributes,
  metrics,
  type ObservableGauge,
  type Counter as OtelCounter,
  type Histogram as OtelHistogram,
} from "@opentelemetry/api"
import type { PrefetchStats } from "@toolplane/exec"
import { Counter, Gauge, Histogram, Registry } from "prom-client"
import { type HistogramCell, hotCounter, hotHistogram } from "./hotInstruments.js"

/**
 * Everything the gateway reports to metrics.
 *
 * @since 0.1.0
 */
export interface GatewayMetrics {
  /** The Prometheus registry (`registry.metrics()` is the exposition text). */
  readonly registry: Registry
  callStarted(): void
  /**
   * A call ended. `totalSeconds` is the whole call as the gateway served it; `backendSeconds` the time
   * spent in backends (undefined when no backend was reached).
   */
  callEnded(
    tool: string,
    backend: string,
    outcome: string,
    totalSeconds: number,
    backendSeconds: number | undefined,
  ): void
  backendUp(backend: string, up: boolean): void
  backendReconnect(backend: string): void
  backendTools(backend: string, tools: number): void
  approvalDecided(decision: "approved" | "denied", channel: string): void
  authFailure(reason: string): void
  configReload(result: "applied" | "rejected"): void
  sandboxLimit(limit: string): void
  /** Reads prefetch counters (the current gateway's runner; summed over reloads). */
  prefetchSource(read: () => PrefetchStats | undefined): void
  /** Reads the approvals waiting now (their start times, epoch ms). */
  pendingApprovalsSource(read: () => readonly number[]): void
  /**
   * A durable run's approval was decided (reported once per decision over every runner of the store).
   * `waitedSeconds`: from the request to the decision, when known.
   *
   * @since 0.2.0
   */
  durableApprovalDecided(
    decision: "approved" | "rejected" | "expired",
    channel: string,
    waitedSeconds: number | undefined,
  ): void
  /**
   * Reads the durable store's waiting approvals (at scrape time; a failed read keeps the last values).
   *
   * @since 0.2.0
   */
  durableApprovalsSource(read: () => Promise<DurableApprovalsPending>): void
}

/**
 * The approvals waiting in the durable run store.
 *
 * @since 0.2.0
 */
export interface DurableApprovalsPending {
  readonly count: number
  /** When the oldest started waiting (epoch ms). */
  readonly oldestRequestedAt?: number
}

/** Decision channels kept as label values; any other is counted as `"other"` (bounded labels). */
const DURABLE_CHANNELS = new Set(["elicitation", "cli", "console", "api", "expiry", "unknown"])
/** Seconds: a durable approval waits for a person, from a second to a week. */
const WAIT_BUCKETS = [1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 86_400, 7 * 86_400]

/**
 * Options of {@link createGatewayMetrics}.
 *
 * @since 0.1.0
 */
export interface GatewayMetricsOptions {
  /** Distinct tool label values kept before folding into `"other"`. Default 500. */
  readonly maxTools?: number
  /** Mirror the call instruments as OpenTelemetry metrics when a meter provider is registered. Default true. */
  readonly otel?: boolean
}

/** Seconds: from 0.5 ms (an in-process call) to 60 s. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
const OTEL_GLOBAL = Symbol.for("opentelemetry.js.api.1")

/** Whether an OpenTelemetry SDK registered a meter provider (the API's global holds a "metrics" entry). */
const otelMetricsRegistered = (): boolean =>
  (globalThis as Record<symbol, { metrics?: unknown } | undefined>)[OTEL_GLOBAL]?.metrics !== undefined

/**
 * The folded tool label: the id itself for the first `max` distinct ids, then `"other"`.
 *
 * @since 0.1.0
 */
export const toolLabeler = (max: number): ((tool: string) => string) => {
  const kept = new Set<string>()
  return (tool) => {
    if (kept.has(tool)) return tool
    if (kept.size >= max) return "other"
    kept.add(tool)
    return tool
  }
}

/**
 * Creates the instruments on a fresh registry.
 *
 * @since 0.1.0
 */
export const createGatewayMetrics = (options: GatewayMetricsOptions = {}): GatewayMetrics => {
  const registry = new Registry()
  const toolLabel = toolLabeler(options.maxTools ?? 500)
  const registers = [registry]
  // The shapes most instruments share: one registry, labels typed by their names.
  const counter = <L extends string>(name: string, help: string, ...labelNames: L[]) =>
    new Counter<L>({ name, help, labelNames, registers })
  const gauge = <L extends string>(name: string, help: string, ...labelNames: L[]) =>
    new Gauge<L>({ name, help, labelNames, registers })
  // The per-call instruments count in plain numbers, handed to the registry at scrape time.
  const calls = hotCounter(registry, {
    name: "toolplane_calls_total",
    help: "Tool calls served, by tool (folded past metrics.max_tools into other), backend and outcome (ok, tool_error, or the error's tag)",
    labelNames: ["tool", "backend", "outcome"],
  })
  const backendHistogram = (name: string, help: string) =>
    hotHistogram(registry, { name, help, label: "backend", buckets: BUCKETS })
  const duration = backendHistogram(
    "toolplane_call_duration_seconds",
    "Whole call as served by the gateway, by backend",
  )
  const backendDuration = backendHistogram(
    "toolplane_backend_duration_seconds",
    "Time spent in the backend (every attempt) of calls that reached one",
  )
  const overhead = backendHistogram(
    "toolplane_gateway_overhead_seconds",
    "Gateway time of calls that reached a backend: the whole call minus backend time",
  )
  // A plain number on the hot path, read at scrape time.
  let inFlightNow = 0
  new Gauge({
    name: "toolplane_calls_in_flight",
    help: "Calls being served now",
    registers,
    collect() {
      this.set(inFlightNow)
    },
  })
  const up = gauge(
    "toolplane_backend_up",
    "1 when the backend is connected, 0 while it is down or reconnecting",
    "backend",
  )
  const reconnects = counter(
    "toolplane_backend_reconnects_total",
    "Times a backend came back after being lost or down at start",
    "backend",
  )
  const tools = gauge("toolplane_backend_tools", "Tools a backend serves", "backend")
  const approvals = counter(
    "toolplane_approval_decisions_total",
    "Approval decisions, by decision and channel (elicit, config)",
    "decision",
    "channel",
  )
  const auth = counter("toolplane_auth_failures_total", "Refused bearer tokens, by reason", "reason")
  const reloads = counter("toolplane_config_reloads_total", "Configuration reloads, by result", "result")
  const sandboxRuns = counter("toolplane_sandbox_runs_total", "Code-mode programs run, by outcome", "outcome")
  const sandboxLimits = counter(
    "toolplane_sandbox_limit_hits_total",
    "Code-mode programs stopped by a limit (SandboxTimeout, SandboxMemory, SandboxLimit)",
    "limit",
  )

  // Prefetch counters live in the runner; read at scrape time and summed over reloads (each reload
  // makes a new runner whose counters start at zero).
  let readPrefetch: () => PrefetchStats | undefined = () => undefined
  const prefetchTotals = { issued: 0, hits: 0, wasted: 0 }
  let lastPrefetch: PrefetchStats | undefined
  const syncPrefetch = () => {
    const stats = readPrefetch()
    if (stats === undefined) return
    const base = lastPrefetch !== undefined && stats.issued >= lastPrefetch.issued ? lastPrefetch : undefined
    prefetchTotals.issued += stats.issued - (base?.issued ?? 0)
    prefetchTotals.hits += stats.hits - (base?.hits ?? 0)
    prefetchTotals.wasted += stats.wasted - (base?.wasted ?? 0)
    lastPrefetch = stats
  }
  const prefetchCounter = (key: keyof typeof prefetchTotals, help: string) =>
    new Counter({
      name: `toolplane_prefetch_${key}_total`,
      help,
      registers,
      collect() {
        if (key === "issued") syncPrefetch()
        this.reset()
        this.inc(prefetchTotals[key])
      },
    })
  // "issued" is registered first so its collect() reads the stats before hits and wasted are reported.
  prefetchCounter("issued", "Speculative calls started")
  prefetchCounter(
    "hits",
    "Calls answered from a prefetch (the gateway's only answers without a backend call)",
  )
  prefetchCounter("wasted", "Speculative calls whose result was never served")

  let readPending: () => readonly number[] = () => []
  new Gauge({
    name: "toolplane_approvals_pending",
    help: "Approval questions waiting for an answer",
    registers,
    collect() {
      this.set(readPending().length)
    },
  })
  new Gauge({
    name: "toolplane_approval_oldest_pending_seconds",
    help: "Age of the oldest approval question waiting (0 when none)",
    registers,
    collect() {
      const pending = readPending()
      this.set(pending.length === 0 ? 0 : (Date.now() - Math.min(...pending)) / 1000)
    },
  })

  // Durable runs' approvals: decisions counted by the runner that hands each to the engine (once over
  // every runner); what waits is read from the store at scrape time (the same on every replica).
  // Registered on first use: a gateway without durable skills exports none of them.
  let readDurable: (() => Promise<DurableApprovalsPending>) | undefined
  let durableNow: { count: number; oldestSeconds: number } = { count: 0, oldestSeconds: 0 }
  /** One store read per scrape, shared by both gauges. */
  let durableRead: Promise<void> | undefined
  const refreshDurable = (): Promise<void> => {
    if (readDurable === undefined) return Promise.resolve()
    durableRead ??= readDurable()
      .then((p) => {
        durableNow = {
          count: p.count,
          oldestSeconds:
            p.oldestRequestedAt === undefined ? 0 : Math.max(0, (Date.now() - p.oldestRequestedAt) / 1000),
        }
      })
      .catch(() => {})
      .finally(() => {
        durableRead = undefined
      })
    return durableRead
  }
  let durable:
    | { readonly decisions: Counter<"decision" | "channel">; readonly wait: Histogram<"decision"> }
    | undefined
  const durableInstruments = () => {
    if (durable !== undefined) return durable
    new Gauge({
      name: "toolplane_durable_approvals_pending",
      help: "Durable runs' steps waiting for approval, in the whole run store",
      registers,
      async collect() {
        await refreshDurable()
        this.set(durableNow.count)
      },
    })
    new Gauge({
      name: "toolplane_durable_approval_oldest_pending_seconds",
      help: "Age of the durable run store's oldest approval waiting (0 when none)",
      registers,
      async collect() {
        await refreshDurable()
        this.set(durableNow.oldestSeconds)
      },
    })
    durable = {
      decisions: counter(
        "toolplane_durable_approval_decisions_total",
        "Durable runs' approval decisions, by decision (approved, rejected, expired) and channel (elicitation, cli, console, api, expiry)",
        "decision",
        "channel",
      ),
      wait: new Histogram<"decision">({
        name: "toolplane_durable_approval_wait_seconds",
        help: "Durable runs' approvals: time from the request to the decision",
        labelNames: ["decision"],
        buckets: WAIT_BUCKETS,
        registers,
      }),
    }
    return durable
  }

  // Cells kept per label set (tool → backend → outcome; backend): a call ends with map lookups and
  // additions, no label object, string key or prom-client child.
  const callCells = new Map<string, Map<string, Map<string, { n: number }>>>()
  const histCells = new Map<string, readonly [HistogramCell, HistogramCell, HistogramCell]>()
  const callCell = (tool: string, backend: string, outcome: string): { n: number } => {
    let byBackend = callCells.get(tool)
    if (byBackend === undefined) callCells.set(tool, (byBackend = new Map()))
    let byOutcome = byBackend.get(backend)
    if (byOutcome === undefined) byBackend.set(backend, (byOutcome = new Map()))
    let cell = byOutcome.get(outcome)
    if (cell === undefined) byOutcome.set(outcome, (cell = calls.cell({ tool, backend, outcome })))
    return cell
  }

  const otel = options.otel !== false && otelMetricsRegistered() ? otelInstruments() : undefined

  return {
    registry,
    callStarted: () => {
      inFlightNow++
      otel?.inFlight.add(1)
    },
    callEnded: (tool, backend, outcome, totalSeconds, backendSeconds) => {
      inFlightNow--
      const label = toolLabel(tool)
      callCell(label, backend, outcome).n++
      let hist = histCells.get(backend)
      if (hist === undefined) {
        hist = [duration.cell(backend), backendDuration.cell(backend), overhead.cell(backend)] as const
        histCells.set(backend, hist)
      }
      hist[0].observe(totalSeconds)
      if (backendSeconds !== undefined) {
        hist[1].observe(backendSeconds)
        hist[2].observe(Math.max(0, totalSeconds - backendSeconds))
      }
      if (tool.endsWith("/execute_code")) sandboxRuns.labels(outcome).inc()
      if (otel !== undefined) {
        const attributes: Attributes = {
          "toolplane.tool": label,
          "toolplane.backend": backend,
          "toolplane.outcome": outcome,
        }
        otel.inFlight.add(-1)
        otel.calls.add(1, attributes)
        otel.duration.record(totalSeconds, { "toolplane.backend": backend })
        if (backendSeconds !== undefined) {
          otel.backend.record(backendSeconds, { "toolplane.backend": backend })
          otel.overhead.record(Math.max(0, totalSeconds - backendSeconds), { "toolplane.backend": backend })
        }
      }
    },
    backendUp: (backend, isUp) => up.labels(backend).set(isUp ? 1 : 0),
    backendReconnect: (backend) => reconnects.labels(backend).inc(),
    backendTools: (backend, n) => tools.labels(backend).set(n),
    approvalDecided: (decision, channel) => approvals.labels(decision, channel).inc(),
    authFailure: (reason) => auth.labels(reason).inc(),
    configReload: (result) => reloads.labels(result).inc(),
    sandboxLimit: (limit) => sandboxLimits.labels(limit).inc(),
    prefetchSource: (read) => {
      readPrefetch = read
    },
    pendingApprovalsSource: (read) => {
      readPending = read
    },
    durableApprovalDecided: (decision, channel, waitedSeconds) => {
      const label = DURABLE_CHANNELS.has(channel) ? channel : "other"
      const instruments = durableInstruments()
      instruments.decisions.labels(decision, label).inc()
      if (waitedSeconds !== undefined) instruments.wait.labels(decision).observe(waitedSeconds)
      otel?.durableDecisions.add(1, {
        "toolplane.decision": decision,
        "toolplane.channel": label,
      })
      if (waitedSeconds !== undefined)
        otel?.durableWait.record(waitedSeconds, { "toolplane.decision": decision })
    },
    durableApprovalsSource: (read) => {
      readDurable = read
      durableInstruments()
      if (otel !== undefined) {
        // OpenTelemetry observes synchronously: the last values read, refreshed after each observation.
        otel.durablePending.addCallback((result) => {
          result.observe(durableNow.count)
          void refreshDurable()
        })
        otel.durableOldest.addCallback((result) => result.observe(durableNow.oldestSeconds))
        void refreshDurable()
      }
    },
  }
}

interface OtelInstruments {
  readonly calls: OtelCounter
  readonly inFlight: ReturnType<ReturnType<typeof metrics.getMeter>["createUpDownCounter"]>
  readonly duration: OtelHistogram
  readonly backend: OtelHistogram
  readonly overhead: OtelHistogram
  readonly durableDecisions: OtelCounter
  readonly durableWait: OtelHistogram
  readonly durablePending: ObservableGauge
  readonly durableOldest: ObservableGauge
}

/** The call instruments on the global OpenTelemetry meter provider (`toolplane.*`, seconds). */
const otelInstruments = (): OtelInstruments => {
  const meter = metrics.getMeter("@toolplane/cli", "0.3.0")
  const histogram = (name: string, description: string) =>
    meter.createHistogram(name, { description, unit: "s", advice: { explicitBucketBoundaries: BUCKETS } })
  return {
    calls: meter.createCounter("toolplane.calls", { description: "Tool calls served", unit: "{call}" }),
    inFlight: meter.createUpDownCounter("toolplane.calls.in_flight", {
      description: "Calls being served now",
    }),
    duration: histogram("toolplane.call.duration", "Whole call as served by the gateway"),
    backend: histogram("toolplane.backend.duration", "Time spent in the backend"),
    overhead: histogram("toolplane.gateway.overhead", "Gateway time of calls that reached a backend"),
    durableDecisions: meter.createCounter("toolplane.durable.approval.decisions", {
      description: "Durable runs' approval decisions",
      unit: "{decision}",
    }),
    durableWait: meter.createHistogram("toolplane.durable.approval.wait", {
      description: "Durable runs' approvals: time from the request to the decision",
      unit: "s",
      advice: { explicitBucketBoundaries: WAIT_BUCKETS },
    }),
    durablePending: meter.createObservableGauge("toolplane.durable.approvals.pending", {
      description: "Durable runs' steps waiting for approval, in the whole run store",
      unit: "{approval}",
    }),
    durableOldest: meter.createObservableGauge("toolplane.durable.approval.oldest_pending", {
      description: "Age of the durable run store's oldest approval waiting",
      unit: "s",
    }),
  }
}
