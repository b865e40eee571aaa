/**
 * Speculative prefetch on real multi-step traces: replays every BFCL multi-turn session's ground-truth
 * calls through a runner whose backend executes the reference implementations (a Python subprocess,
 * `bfcl_server.py`), four times in one run: without prefetch (`off`), with declared follow-up links only
 * (`declaredOnly`), with declared links and learning (`historyOnly`), and with every source on, the
 * user's turns included (`learning`, the top level of `--json`): each turn's user text is handed to
 * `observeMessage` when the turn starts. Learning starts from nothing in every run. Checks that every
 * result and every session's final state are the same in all four.
 *
 * Run: `pnpm --filter @toolplane/exec bench:prefetch -- --questions F --answers F [--think-ms 1000]
 * [--tool-ms 300] [--json] [--scale 0.05] [--limit N] [--min-precision P] [--message-min-confidence P]
 * [--trace FILE] [--log FILE]`.
 *
 * Time model: `tool-ms` of latency per backend call, `think-ms` of model time before every call (the
 * model reads the user's turn before its first call too). Real timers run at `scale` times the nominal durations (default 0.05, so the 200
 * sessions take a few minutes). Tool-wait and session times are derived from the model, not read off the
 * wall clock: a call costs `tool-ms`, a call served from a prefetch costs only the part of that prefetch
 * still running when the call arrived (0 when it had finished), and `think-ms` is added per gap; so with
 * nothing issued the time saved is exactly 0. The wall-clock figure is printed beside it
 * (`measuredTimeSavedPct`).
 *
 * Other BFCL categories run with the same command. Sessions whose API classes cannot be loaded (a Python
 * module missing) are skipped and counted; functions the annotations do not list are treated as not
 * read-only and counted (`unannotated`). `--trace FILE` writes every call of the run without prefetch
 * (tool, arguments, result) as JSON lines; `--log FILE` writes per call of the learning run whether it was
 * eligible and whether it was served from a prefetch.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import {
  Cancelled,
  defineBackend,
  defineEnricher,
  type FollowUpLink,
  isToolError,
  type JsonSchema,
  type Tool,
} from "@toolplane/foundation"
import { canonicalJson, createRunner, type PrefetchOptions, type ToolRunner } from "../../src/index.js"

const HERE = dirname(fileURLToPath(import.meta.url))

// ---------------------------------------------------------------------------------------------- flags
const argv = process.argv.slice(2).filter((a) => a !== "--")
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`)
  if (i < 0) return undefined
  const value = argv[i + 1]
  if (value === undefined || value.startsWith("--")) fail(`--${name} needs a value`)
  return value
}
const num = (name: string, fallback: number): number => {
  const raw = flag(name)
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n < 0) fail(`--${name} must be a non-negative number, got ${raw}`)
  return n
}
function fail(message: string): never {
  process.stderr.write(`bench:prefetch: ${message}\n`)
  process.exit(2)
}
const known = new Set([
  "questions",
  "answers",
  "think-ms",
  "tool-ms",
  "json",
  "scale",
  "limit",
  "ttl-ms",
  "trace",
  "log",
  "min-precision",
  "message-min-confidence",
  "prefetch",
  "annotations",
])
for (const a of argv) if (a.startsWith("--") && !known.has(a.slice(2))) fail(`unknown flag ${a}`)

const questionsFile = flag("questions") ?? fail("--questions FILE is required")
const answersFile = flag("answers") ?? fail("--answers FILE is required")
const thinkMs = num("think-ms", 1000)
const toolMs = num("tool-ms", 300)
const scale = num("scale", 0.05)
if (scale <= 0) fail("--scale must be positive")
const limit = flag("limit") === undefined ? Number.POSITIVE_INFINITY : num("limit", 0)
const ttlMs = num("ttl-ms", 4 * (thinkMs + toolMs))
const asJson = argv.includes("--json")
const traceFile = flag("trace")
// The runner's precision feedback (`minPrecision`, default 0.5); other values show the trade-off.
const minPrecision = flag("min-precision") === undefined ? undefined : num("min-precision", 0.5)
const logFile = flag("log")
// The message source's `minConfidence` (default 0.25).
const messageMinConfidence =
  flag("message-min-confidence") === undefined ? undefined : num("message-min-confidence", 0.25)
// `--prefetch JSON`: more prefetch options for the runs with prefetch (merged over the flags above).
const extraOptions = (() => {
  const raw = flag("prefetch")
  if (raw === undefined) return {}
  try {
    return JSON.parse(raw) as PrefetchOptions
  } catch {
    return fail(`--prefetch must be a JSON object of prefetch options, got ${raw}`)
  }
})()
const log = (line: string) => {
  if (!asJson) process.stdout.write(`${line}\n`)
}

// pnpm runs scripts in the package folder; relative paths are taken from where the command was typed.
const base = process.env.INIT_CWD ?? process.cwd()
const questionsPath = resolve(base, questionsFile)
const answersPath = resolve(base, answersFile)
for (const f of [questionsPath, answersPath]) if (!existsSync(f)) fail(`${f} does not exist`)
const dataDir = dirname(questionsPath)
const sourceDir = join(dataDir, "func_source_code")
const docDir = join(dataDir, "func_doc")
if (!existsSync(sourceDir) || !existsSync(docDir))
  fail(`${dataDir} must hold func_source_code/ and func_doc/ next to the questions file`)

// ------------------------------------------------------------------------------------ prerequisites
const python = spawnSync("python3", ["-c", "import mpmath"], { encoding: "utf8" })
if (python.error !== undefined)
  fail(
    "python3 is missing: the benchmark runs BFCL's reference implementations (Python) and needs python3 with mpmath",
  )
if (python.status !== 0)
  fail(
    "the Python module mpmath is missing (BFCL's MathAPI needs it): install it, e.g. `pip install mpmath` or `apt-get install python3-mpmath`",
  )

// ----------------------------------------------------------------------------------------------- data
interface Session {
  readonly id: string
  readonly classes: readonly string[]
  readonly config: Record<string, unknown>
  readonly groundTruth: readonly (readonly string[])[]
  /** The user's text of each turn. */
  readonly turns: readonly string[]
  /** Functions of the involved classes the session does not offer. */
  readonly excluded: readonly string[]
}
const readJsonl = (file: string): Record<string, unknown>[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)
const answers = new Map(readJsonl(answersPath).map((a) => [a.id as string, a.ground_truth as string[][]]))
const allSessions: Session[] = readJsonl(questionsPath)
  .filter((q) => answers.has(q.id as string))
  .slice(0, limit)
  .map((q) => ({
    id: q.id as string,
    classes: q.involved_classes as string[],
    config: (q.initial_config ?? {}) as Record<string, unknown>,
    groundTruth: answers.get(q.id as string)!,
    turns: ((q.question ?? []) as { role: string; content: unknown }[][]).map((turn) =>
      turn
        .filter((m) => m.role === "user" && typeof m.content === "string")
        .map((m) => m.content as string)
        .join("\n"),
    ),
    excluded: (q.excluded_function ?? []) as string[],
  }))
