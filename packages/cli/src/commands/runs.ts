/**
 * `toolplane runs list|show|approve|reject|cancel`: reads durable skill runs and decides their approvals in a
 * run store: `--runs FILE` (a SQLite file, default `toolplane-runs.db` next to the config) or
 * `--runs postgres://...` (the PostgreSQL database distributed runners share; `TOOLPLANE_RUNS` sets the
 * default). It records decisions only: a runner continues the runs when it resumes them (`poll`/`watch`).
 *
 * @since 0.1.0
 */
import { existsSync } from "node:fs"
import { dirname, resolve } from "node:path"
import type { RunInfo, RunStore } from "@toolplane/durable"
import { InvalidArguments, isToolError } from "@toolplane/foundation"
import { defineCommand, EXIT, UsageError } from "../command.js"
import { json, table } from "../output.js"

const SUBCOMMANDS = ["list", "show", "approve", "reject", "cancel"] as const

const parseArguments = (text: string | undefined): Record<string, unknown> | undefined => {
  if (text === undefined) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`--args is not valid JSON: ${(error as Error).message}`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UsageError("--args must be a JSON object")
  return value as Record<string, unknown>
}

/** Who executes a run and until when its lease holds (empty when no runner holds it). */
const held = (run: RunInfo): string =>
  run.owner === undefined ? "" : ` (runner ${run.owner}, lease until ${run.leaseExpiresAt})`

const pendingStep = (run: RunInfo): string =>
  run.steps.find((s) => s.status === "awaiting_approval")?.stepId ?? ""

/** @since 0.1.0 */
export const runsCommand = defineCommand({
  name: "runs",
  synopsis: "list|show|approve|reject|cancel",
  summary:
    "durable skill runs [--runs FILE|POSTGRES_URL] [--json]\nshow RUN_ID, approve RUN_ID STEP_ID [--args JSON], reject RUN_ID STEP_ID [--reason TEXT], cancel RUN_ID [--reason TEXT]",
  maxPositionals: 3,
  configOptional: true,
  flags: { runs: "string", json: "boolean", args: "string", reason: "string" },
  flagHelp: {
    runs: "FILE|POSTGRES_URL  the run store (default toolplane-runs.db next to the config, or $TOOLPLANE_RUNS)",
    args: "JSON  approve with these arguments instead (validated against the tool's schema)",
    reason: "TEXT  why a step is rejected (or a run cancelled)",
    json: "print JSON",
  },
  examples: [
    "runs list --runs ./runs.db",
    "runs show 0f3c… --json",
    `runs approve 0f3c… deploy --args '{"version":"1.2"}'`,
    'runs reject 0f3c… deploy --reason "release freeze"',
    'runs cancel 0f3c… --reason "superseded"',
  ],
  run: async (ctx) => {
    const [sub, runId, stepId] = ctx.invocation.positionals
    if (sub === undefined || !(SUBCOMMANDS as readonly string[]).includes(sub))
      throw new UsageError(`runs needs one of ${SUBCOMMANDS.join(", ")}`)
    if (sub !== "list" && runId === undefined) throw new UsageError(`runs ${sub} needs a RUN_ID`)
    if ((sub === "approve" || sub === "reject") && stepId === undefined)
      throw new UsageError(`runs ${sub} needs a RUN_ID and a STEP_ID`)
    const args = parseArguments(ctx.invocation.values.args)
    // Loaded here: the run store needs node:sqlite, which no other command should pay for.
    const { isPostgresStorage, openRunStore, RunNotFound } = await import("@toolplane/durable")
    const named = ctx.invocation.values.runs ?? ctx.io.env.TOOLPLANE_RUNS
    // Without --runs: the configuration's [durable] store (relative to the config file), when there is one.
    const configured = existsSync(ctx.file) ? ctx.config.durable.store : "toolplane-runs.db"
    const storage =
      named !== undefined && isPostgresStorage(named)
        ? named
        : named !== undefined
          ? resolve(ctx.io.cwd, named)
          : isPostgresStorage(configured)
            ? configured
            : resolve(dirname(ctx.file), configured)
    const asJson = ctx.invocation.values.json === true
    const store: RunStore = await openRunStore(storage)
    try {
      switch (sub) {
        case "list": {
          const runs = await store.list()
          ctx.io.stdout(
            asJson
              ? json(runs)
              : `${table(
                  ["RUN", "SKILL", "STATUS", "WAITING", "UPDATED", "RUNNER"],
                  runs.map((r) => [r.runId, r.skill, r.status, pendingStep(r), r.updatedAt, r.owner ?? ""]),
                )}\n`,
          )
          break
        }
        case "show": {
          const run = await store.show(runId!)
          ctx.io.stdout(
            asJson
              ? json(run)
              : `${run.runId} ${run.skill} ${run.status}${held(run)}\n${table(
                  ["STEP", "TOOL", "STATUS", "CALLS", "ARGUMENTS"],
                  run.steps.map((s) => [
                    s.stepId,
                    s.tool,
                    s.status,
                    String(s.executions),
                    JSON.stringify(s.approvedArguments ?? s.arguments),
                  ]),
                )}\n`,
          )
          break
        }
        case "approve": {
          const step = await store.approve(
            runId!,
            stepId!,
            args === undefined ? { channel: "cli" } : { arguments: args, channel: "cli" },
          )
          ctx.io.stdout(asJson ? json(step) : `approved ${runId} ${stepId}\n`)
          break
        }
        case "reject": {
          const reason = ctx.invocation.values.reason
          const step = await store.reject(
            runId!,
            stepId!,
            reason === undefined ? { channel: "cli" } : { reason, channel: "cli" },
          )
          ctx.io.stdout(asJson ? json(step) : `rejected ${runId} ${stepId}\n`)
          break
        }
        case "cancel": {
          const reason = ctx.invocation.values.reason
          const run = await store.cancel(
            runId!,
            reason === undefined ? { channel: "cli" } : { reason, channel: "cli" },
          )
          ctx.io.stdout(asJson ? json(run) : `cancelled ${runId}\n`)
          break
        }
      }
      return EXIT.ok
    } catch (error) {
      // An unknown run and arguments the tool's schema rejects are the caller's mistake (as for `call`);
      // a step no longer waiting (decided by someone else) is a failure of the request.
      if (!(error instanceof RunNotFound || error instanceof InvalidArguments) || !isToolError(error))
        throw error
      ctx.io.stderr(`toolplane: ${error._tag}: ${error.message}\n`)
      return EXIT.usage
    } finally {
      await store.close()
    }
  },
})
