/**
 * The operating side of `toolplane serve` from its configuration and flags: the operator logger, and,
 * when configured, the metrics (with their endpoint) and the audit log, joined in one observer.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import { isAbsolute, resolve } from "node:path"
import { allowIds } from "@toolplane/compose"
import type { RunStore } from "@toolplane/durable"
import { ConfigError, type Tool } from "@toolplane/foundation"
import type { GatewayConfig } from "../config/schema.js"
import { type AuditLog, openAuditLog } from "./audit.js"
import { auditStoreLocation, isPostgresUrl, openAuditStore } from "./auditStore.js"
import type { Logger } from "./logger.js"
import type { DurableApprovalsPending, GatewayMetrics } from "./metrics.js"
import { gatewayOperations, type Operations } from "./operations.js"

/** Answers of `test` kept per tool id (bounded: a flood of unknown names starts the cache over). */
const memo = (test: (tool: string) => boolean): ((tool: string) => boolean) => {
  const known = new Map<string, boolean>()
  return (tool) => {
    let answer = known.get(tool)
    if (answer === undefined) {
      answer = test(tool)
      if (known.size >= 10_000) known.clear()
      known.set(tool, answer)
    }
    return answer
  }
}

/**
 * The waiting approvals of `[durable] store`, read at scrape time through a run store opened on the
 * first read (a failed open is retried at the next).
 */
const durablePendingSource = (config: GatewayConfig, baseDir: string) => {
  const store = config.durable.store
  const storage = isPostgresUrl(store) || isAbsolute(store) ? store : resolve(baseDir, store)
  let opened: Promise<RunStore> | undefined
  return {
    read: async (): Promise<DurableApprovalsPending> => {
      if (opened === undefined) {
        const opening = import("@toolplane/durable").then((d) => d.openRunStore(storage))
        opened = opening
        opening.catch(() => {
          if (opened === opening) opened = undefined
        })
      }
      return (await opened).pendingApprovals()
    },
    close: async () => {
      await (await opened?.catch(() => undefined))?.close()
    },
  }
}

/**
 * What {@link openServeOperations} opened.
 *
 * @since 0.1.0
 */
export interface ServeOperations {
  readonly operations: Operations
  readonly metrics: GatewayMetrics | undefined
  readonly audit: AuditLog | undefined
  /** Whether calls are observed at all (metrics, audit or `--log-calls`); otherwise the service is left as is. */
  readonly observesCalls: boolean
  close(): Promise<void>
}

/**
 * Opens metrics and the audit log as `[metrics]` and `[audit]` say. The audit key comes from
 * `[audit] key_env` (16+ characters); without it a random per-process key is used, with a warning
 * (hashes then cannot be compared across restarts).
 *
 * @since 0.1.0
 */
export const openServeOperations = async (
  config: GatewayConfig,
  options: {
    readonly log: Logger
    readonly logCalls: boolean
    readonly env: NodeJS.ProcessEnv
    readonly baseDir: string
    readonly file?: string
  },
): Promise<ServeOperations> => {
  const m = config.metrics
  const metrics =
    m !== undefined && (m.listen !== undefined || m.path !== undefined)
      ? // Loaded only when configured: prom-client is not part of every start-up.
        (await import("./metrics.js")).createGatewayMetrics({ maxTools: m.max_tools })
      : undefined
  let audit: AuditLog | undefined
  const a = config.audit
  const toStore = a.sink === "store"
  if (toStore && a.file !== undefined)
    throw new ConfigError({
      path: "audit.file",
      reason: 'set file only with sink = "file"; sink = "store" writes to [durable] store',
      ...(options.file ? { file: options.file } : {}),
    })
  if (a.file !== undefined || toStore) {
    const key = options.env[a.key_env]
    if (key !== undefined && key.length < 16)
      throw new ConfigError({
        path: "audit.key_env",
        reason: `${a.key_env} holds ${key.length} characters; use at least 16 (32 random bytes recommended)`,
        ...(options.file ? { file: options.file } : {}),
      })
    if (key === undefined)
      options.log.warn("audit.random_key", {
        msg: `warning: ${a.key_env} is not set: audit hashes use a random key for this process (they cannot be compared across restarts)`,
      })
    const clear = a.clear.length > 0 ? allowIds(...a.clear) : undefined
    const store = config.durable.store
    const file = toStore
      ? isPostgresUrl(store) || isAbsolute(store)
        ? store
        : resolve(options.baseDir, store)
      : isAbsolute(a.file!)
        ? a.file!
        : resolve(options.baseDir, a.file!)
    const onError = (error: unknown) =>
      options.log.error("audit.write_failed", {
        file: audit?.file ?? file,
        error: (error as Error)?.message ?? String(error),
      })
    try {
      if (toStore)
        audit = await openAuditStore({
          storage: file,
          key: key ?? randomBytes(32),
          fsync: a.fsync,
          onError,
          ...(clear ? { clear: memo((tool: string) => clear({ id: tool } as Tool)) } : {}),
        })
      else
        audit = openAuditLog({
          file,
          maxBytes: a.max_bytes,
          keep: a.keep,
          key: key ?? randomBytes(32),
          fsync: a.fsync,
          onError,
          ...(clear ? { clear: memo((tool: string) => clear({ id: tool } as Tool)) } : {}),
        })
    } catch (error) {
      throw new ConfigError({
        path: toStore ? "durable.store" : "audit.file",
        reason: `cannot open the audit log in ${toStore ? auditStoreLocation(file) : file}: ${(error as Error).message}`,
        ...(options.file ? { file: options.file } : {}),
      })
    }
  }
  const operations = gatewayOperations({
    log: options.log,
    ...(metrics ? { metrics } : {}),
    ...(audit ? { audit } : {}),
    logCalls: options.logCalls,
  })
  if (metrics) metrics.pendingApprovalsSource(operations.pendingApprovals)
  const runs = metrics && config.skills.length > 0 ? durablePendingSource(config, options.baseDir) : undefined
  if (metrics && runs) metrics.durableApprovalsSource(runs.read)
  return {
    operations,
    metrics,
    audit,
    observesCalls: metrics !== undefined || audit !== undefined || options.logCalls,
    close: async () => {
      await audit?.close()
      await runs?.close()
    },
  }
}