if (allSessions.length === 0) fail("no session has an answer")

interface Annotations {
  readonly readOnly: Record<string, string[]>
  readonly writes: Record<string, string[]>
  readonly links: Record<string, FollowUpLink[]>
  readonly hosts: Record<string, string>
}
// `--annotations FILE`: another provider annotation file (default: this folder's annotations.json).
const annotationsFile = flag("annotations")
const annotations = JSON.parse(
  readFileSync(
    annotationsFile === undefined
      ? join(HERE, "annotations.json")
      : resolve(process.env.INIT_CWD ?? process.cwd(), annotationsFile),
    "utf8",
  ),
) as Annotations
const readOnly = new Set(Object.values(annotations.readOnly).flat())
/** Functions the annotations mention at all; any other is unannotated and treated as not read-only. */
const annotated = new Set([...readOnly, ...Object.values(annotations.writes).flat()])

/** BFCL's parameter dialect ("dict", "float", "tuple", "any") to JSON Schema. */
const toSchema = (p: Record<string, unknown>): JsonSchema => {
  const out: Record<string, unknown> = {}
  switch (p.type) {
    case "dict":
      out.type = "object"
      break
    case "float":
      out.type = "number"
      break
    case "tuple":
      out.type = "array"
      break
    case "any":
    case undefined:
      break
    default:
      out.type = p.type
  }
  if (p.properties !== undefined)
    out.properties = Object.fromEntries(
      Object.entries(p.properties as Record<string, Record<string, unknown>>).map(([k, v]) => [
        k,
        toSchema(v),
      ]),
    )
  if (Array.isArray(p.required) && p.required.length > 0) out.required = p.required
  if (p.items !== undefined) out.items = toSchema(p.items as Record<string, unknown>)
  if (Array.isArray(p.enum)) out.enum = p.enum
  return out as JsonSchema
}

