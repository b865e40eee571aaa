import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { metrics as otelMetrics } from "@opentelemetry/api"
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics"
import parsePrometheusTextFormat, { type MetricFamily } from "parse-prometheus-text-format"
import { describe, expect, it } from "vitest"
import { createGatewayMetrics } from "../src/ops/metrics.js"
import { listenMetrics } from "../src/ops/metricsEndpoint.js"
import { opsGatewaySuite } from "./helpers/opsGateway.js"
import { FIXTURES } from "./helpers/processes.js"

const TOKEN = "metrics-test-token-0123456789abcdef"

/**
 * The exposition parsed by the Prometheus text-format parser. The parser folds every sample of a
 * labelled histogram into one (it keeps only unlabelled `_count`/`_sum`), so histogram families are
 * read as their untyped `_bucket`, `_sum` and `_count` series (their TYPE is checked on the first parse).
 */
const parse = (text: string): MetricFamily[] => [
  ...parsePrometheusTextFormat(text).filter((f) => f.type !== "HISTOGRAM"),
  ...parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped")).filter((f) =>
    /_(bucket|sum|count)$/.test(f.name),
  ),
]
const histogramNames = (text: string): string[] =>
  parsePrometheusTextFormat(text)
    .filter((f) => f.type === "HISTOGRAM")
    .map((f) => f.name)

/** The value of the sample of `name` whose labels include `labels` (undefined when there is none). */
const sample = (families: MetricFamily[], name: string, labels: Record<string, string> = {}) => {
  // A histogram's series interleave (buckets, sum, count per label set), so a name may head several families.
  return families
    .filter((f) => f.name === name)
    .flatMap((f) => f.metrics)
    .find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
}
const value = (families: MetricFamily[], name: string, labels: Record<string, string> = {}) => {
  const s = sample(families, name, labels)
  return s?.value === undefined ? undefined : Number(s.value)
}

describe("Prometheus metrics of toolplane serve (subprocess)", () => {
  const suite = opsGatewaySuite("toolplane-metrics-")

  it("counts a known sequence of calls by tool, backend and outcome", async () => {
    const gateway = await suite.start(
      [
        "[server.auth]",
        'tokens = [{ env = "OPS_TOKEN", client = "ci" }]',
        "[limits]",
        "call_timeout_ms = 400",
        "retries = 0",
        "[metrics]",
        'path = "/metrics"',
        "[[backends]]",
        'name = "ops"',
        `module = ${JSON.stringify(join(FIXTURES, "opsTools.ts"))}`,
        "[[backends]]",
        'name = "guarded"',
        `module = ${JSON.stringify(join(FIXTURES, "guardedTools.ts"))}`,
        "require_approval = true",
        'approval = "deny"',
        "",
      ],
      { env: { OPS_TOKEN: TOKEN }, args: ["--log-calls"] },
    )
    const authorization = { authorization: `Bearer ${TOKEN}` }
    const client = new Client({ name: "metrics", version: "1.0.0" })
    await client.connect(
      new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers: authorization } }),
    )
    try {
      const call = (name: string, args: Record<string, unknown> = {}) =>
        client.callTool({ name, arguments: args }).then(
          (r) => (r.isError ? "isError" : "ok"),
          () => "rejected",
        )
      const outcomes = [
        await call("ops.echo", { message: "a" }),
        await call("ops.echo", { message: "b" }),
        await call("ops.echo", { message: "c" }),
        await call("ops.soft_fail"),
        await call("ops.soft_fail"),
        await call("ops.crash"),
        await call("guarded.deploy", { target: "prod" }),
        await call("guarded.deploy", { target: "staging" }),
        await call("ops.slow", { ms: 3000 }),
        await call("ops.nope"),
      ]
      expect(outcomes).toEqual([
        "ok",
        "ok",
        "ok",
        "isError",
        "isError",
        "isError",
        "isError",
        "isError",
        "isError",
        "rejected",
      ])
    } finally {
      await client.close()
    }
    // A refused token.
    const refused = await fetch(gateway.url, {
      method: "POST",
      headers: {
        authorization: "Bearer wrong-token-wrong-token",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    })
    expect(refused.status).toBe(401)

    const metricsUrl = new URL("/metrics", gateway.url)
    // The path is behind the gateway's auth.
    expect((await fetch(metricsUrl)).status).toBe(401)
    const response = await fetch(metricsUrl, { headers: authorization })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await response.text()
    const families = parse(text)
    expect(histogramNames(text).sort()).toEqual([
      "toolplane_backend_duration_seconds",
      "toolplane_call_duration_seconds",
      "toolplane_gateway_overhead_seconds",
    ])

    const calls = (tool: string, backend: string, outcome: string) =>
      value(families, "toolplane_calls_total", { tool, backend, outcome })
    expect(calls("ops/echo", "ops", "ok")).toBe(3)
    expect(calls("ops/soft_fail", "ops", "tool_error")).toBe(2)
    expect(calls("ops/crash", "ops", "ExecutionFailed")).toBe(1)
    expect(calls("guarded/deploy", "guarded", "ApprovalDenied")).toBe(2)
    expect(calls("ops/slow", "ops", "Timeout")).toBe(1)
    expect(calls("ops/nope", "none", "ToolNotFound")).toBe(1)
    const total = families
      .find((f) => f.name === "toolplane_calls_total")!
      .metrics.reduce((sum, m) => sum + Number(m.value), 0)
    expect(total).toBe(10)
    expect(value(families, "toolplane_calls_in_flight")).toBe(0)

    const count = (name: string, backend: string) => value(families, `${name}_count`, { backend })
    expect(count("toolplane_call_duration_seconds", "ops")).toBe(7)
    expect(count("toolplane_call_duration_seconds", "guarded")).toBe(2)
    expect(count("toolplane_call_duration_seconds", "none")).toBe(1)
    // Backend time only for calls that reached a backend (denied calls never did).
    expect(count("toolplane_backend_duration_seconds", "ops")).toBe(7)
    expect(count("toolplane_backend_duration_seconds", "guarded")).toBeUndefined()
    expect(count("toolplane_gateway_overhead_seconds", "ops")).toBe(7)
    // The timed-out call took at least its 400 ms; the six quick ones fall under 0.25 s, the slow one not.
    expect(value(families, "toolplane_call_duration_seconds_sum", { backend: "ops" })).toBeGreaterThanOrEqual(
      0.4,
    )
    expect(value(families, "toolplane_call_duration_seconds_bucket", { backend: "ops", le: "0.25" })).toBe(6)
    expect(value(families, "toolplane_call_duration_seconds_bucket", { backend: "ops", le: "+Inf" })).toBe(7)

    expect(
      value(families, "toolplane_approval_decisions_total", { decision: "denied", channel: "config" }),
    ).toBe(2)
    expect(value(families, "toolplane_approvals_pending")).toBe(0)
    expect(value(families, "toolplane_auth_failures_total", { reason: "invalid_token" })).toBe(1)
    expect(value(families, "toolplane_backend_up", { backend: "ops" })).toBe(1)
    expect(value(families, "toolplane_backend_tools", { backend: "ops" })).toBe(5)
    expect(value(families, "toolplane_prefetch_hits_total")).toBe(0)

    // --log-calls: one line per call, with its outcome.
    const callLines = gateway.lines().filter((l) => l.event === "call")
    expect(callLines.map((l) => [l.tool, l.outcome, l.caller])).toEqual([
      ["ops/echo", "ok", "ci"],
      ["ops/echo", "ok", "ci"],
      ["ops/echo", "ok", "ci"],
      ["ops/soft_fail", "tool_error", "ci"],
      ["ops/soft_fail", "tool_error", "ci"],
      ["ops/crash", "ExecutionFailed", "ci"],
      ["guarded/deploy", "ApprovalDenied", "ci"],
      ["guarded/deploy", "ApprovalDenied", "ci"],
      ["ops/slow", "Timeout", "ci"],
      ["ops/nope", "ToolNotFound", "ci"],
    ])
    expect(
      gateway
        .lines()
        .filter((l) => l.event === "auth.failed")
        .map((l) => l.reason),
    ).toContain("invalid_token")
  }, 60_000)
})

