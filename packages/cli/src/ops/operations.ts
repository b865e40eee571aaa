/**
 * What `toolplane serve` reports about itself: one observer over the gateway that feeds the operator
 * log, the metrics and the audit log. It sees calls through an outermost middleware (tool, caller,
 * outcome, duration), backend time through a wrapper of each backend (matched to its call by the call
 * id, which every layer keeps), approvals through a wrapper of the approver, backends' connection
 * changes and tool-list changes through gateway events, and refused tokens through a wrapper of the
 * auth verifier. The hot path costs a map entry, two clock reads and, with metrics, cached counter
 * children; audit records are one `write` each.
 *
 * @since 0.1.0
 */
import type { ApprovalDecision } from "@toolplane/durable"
import type { Approver } from "@toolplane/exec"
import {
  type Backend,
  type CallToolRequest,
  ConfigError,
  type ExecutionContext,
  isExecutionContext,
  makeContext,
  type ToolResult,
  type ToolService,
} from "@toolplane/foundation"
import { callerScopes, type McpHttpAuth } from "@toolplane/plugin-mcp"
import type { GatewayEvent, GatewayObserver } from "../gateway.js"
import type { ReloadOutcome } from "../liveGateway.js"
import { pinDecisionText } from "../pinStore.js"
import type { AuditEntry, AuditLog, CallRecord } from "./audit.js"
import type { Logger } from "./logger.js"
import type { GatewayMetrics } from "./metrics.js"

/**
 * Options of {@link gatewayOperations}.
 *
 * @since 0.1.0
 */
export interface OperationsOptions {
  readonly log: Logger
  readonly metrics?: GatewayMetrics
  readonly audit?: AuditLog
  /** One log line per completed call (`--log-calls`). */
  readonly logCalls?: boolean
}

/**
 * The observer of a serving gateway.
 *
 * @since 0.1.0
 */
export interface Operations {
  /** Hooks for `openGateway` (backend time, approvals). */
  readonly observer: GatewayObserver
  /** Gateway events (start-up progress, backends lost and back, tool-list changes) to log and metrics. */
  readonly onEvent: (event: GatewayEvent) => void
  /** The served service, observed. */
  service(inner: ToolService): ToolService
  /** The auth verifier, with refusals logged, counted and audited (never the token). */
  auth(inner: McpHttpAuth): McpHttpAuth
  /** A reload's result. */
  reloaded(file: string, trigger: string, outcome: ReloadOutcome): void
  /** Start times (epoch ms) of the approval questions waiting now. */
  pendingApprovals(): readonly number[]
}

/** Error tags used as outcome labels; any other failure is `"error"` (bounded label values). */
const KNOWN_OUTCOMES = new Set([
  "ToolNotFound",
  "InvalidArguments",
  "InvalidOutput",
  "InvalidTool",
  "ToolConflict",
  "ExecutionFailed",
  "Timeout",
  "Cancelled",
  "ApprovalRequired",
  "ApprovalDenied",
  "BackendUnavailable",
  "RateLimited",
  "InvalidCursor",
  "ExpiredCursor",
  "ConfigError",
  "SandboxTimeout",
  "SandboxMemory",
  "SandboxLimit",
  "SandboxError",
  "SandboxCrashed",
  "SkillStepFailed",
])
const SANDBOX_LIMITS = new Set(["SandboxTimeout", "SandboxMemory", "SandboxLimit"])

const outcomeOf = (error: unknown): string => {
  const tag = (error as { _tag?: unknown } | null)?._tag
  return typeof tag === "string" && KNOWN_OUTCOMES.has(tag) ? tag : "error"
}