const toolId = (name: string) => `bfcl/${name}`
const tools = new Map<string, Tool>()
/** The documentation file of each API class (as in `bfcl_server.py`). */
const CLASS_FILES: Record<string, string> = {
  GorillaFileSystem: "gorilla_file_system",
  MathAPI: "math_api",
  MessageAPI: "message_api",
  TwitterAPI: "posting_api",
  TicketAPI: "ticket_api",
  TradingBot: "trading_bot",
  TravelAPI: "travel_booking",
  VehicleControlAPI: "vehicle_control",
  WebSearchAPI: "web_search",
  MemoryAPI_kv: "memory_kv",
  MemoryAPI_vector: "memory_vector",
  MemoryAPI_rec_sum: "memory_rec_sum",
}
/** Documentation file (without `.json`) -> the functions it documents. */
const fileFunctions = new Map<string, string[]>()
for (const file of readdirSync(docDir).filter((f) => f.endsWith(".json"))) {
  const names: string[] = []
  fileFunctions.set(file.slice(0, -".json".length), names)
  for (const doc of readJsonl(join(docDir, file))) {
    const name = doc.name as string
    names.push(name)
    const tool: Tool = {
      id: toolId(name),
      namespace: "bfcl",
      name,
      description: doc.description as string,
      // Two classes with the same function name (memory APIs): accept either's arguments.
      inputSchema: tools.has(name)
        ? { type: "object" }
        : toSchema({ ...(doc.parameters as Record<string, unknown>), type: "dict" }),
      annotations: readOnly.has(name) ? { readOnlyHint: true } : { readOnlyHint: false },
    }
    tools.set(name, tool)
  }
}

// --------------------------------------------------------------------------------- python subprocess
class Python {
  readonly #child: ChildProcess
  readonly #waiting = new Map<
    number,
    { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }
  >()
  #next = 1

  constructor() {
    this.#child = spawn("python3", [join(HERE, "bfcl_server.py"), sourceDir], {
      stdio: ["pipe", "pipe", "inherit"],
    })
    createInterface({ input: this.#child.stdout! }).on("line", (line) => {
      const reply = JSON.parse(line) as Record<string, unknown>
      const w = this.#waiting.get(reply.id as number)
      this.#waiting.delete(reply.id as number)
      if (reply.error !== undefined) w?.reject(new Error(String(reply.error)))
      else w?.resolve(reply)
    })
    this.#child.on("exit", (code) => {
      for (const w of this.#waiting.values()) w.reject(new Error(`python exited with ${code}`))
      this.#waiting.clear()
    })
  }

  request(op: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.#next++
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject })
      this.#child.stdin!.write(`${JSON.stringify({ ...body, op, id })}\n`)
    })
  }

  close(): void {
    this.#child.stdin!.end()
  }
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer)
        reject(signal.reason)
      },
      { once: true },
    )
  })

// ---------------------------------------------------------------------------------------------- runs
interface ModeReport {
  calls: number
  eligible: number
  issued: number
  hits: number
  hitRate: number
  precision: number
  wastedPerCall: number
  toolWaitMs: number
  sessionMs: number
  timeSavedPct: number
  differences: number
  unannotated: number
  reachable: number
  hitRateReachable: number
  reachableWithText: number
  hitRateReachableWithText: number
  measuredToolWaitMs: number
  measuredSessionMs: number
  measuredTimeSavedPct: number
}
interface ModeRun {
  readonly results: string[][]
  readonly states: string[]
  readonly report: ModeReport
}

const py = new Python()
// Classes whose implementation cannot be imported here (a Python module is missing): their sessions are
// skipped and counted, never run half-way.
const missing = (await py.request("check", { classes: [...new Set(allSessions.flatMap((s) => s.classes))] }))
  .missing as string[]