describe("label cardinality", () => {
  it("folds tools past max_tools into other (5,000 distinct tools)", async () => {
    const metrics = createGatewayMetrics({ maxTools: 100 })
    for (let i = 0; i < 5000; i++) {
      metrics.callStarted()
      metrics.callEnded(`bulk/tool_${i}`, "bulk", i % 10 === 0 ? "tool_error" : "ok", 0.002, 0.001)
    }
    // A kept tool keeps its own series after the cap is reached.
    metrics.callStarted()
    metrics.callEnded("bulk/tool_7", "bulk", "ok", 0.002, 0.001)
    const endpoint = await listenMetrics(metrics.registry, "127.0.0.1:0")
    try {
      const text = await (await fetch(endpoint.url)).text()
      const families = parse(text)
      const series = families.find((f) => f.name === "toolplane_calls_total")!.metrics
      const tools = new Set(series.map((m) => m.labels?.tool))
      expect(tools.size).toBe(101)
      expect(tools.has("other")).toBe(true)
      expect(tools.has("bulk/tool_99")).toBe(true)
      expect(tools.has("bulk/tool_100")).toBe(false)
      expect(value(families, "toolplane_calls_total", { tool: "bulk/tool_7", outcome: "ok" })).toBe(2)
      const other = series.filter((m) => m.labels?.tool === "other").reduce((s, m) => s + Number(m.value), 0)
      expect(other).toBe(4900)
      expect(series.reduce((s: number, m) => s + Number(m.value), 0)).toBe(5001)
      expect(value(families, "toolplane_call_duration_seconds_count", { backend: "bulk" })).toBe(5001)
      // Bounded exposition: well under what 5,000 tool series would take.
      expect(text.length).toBeLessThan(40_000)
    } finally {
      await endpoint.close()
    }
  })
})

describe("OpenTelemetry metrics", () => {
  it("records the call instruments on a registered meter provider", async () => {
    const reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3_600_000,
    })
    const provider = new MeterProvider({ readers: [reader] })
    otelMetrics.setGlobalMeterProvider(provider)
    try {
      const metrics = createGatewayMetrics()
      for (const outcome of ["ok", "ok", "Timeout"]) {
        metrics.callStarted()
        metrics.callEnded("docs/read", "docs", outcome, 0.01, 0.004)
      }
      metrics.callStarted()
      const { resourceMetrics } = await reader.collect()
      const all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics)
      const byName = (name: string) => all.find((m) => m.descriptor.name === name)
      const calls = byName("toolplane.calls")!.dataPoints.map((p) => [
        p.attributes["toolplane.outcome"],
        p.value,
      ])
      expect(calls.sort()).toEqual([
        ["Timeout", 1],
        ["ok", 2],
      ])
      expect(byName("toolplane.calls.in_flight")!.dataPoints[0]!.value).toBe(1)
      const duration = byName("toolplane.call.duration")!.dataPoints[0]!.value as {
        count: number
        sum: number
      }
      expect(duration.count).toBe(3)
      expect(duration.sum).toBeCloseTo(0.03)
      const overhead = byName("toolplane.gateway.overhead")!.dataPoints[0]!.value as { sum: number }
      expect(overhead.sum).toBeCloseTo(0.018)
    } finally {
      otelMetrics.disable()
      await provider.shutdown()
    }
  })
})