/** What is known of a call while it runs (keyed by its call id). */
interface CallState {
  readonly started: number
  backend: string | undefined
  backendMs: number
  reached: boolean
  decision: CallRecord["decision"]
  channel: string | undefined
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * Creates the observer.
 *
 * @since 0.1.0
 */
export const gatewayOperations = (options: OperationsOptions): Operations => {
  const { log, metrics, audit } = options
  const logCalls = options.logCalls === true
  const calls = new Map<string, CallState>()
  const pending = new Set<{ readonly since: number }>()
  /** Backends lost (or down at start) and not back yet. */
  const lost = new Set<string>()

  /** Records a call that ended; with an audit log, the promise of its record being in the file. */
  const finish = (
    request: CallToolRequest,
    ctx: ExecutionContext,
    state: CallState,
    result: ToolResult | undefined,
    error: unknown,
  ): Promise<void> | undefined => {
    calls.delete(ctx.callId)
    const ms = performance.now() - state.started
    const tool = String(request.name)
    const backend = state.backend ?? "none"
    const outcome = error === undefined ? (result?.isError === true ? "tool_error" : "ok") : outcomeOf(error)
    if (error !== undefined && state.decision === "none") {
      if (outcome === "ApprovalRequired") state.decision = "required"
      else if (outcome === "ApprovalDenied") state.decision = "denied"
    }
    metrics?.callEnded(tool, backend, outcome, ms / 1000, state.reached ? state.backendMs / 1000 : undefined)
    const caller = ctx.callerId ?? "anonymous"
    if (SANDBOX_LIMITS.has(outcome)) {
      const limit = (error as { limit?: unknown }).limit
      const which = typeof limit === "string" ? `${outcome}:${limit}` : outcome
      metrics?.sandboxLimit(which)
      log.warn("sandbox.limit", { tool, caller, limit: which })
    }
    if (logCalls) log.info("call", { tool, backend, caller, outcome, duration_ms: Math.round(ms * 10) / 10 })
    if (audit !== undefined) {
      const clear = audit.clear(tool)
      const args = request.arguments ?? {}
      const scopes = callerScopes(ctx)
      // Absent members are undefined (JSON leaves them out): one object literal, no spreads per call.
      const record = {
        type: "call",
        call_id: ctx.callId,
        caller,
        session: ctx.sessionId,
        scopes,
        tool,
        backend,
        decision: state.decision,
        decision_channel: state.channel,
        outcome,
        duration_ms: Math.round(ms * 1000) / 1000,
        args_hmac: clear ? undefined : audit.hash(args),
        args: clear ? args : undefined,
        result_hmac: result === undefined || clear ? undefined : audit.hash(result),
        result: clear ? result : undefined,
        error: error !== undefined && clear ? messageOf(error) : undefined,
      } as Omit<CallRecord, "ts">
      // A failed write is reported through the log's onError; the call still answers. A call ending
      // while no other is in flight is written at once (no group could form at c=1).
      return calls.size === 0 ? audit.commitNow(record) : audit.commit(record)
    }
    return undefined
  }

  const service = (inner: ToolService): ToolService => ({
    listTools: (request) => inner.listTools(request),
    callTool: (request) => {
      let ctx = request.context as ExecutionContext | undefined
      if (ctx === undefined || !isExecutionContext(ctx)) {
        // The call id must be known here so that backend time and approvals reach this call's record.
        ctx = makeContext(request.context)
        request = { ...request, context: ctx }
      }
      const state: CallState = {
        started: performance.now(),
        backend: undefined,
        backendMs: 0,
        reached: false,
        decision: "none",
        channel: undefined,
      }
      calls.set(ctx.callId, state)
      metrics?.callStarted()
      const c = ctx
      let promise: Promise<ToolResult>
      try {
        promise = inner.callTool(request)
      } catch (error) {
        const written = finish(request, c, state, undefined, error)
        if (written === undefined) throw error
        return written.then(() => {
          throw error
        })
      }
      // With an audit log the answer waits until its record is in the file.
      return promise.then(
        (result) => {
          const written = finish(request, c, state, result, undefined)
          return written === undefined ? result : written.then(() => result)
        },
        (error: unknown) => {
          const written = finish(request, c, state, undefined, error)
          if (written === undefined) throw error
          return written.then(() => {
            throw error
          })
        },
      )
    },
  })

  const observeBackend = (backend: Backend): Backend => ({
    ...backend,
    name: backend.name,
    execute(call, ctx) {
      const state = calls.get(ctx.callId)
      if (state === undefined) return backend.execute(call, ctx)
      state.backend = backend.name
      state.reached = true
      const started = performance.now()
      return backend.execute(call, ctx).then(
        (result) => {
          state.backendMs += performance.now() - started
          return result
        },
        (error: unknown) => {
          state.backendMs += performance.now() - started
          throw error
        },
      )
    },
    supportedTools: () => backend.supportedTools(),
    toolSchemas: () => backend.toolSchemas(),
    metadata: () => backend.metadata(),
    healthCheck: () => backend.healthCheck(),
    requiresApproval: (id) => backend.requiresApproval(id),
    onToolsChanged: (listener) => backend.onToolsChanged(listener),
    close: () => backend.close(),
  })

  const observeApprover = (inner: Approver, mode: (backend: string) => string | undefined): Approver => ({
    approve: async (request) => {
      const channel = mode(request.backend) === "elicit" ? "elicit" : "config"
      const caller = request.context.callerId ?? "anonymous"
      const state = calls.get(request.context.callId)
      if (state !== undefined) state.backend = request.backend
      const entry = { since: Date.now() }
      // A configured mode decides at once: only questions to a person are worth a line each.
      const level = channel === "elicit" ? "info" : "debug"
      log[level]("approval.requested", { tool: request.toolId, backend: request.backend, caller, channel })
      let decision: "approved" | "denied" | "required"
      let reason: string | undefined
      pending.add(entry)
      try {
        const answer = await inner.approve(request)
        const approved =
          answer === true || (typeof answer === "object" && answer !== null && answer.approved === true)
        decision = approved ? "approved" : "denied"
        if (!approved && typeof answer === "object" && answer !== null) reason = answer.reason
        return answer
      } catch (error) {
        decision = outcomeOf(error) === "ApprovalRequired" ? "required" : "denied"
        reason = messageOf(error)
        throw error
      } finally {
        pending.delete(entry)
        const waited = Date.now() - entry.since
        if (state !== undefined) {
          state.decision = decision!
          state.channel = channel
        }
        log[level]("approval.decided", {
          tool: request.toolId,
          backend: request.backend,
          caller,
          channel,
          decision: decision!,
          waited_ms: waited,
          ...(reason !== undefined ? { reason } : {}),
        })
        if (decision! !== "required") metrics?.approvalDecided(decision! as "approved" | "denied", channel)
        try {
          audit?.write({
            type: "approval",
            call_id: request.context.callId,
            tool: request.toolId,
            backend: request.backend,
            caller,
            decision: decision!,
            channel,
            by: channel === "elicit" ? caller : "config",
            ...(reason !== undefined ? { reason } : {}),
            waited_ms: waited,
          })
        } catch (e) {
          log.error("audit.write_failed", { file: audit!.file, error: messageOf(e) })
        }
      }
    },
  })

  const onEvent = (event: GatewayEvent): void => {
    switch (event.type) {
      case "connecting":
        log.info("backend.connecting", { backend: event.backend, msg: `connecting ${event.backend}…` })
        break
      case "connected":
        metrics?.backendUp(event.backend, true)
        metrics?.backendTools(event.backend, event.tools)
        if (lost.delete(event.backend)) {
          metrics?.backendReconnect(event.backend)
          log.info("backend.back", {
            backend: event.backend,
            tools: event.tools,
            msg: `${event.backend} is back (${event.tools} tools)`,
          })
        } else
          log.info("backend.connected", {
            backend: event.backend,
            tools: event.tools,
            ms: event.ms,
            msg: `${event.backend} ready (${event.tools} tools, ${event.ms} ms)`,
          })
        break
      case "failed":
        metrics?.backendUp(event.backend, false)
        lost.add(event.backend)
        log.error("backend.failed", {
          backend: event.backend,
          error: event.error,
          ms: event.ms,
          msg: `${event.backend} failed after ${event.ms} ms: ${event.error}`,
        })
        break
      case "warning":
        log.warn("warning", { message: event.message, msg: `warning: ${event.message}` })
        break
      case "status":
        if (event.state === "reconnecting") {
          if (!lost.has(event.backend)) {
            lost.add(event.backend)
            metrics?.backendUp(event.backend, false)
            log.warn("backend.lost", {
              backend: event.backend,
              ...(event.error !== undefined ? { error: event.error } : {}),
              msg: `${event.backend} lost${event.error !== undefined ? `: ${event.error}` : ""}`,
            })
          }
          log.info("backend.reconnecting", {
            backend: event.backend,
            attempt: event.attempts + 1,
            delay_ms: event.delayMs,
            msg: `${event.backend} reconnecting (attempt ${event.attempts + 1} in ${event.delayMs ?? 0} ms)`,
          })
        } else if (event.state === "connected" && lost.has(event.backend))
          onEvent({ type: "connected", backend: event.backend, tools: event.tools, ms: 0 })
        else if (event.state === "failed") {
          metrics?.backendUp(event.backend, false)
          log.error("backend.failed", {
            backend: event.backend,
            error: event.error,
            msg: `${event.backend} gave up reconnecting: ${event.error ?? "unknown error"}`,
          })
        }
        break
      case "pin": {
        const d = event.decision
        const quiet =
          d.kind === "recorded" || d.kind === "removed" || (d.kind === "new" && d.action !== "held")
        log[quiet ? "info" : "warn"](`tool.pin.${d.kind}`, {
          ...("backend" in d ? { backend: d.backend } : {}),
          ...("tool" in d ? { tool: d.tool } : {}),
          ...("action" in d ? { action: d.action } : {}),
          ...("fields" in d ? { fields: d.fields } : {}),
          msg: pinDecisionText(d),
        })
        break
      }
      case "tools-changed":
        metrics?.backendTools(event.backend, event.tools)
        log.info("backend.tools_changed", {
          backend: event.backend,
          tools: event.tools,
          msg: `${event.backend} tool list changed (${event.tools} tools)`,
        })
        break
    }
  }

  const auth = (inner: McpHttpAuth): McpHttpAuth => ({
    get authorizationServers() {
      return inner.authorizationServers
    },
    get requiredScopes() {
      return inner.requiredScopes
    },
    get scopesSupported() {
      return inner.scopesSupported
    },
    verify: async (token) => {
      const result = await inner.verify(token)
      if ("error" in result) {
        const reason = token === undefined ? "missing_token" : result.error
        metrics?.authFailure(reason)
        log.warn("auth.failed", {
          reason,
          ...(result.description ? { description: result.description } : {}),
        })
        try {
          audit?.write({
            type: "auth_failure",
            reason,
            ...(result.description ? { description: result.description } : {}),
          })
        } catch (e) {
          log.error("audit.write_failed", { file: audit!.file, error: messageOf(e) })
        }
      }
      return result
    },
  })

  /** Writes a record now; a failure is logged, never thrown into the caller. */
  const auditWrite = (entry: AuditEntry) => {
    try {
      audit?.write(entry)
    } catch (e) {
      log.error("audit.write_failed", { file: audit!.file, error: messageOf(e) })
    }
  }

  const reloaded = (file: string, trigger: string, outcome: ReloadOutcome): void => {
    metrics?.configReload(outcome.ok ? "applied" : "rejected")
    if (!outcome.ok) {
      const error = outcome.error as Error
      const text = error instanceof ConfigError ? `configuration error: ${error.message}` : messageOf(error)
      log.error("config.reload_rejected", {
        file,
        trigger,
        error: text,
        msg: `reload (${trigger}) rejected, still serving the previous configuration: ${text}`,
      })
      auditWrite({ type: "reload", ok: false, trigger, error: text })
      return
    }
    const parts = [
      outcome.added.length > 0 ? `added ${outcome.added.join(", ")}` : "",
      outcome.removed.length > 0 ? `removed ${outcome.removed.join(", ")}` : "",
      outcome.changed.length > 0 ? `changed ${outcome.changed.join(", ")}` : "",
    ].filter(Boolean)
    log.info("config.reloaded", {
      file,
      trigger,
      added: outcome.added,
      removed: outcome.removed,
      changed: outcome.changed,
      tools: outcome.tools,
      msg: `reloaded ${file} (${trigger}): ${parts.length > 0 ? parts.join("; ") : "backends unchanged"}; serving ${outcome.tools} tools`,
    })
    if (outcome.restartNeeded.length > 0)
      log.warn("config.restart_needed", {
        settings: outcome.restartNeeded,
        msg: `warning: ${outcome.restartNeeded.join(", ")} changed; takes effect after a restart`,
      })
    auditWrite({
      type: "reload",
      ok: true,
      trigger,
      added: outcome.added,
      removed: outcome.removed,
      changed: outcome.changed,
    })
  }

  /** A durable run's approval decided (by whoever: the caller, `toolplane runs`, the console, expiry). */
  const durableApproval = (d: ApprovalDecision): void => {
    metrics?.durableApprovalDecided(
      d.decision,
      d.channel,
      d.waitedMs === undefined ? undefined : d.waitedMs / 1000,
    )
    log.info("durable.approval_decided", {
      run: d.runId,
      step: d.stepId,
      tool: d.tool,
      decision: d.decision,
      channel: d.channel,
      ...(d.waitedMs !== undefined ? { waited_ms: d.waitedMs } : {}),
    })
  }

  return {
    observer: { backend: observeBackend, approver: observeApprover, durableApproval },
    onEvent,
    service,
    auth,
    reloaded,
    pendingApprovals: () => [...pending].map((p) => p.since),
  }
}