const unloadable = new Map(
  missing.map((m) => [m.slice(0, m.indexOf(":")), m.slice(m.indexOf(":") + 1).trim()] as const),
)
const sessions = allSessions.filter((s) => s.classes.every((c) => !unloadable.has(c)))
const skipped = allSessions.length - sessions.length
for (const [cls, why] of unloadable)
  process.stderr.write(
    `bench:prefetch: skipping ${allSessions.filter((s) => s.classes.includes(cls)).length} session(s) using ${cls}: cannot load it (${why})\n`,
  )
if (sessions.length === 0) fail("no session can be run: every one needs a class that cannot be loaded")

const CALLER = "bfcl-agent"

/** One backend per mode: calls go to the Python instances of the session that mode is replaying. */
const makeBackend = (mode: { session: string; speculated: { tool: string; args: unknown }[] }) =>
  defineBackend({
    name: "bfcl",
    kind: "python",
    toolSchemas: () => [...tools.values()],
    requiresApproval: (id) => !readOnly.has(id.slice("bfcl/".length)),
    async execute(call, ctx) {
      // The simulated latency includes the Python round trip: the call takes tool-ms in all.
      const started = performance.now()
      // The replay's own calls carry a session id; the prefetcher's speculative ones do not.
      if (ctx.sessionId === undefined && logFile !== undefined)
        mode.speculated.push({ tool: call.toolId.slice("bfcl/".length), args: call.arguments })
      const reply = await py.request("call", {
        session: mode.session,
        name: call.toolId.slice("bfcl/".length),
        args: call.arguments,
      })
      try {
        await sleep(Math.max(0, toolMs * scale - (performance.now() - started)), ctx.signal)
      } catch {
        throw new Cancelled({ toolId: call.toolId, reason: "aborted" })
      }
      const value = reply.result
      const structured =
        value !== null && typeof value === "object" && !Array.isArray(value)
          ? (value as Record<string, unknown>)
          : { result: value as unknown }
      return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: structured }
    },
  })

const provider = defineEnricher({
  name: "bfcl-provider",
  categories: [],
  valueModel: (id) => {
    const name = id.slice("bfcl/".length)
    const links = annotations.links[name]
    const host = annotations.hosts[name]
    if (links === undefined && host === undefined) return undefined
    return {
      ...(links === undefined ? {} : { followUps: links.map((l) => ({ ...l, toolId: toolId(l.toolId) })) }),
      ...(host === undefined || host === "url" ? {} : { rateLimitHost: host }),
    }
  },
  rateLimitHost: (id, args) => {
    if (annotations.hosts[id.slice("bfcl/".length)] !== "url" || typeof args.url !== "string")
      return undefined
    try {
      return new URL(args.url).host
    } catch {
      return undefined
    }
  },
})

interface Mode {
  readonly label: string
  readonly runner: ToolRunner
  readonly target: { session: string; speculated: { tool: string; args: unknown }[] }
  readonly results: string[][]
  readonly states: string[]
  calls: number
  eligible: number
  unannotated: number
  /**
   * Eligible calls a history-based predictor could issue: not a session's first call, and every argument
   * value appears in an earlier argument or result of the session. Hits among them.
   */
  reachable: number
  reachableHits: number
  /** Eligible calls whose every argument value appears in the user's text so far or in the session's history. */
  reachableWithText: number
  reachableWithTextHits: number
  /** Wall clock (scaled ms). */
  toolWait: number
  sessionTime: number
  /** Derived from the time model (nominal ms). */
  modelToolWait: number
  modelSessionTime: number
  readonly log: Record<string, unknown>[]
}

const makeMode = (label: string, prefetch: PrefetchOptions | undefined): Mode => {
  const target = { session: "", speculated: [] as { tool: string; args: unknown }[] }
  return {
    label,
    target,
    runner: createRunner({
      backends: [makeBackend(target)],
      enrichers: [provider],
      approver: { approve: async () => true },
      retry: false,
      ...(prefetch === undefined ? {} : { prefetch }),
    }),
    results: [],
    states: [],
    calls: 0,
    eligible: 0,
    unannotated: 0,
    reachable: 0,
    reachableHits: 0,
    reachableWithText: 0,
    reachableWithTextHits: 0,
    toolWait: 0,
    sessionTime: 0,
    modelToolWait: 0,
    modelSessionTime: 0,
    log: [],
  }
}

/** Replays one session through one mode's runner. */
const replay = async (mode: Mode, session: Session): Promise<void> => {
  mode.target.session = `${mode.label}:${session.id}`
  const loaded = await py.request("load", {
    session: mode.target.session,
    classes: session.classes,
    config: session.config,
    ground_truth: session.groundTruth,
    long_context: session.id.includes("long_context"),
  })
  const turns = loaded.calls as { name: string; args: Record<string, unknown> }[][]
  const out: string[] = []
  let first = true
  let text = ""
  /** Whether a value (every leaf of it) occurs in the user's text so far. */
  const inText = (v: unknown): boolean => {
    if (Array.isArray(v)) return v.every(inText)
    if (typeof v === "number") {
      const lower = text.toLowerCase()
      const words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
      return (
        new RegExp(`(?<![\\d.])${String(v).replace(".", "\\.")}(?![\\d])`).test(lower) ||
        (Number.isInteger(v) && v >= 0 && v <= 10 && new RegExp(`\\b${words[v]}\\b`).test(lower))
      )
    }
    return typeof v === "string" && v !== "" && text.toLowerCase().includes(v.toLowerCase())
  }
  // Canonical JSON of every value (scalars, arrays, objects) in the session's arguments and results so far.
  const known = new Set<string>()
  const remember = (v: unknown, depth = 0): void => {
    known.add(canonicalJson(v))
    if (depth < 6 && v !== null && typeof v === "object")
      for (const x of Array.isArray(v) ? v : Object.values(v)) remember(x, depth + 1)
  }
  // The model of a BFCL session sees the functions of its classes, less the excluded ones.
  const offered = session.classes
    .flatMap((c) => fileFunctions.get(CLASS_FILES[c] ?? "") ?? [])
    .filter((f) => !session.excluded.includes(f))
    .map(toolId)
  for (const [t, turn] of turns.entries()) {
    // The user's turn reaches the agent before the model thinks about it.
    const message = session.turns[t] ?? ""
    text += `\n${message}`
    mode.runner.prefetch?.observeMessage(CALLER, { role: "user", text: message, tools: offered })
    for (const call of turn) {
      // The model thinks before every call, the session's first included.
      await sleep(thinkMs * scale)
      mode.sessionTime += thinkMs * scale
      mode.modelSessionTime += thinkMs
      const opening = first
      first = false
      mode.calls++
      if (readOnly.has(call.name)) mode.eligible++
      const reachable =
        readOnly.has(call.name) &&
        !opening &&
        Object.values(call.args).every((v) => known.has(canonicalJson(v)))
      if (reachable) mode.reachable++
      const reachableWithText =
        readOnly.has(call.name) &&
        Object.values(call.args).every((v) => known.has(canonicalJson(v)) || inText(v))
      if (reachableWithText) mode.reachableWithText++
      if (!annotated.has(call.name)) mode.unannotated++
      const before = mode.runner.prefetch?.stats()
      const started = performance.now()
      let value: unknown
      try {
        const result = await mode.runner.callTool({
          name: toolId(call.name),
          arguments: call.args,
          context: { callerId: CALLER, sessionId: session.id },
        })
        value = result.structuredContent ?? result.content
        out.push(canonicalJson(value))
      } catch (error) {
        out.push(`error:${isToolError(error) ? error._tag : String(error)}`)
      }
      const waited = performance.now() - started
      mode.toolWait += waited
      mode.sessionTime += waited
      // The time model: a real call costs tool-ms; a hit costs what was left of its prefetch.
      const after = mode.runner.prefetch?.stats()
      const hit = before !== undefined && after !== undefined && after.hits > before.hits
      if (hit && reachable) mode.reachableHits++
      if (hit && reachableWithText) mode.reachableWithTextHits++
      remember(call.args)
      if (value !== undefined) remember(value)
      const cost = hit ? Math.max(0, toolMs - (after.timeSavedMs - before.timeSavedMs) / scale) : toolMs
      mode.modelToolWait += cost
      mode.modelSessionTime += cost
      if (mode.label === "off" && traceFile !== undefined)
        mode.log.push({
          session: session.id,
          tool: call.name,
          args: call.args,
          readOnly: readOnly.has(call.name),
          result: value,
        })
      const speculated = mode.target.speculated.splice(0)
      if (mode.label === "learning" && logFile !== undefined)
        mode.log.push({
          session: session.id,
          tool: call.name,
          args: call.args,
          eligible: readOnly.has(call.name),
          first: opening,
          reachable,
          reachableWithText,
          hit,
          // The speculative calls started since the previous call (tool and arguments).
          speculated,
        })
    }
  }
  // The conversation is over: its pending prefetches are of no use (what was learned stays). The learner
  // plans after the last call on the next turn of the event loop: let it, so that nothing it starts
  // outlives the session (it would read this session's state and could be served in the next one).
  await new Promise((resolve) => setImmediate(resolve))
  mode.runner.prefetch?.invalidate(CALLER)
  // Speculative calls started after the session's last call belong to it (wasted).
  const late = mode.target.speculated.splice(0)
  const lastRow = mode.log[mode.log.length - 1]
  if (mode.label === "learning" && lastRow !== undefined && lastRow.session === session.id)
    (lastRow.speculated as unknown[]).push(...late)
  mode.results.push(out)
  mode.states.push(canonicalJson((await py.request("state", { session: mode.target.session })).state))
  await py.request("drop", { session: mode.target.session })
}

const report = (mode: Mode): ModeReport => {
  const stats = mode.runner.prefetch?.stats()
  const issued = stats?.issued ?? 0
  const hits = stats?.hits ?? 0
  return {
    calls: mode.calls,
    eligible: mode.eligible,
    issued,
    hits,
    hitRate: mode.eligible === 0 ? 0 : (100 * hits) / mode.eligible,
    reachable: mode.reachable,
    hitRateReachable: mode.reachable === 0 ? 0 : (100 * mode.reachableHits) / mode.reachable,
    reachableWithText: mode.reachableWithText,
    hitRateReachableWithText:
      mode.reachableWithText === 0 ? 0 : (100 * mode.reachableWithTextHits) / mode.reachableWithText,
    precision: issued === 0 ? 0 : (100 * hits) / issued,
    wastedPerCall: mode.calls === 0 ? 0 : (stats?.wasted ?? 0) / mode.calls,
    toolWaitMs: mode.modelToolWait,
    sessionMs: mode.modelSessionTime,
    timeSavedPct: 0,
    differences: 0,
    unannotated: mode.unannotated,
    measuredToolWaitMs: mode.toolWait / scale,
    measuredSessionMs: mode.sessionTime / scale,
    measuredTimeSavedPct: 0,
  }
}

const modeList = [
  makeMode("off", undefined),
  makeMode("declaredOnly", {
    learning: false,
    messages: false,
    ttlMs: ttlMs * scale,
    ...(minPrecision === undefined ? {} : { minPrecision }),
  }),
  makeMode("historyOnly", {
    messages: false,
    ttlMs: ttlMs * scale,
    ...(minPrecision === undefined ? {} : { minPrecision }),
  }),
  makeMode("learning", {
    ttlMs: ttlMs * scale,
    ...(minPrecision === undefined ? {} : { minPrecision }),
    ...(messageMinConfidence === undefined ? {} : { messages: { minConfidence: messageMinConfidence } }),
    ...extraOptions,
  }),
]
log(
  `BFCL multi-turn replay: ${sessions.length} sessions, tool ${toolMs} ms, think ${thinkMs} ms (timers at ${scale}x); modes interleaved per session`,
)
for (const [i, session] of sessions.entries()) {
  // Modes take turns session by session, so machine load falls on all of them alike.
  for (const mode of i % 2 === 0 ? modeList : [...modeList].reverse()) await replay(mode, session)
  if ((i + 1) % 50 === 0) log(`  ${i + 1}/${sessions.length} sessions`)
}
const runs = new Map<string, ModeRun>(
  modeList.map((m) => [m.label, { results: m.results, states: m.states, report: report(m) }]),
)
await Promise.all(modeList.map((m) => m.runner.close()))
const writeLines = (file: string, rows: Record<string, unknown>[]) =>
  writeFileSync(resolve(base, file), rows.map((r) => JSON.stringify(r)).join("\n") + "\n")
if (traceFile !== undefined) writeLines(traceFile, modeList[0]!.log)
if (logFile !== undefined) writeLines(logFile, modeList[3]!.log)
py.close()

// --------------------------------------------------------------------------------------- comparison
const off = runs.get("off")!
for (const [label, run] of runs) {
  if (label === "off") continue
  let differences = 0
  run.results.forEach((session, i) => {
    session.forEach((result, j) => {
      if (result !== off.results[i]![j]) {
        differences++
        if (!asJson)
          log(
            `  DIFFERENCE ${label} ${sessions[i]!.id} call ${j}: ${result.slice(0, 120)} vs ${off.results[i]![j]!.slice(0, 120)}`,
          )
      }
    })
    if (run.states[i] !== off.states[i]) {
      differences++
      log(`  DIFFERENCE ${label} ${sessions[i]!.id}: final state differs`)
    }
  })
  run.report.differences = differences
  run.report.timeSavedPct = (100 * (off.report.sessionMs - run.report.sessionMs)) / off.report.sessionMs
  run.report.measuredTimeSavedPct =
    (100 * (off.report.measuredSessionMs - run.report.measuredSessionMs)) / off.report.measuredSessionMs
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits
const keys = [
  "calls",
  "eligible",
  "issued",
  "hits",
  "hitRate",
  "precision",
  "wastedPerCall",
  "timeSavedPct",
  "differences",
] as const
const pick = (r: ModeReport) => ({
  ...Object.fromEntries(keys.map((k) => [k, k === "wastedPerCall" ? round(r[k], 3) : round(r[k])])),
  toolWaitMs: Math.round(r.toolWaitMs),
  sessionMs: Math.round(r.sessionMs),
  unannotated: r.unannotated,
  reachable: r.reachable,
  hitRateReachable: round(r.hitRateReachable),
  reachableWithText: r.reachableWithText,
  hitRateReachableWithText: round(r.hitRateReachableWithText),
  measuredTimeSavedPct: round(r.measuredTimeSavedPct),
})
const learning = runs.get("learning")!.report
const declared = runs.get("declaredOnly")!.report
const historyOnly = runs.get("historyOnly")!.report
const totalDifferences = learning.differences + declared.differences + historyOnly.differences
if (asJson) {
  process.stdout.write(
    `${JSON.stringify({ ...pick(learning), declaredOnly: pick(declared), historyOnly: pick(historyOnly), off: pick(off.report), sessions: sessions.length, skippedSessions: skipped, skippedClasses: Object.fromEntries(unloadable), toolMs, thinkMs, scale })}\n`,
  )
} else {
  const rows: [string, ModeReport][] = [
    ["off", off.report],
    ["declared only", declared],
    ["declared + learning", historyOnly],
    ["declared + learning + messages", learning],
  ]
  const header = [
    "mode",
    "calls",
    "eligible",
    "issued",
    "hits",
    "hit rate",
    "of reachable",
    "of reachable with text",
    "precision",
    "wasted/call",
    "tool wait s",
    "session s",
    "saved",
    "saved (wall clock)",
  ]
  const table = rows.map(([name, r]) => [
    name,
    String(r.calls),
    String(r.eligible),
    String(r.issued),
    String(r.hits),
    `${round(r.hitRate)}%`,
    `${round(r.hitRateReachable)}% of ${r.reachable}`,
    `${round(r.hitRateReachableWithText)}% of ${r.reachableWithText}`,
    `${round(r.precision)}%`,
    round(r.wastedPerCall, 3).toFixed(3),
    (r.toolWaitMs / 1000).toFixed(1),
    (r.sessionMs / 1000).toFixed(1),
    `${round(r.timeSavedPct)}%`,
    `${round(r.measuredTimeSavedPct)}%`,
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)))
  for (const row of [header, ...table]) log(row.map((c, i) => c.padStart(widths[i]!)).join("  "))
  log(
    `reachable: read-only calls that are not a session's first and whose every argument value appears in an earlier argument or result of the session (what a predictor working from the session's own history can reach; constants learned from earlier sessions can hit outside it)`,
  )
  log(
    `tool wait and session time from the time model (a hit costs what was left of its prefetch); ${learning.unannotated} of ${learning.calls} calls to functions the annotations do not list (treated as not read-only); ${skipped} session(s) skipped`,
  )
  log(
    totalDifferences === 0
      ? "results and final states: identical in all modes"
      : `${totalDifferences} DIFFERENCES`,
  )
}
process.exit(totalDifferences === 0 ? 0 : 1)
