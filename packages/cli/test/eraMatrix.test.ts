/**
 * The client era × upstream era matrix of `toolplane serve`, all real processes. Clients: the MCP SDK v1
 * client (2025-11-25, sessions) and the SDK v2 client (`@modelcontextprotocol/client`) in `auto`
 * negotiation and pinned to 2026-07-28, over HTTP (one gateway process for all) and v1 + v2 pinned over
 * stdio (a gateway process each: stdio is one client per process; `auto` on stdio probes with a second
 * process, see modernStdio.test.ts). Upstreams: the 2025-only server-everything (stdio), the SDK v2
 * fixture modern-only over stdio and HTTP and dual-era over HTTP (modernServer.ts), and a modern upstream
 * whose tools answer with tasks (taskServer.ts), once with the tasks extension and once with `tasks =
 * false`. Each cell lists, calls, sees progress, reads a resource, gets a prompt, completes, gets a
 * resource update (`subscriptions/listen` for a 2026 client, `resources/subscribe` for a 2025 one),
 * answers an upstream's elicitation (as `input_required` rounds or `elicitation/create`), and gets an
 * upstream task's final result. Cells an upstream cannot serve (a task server has no prompts) say so.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client"
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  childEnv,
  type HttpGateway,
  REPO,
  serveArgs,
  startHttpGateway,
  stopAllGateways,
  TSX,
  textOf,
} from "./helpers/processes.js"

const FIXTURES = join(REPO, "plugins", "mcp", "test", "fixtures")
const MODERN = join(FIXTURES, "modernServer.ts")
const TASKS = join(FIXTURES, "taskServer.ts")
const EVERYTHING = join(REPO, "packages", "cli", "node_modules", ".bin", "mcp-server-everything")

type ClientKind = "v1" | "v2 auto" | "v2 2026-07-28"
type Upstream = "everything" | "mstdio" | "mhttp" | "dual" | "tasks"

/** What every cell does, the same for both SDKs (each adapter maps it onto its own client). */
interface MatrixClient {
  /** The protocol version the client ended up speaking. */
  readonly era: "2025-11-25" | "2026-07-28"
  toolNames(): Promise<string[]>
  call(name: string, args: Record<string, unknown>, onProgress?: (progress: number) => void): Promise<string>
  resources(): Promise<string[]>
  read(uri: string): Promise<string>
  prompts(): Promise<string[]>
  prompt(name: string, args: Record<string, string>): Promise<string>
  complete(
    prompt: string,
    argument: string,
    value: string,
    context?: Record<string, string>,
  ): Promise<string[]>
  /** Subscribes to `uri`, resolves once subscribed, with a promise of its next update. */
  watch(uri: string): Promise<{ updated: Promise<string>; stop(): Promise<void> }>
  /** The messages of the elicitations this client answered. */
  readonly asked: string[]
  close(): Promise<void>
}

const upstreams = new Set<ChildProcess>()

const startFixture = async (file: string, args: string[]): Promise<string> => {
  const child = spawn(TSX, [file, "--http", ...args], { stdio: ["ignore", "pipe", "inherit"] })
  upstreams.add(child)
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", () => reject(new Error(`${file} exited`)))
    child.stdout!.on("data", (d) => {
      const m = /PORT (\d+)/.exec(String(d))
      if (m) resolve(Number(m[1]))
    })
  })
  return `http://127.0.0.1:${port}/mcp`
}

/** Every page of a listing. */
const all = async <A>(page: (cursor?: string) => Promise<{ items: A[]; nextCursor?: string }>) => {
  const out: A[] = []
  let cursor: string | undefined
  do {
    const next = await page(cursor)
    out.push(...next.items)
    cursor = next.nextCursor
  } while (cursor !== undefined)
  return out
}
const at = (cursor?: string) => (cursor === undefined ? {} : { cursor })

/** The answer every client gives an elicitation: fits the fixtures' schemas (`ok`, `name`). */
const answer = (message: string, asked: string[]) => {
  asked.push(message)
  return { action: "accept" as const, content: { ok: true, name: "Ada" } }
}

const v1Client = async (transport: "http" | "stdio", target: string): Promise<MatrixClient> => {
  const asked: string[] = []
  const client = new ClientV1({ name: "matrix-v1", version: "1.0.0" }, { capabilities: { elicitation: {} } })
  client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params.message, asked))
  const updates = new Map<string, (uri: string) => void>()
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) =>
    updates.get(n.params.uri)?.(n.params.uri),
  )
  await client.connect(
    transport === "http"
      ? new HttpV1(new URL(target))
      : new StdioV1({
          command: TSX,
          args: serveArgs(target, "stdio"),
          env: childEnv(),
          cwd: REPO,
          stderr: "ignore",
        }),
    { timeout: 90_000 },
  )
  return {
    era: "2025-11-25",
    asked,
    toolNames: async () =>
      (
        await all(async (cursor) => {
          const p = await client.listTools(at(cursor))
          return { items: p.tools, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) }
        })
      ).map((t) => t.name),
    call: async (name, args, onProgress) =>
      textOf(
        await client.callTool(
          { name, arguments: args },
          CallToolResultSchema,
          onProgress ? { onprogress: (p) => onProgress(p.progress), timeout: 60_000 } : { timeout: 60_000 },
        ),
      ),
    resources: async () =>
      (
        await all(async (cursor) => {
          const p = await client.listResources(at(cursor))
          return { items: p.resources, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) }
        })
      ).map((r) => r.uri),
    read: async (uri) =>
      (await client.readResource({ uri })).contents.map((c) => ("text" in c ? c.text : "")).join(""),
    prompts: async () =>
      (
        await all(async (cursor) => {
          const p = await client.listPrompts(at(cursor))
          return { items: p.prompts, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) }
        })
      ).map((p) => p.name),
    prompt: async (name, args) =>
      JSON.stringify((await client.getPrompt({ name, arguments: args })).messages),
    complete: async (prompt, argument, value, context) =>
      (
        await client.complete({
          ref: { type: "ref/prompt", name: prompt },
          argument: { name: argument, value },
          ...(context ? { context: { arguments: context } } : {}),
        })
      ).completion.values,
    watch: async (uri) => {
      const updated = new Promise<string>((resolve) => updates.set(uri, resolve))
      await client.subscribeResource({ uri })
      return { updated, stop: async () => void (await client.unsubscribeResource({ uri })) }
    },
    close: () => client.close().catch(() => {}),
  }
}

const v2Client = async (
  transport: "http" | "stdio",
  target: string,
  mode: "auto" | "2026-07-28",
): Promise<MatrixClient> => {
  const asked: string[] = []
  const client = new ClientV2(
    { name: "matrix-v2", version: "2.0.0" },
    {
      capabilities: { elicitation: {} },
      versionNegotiation: { mode: mode === "auto" ? "auto" : { pin: "2026-07-28" } },
    },
  )
  client.setRequestHandler("elicitation/create", async (request) =>
    answer((request.params as { message: string }).message, asked),
  )
  const updates = new Map<string, (uri: string) => void>()
  client.setNotificationHandler("notifications/resources/updated", (n) =>
    updates.get(n.params.uri)?.(n.params.uri),
  )
  await client.connect(
    transport === "http"
      ? new HttpV2(new URL(target))
      : new StdioV2({
          command: TSX,
          args: serveArgs(target, "stdio"),
          env: childEnv(),
          cwd: REPO,
          stderr: "ignore",
        }),
  )
  const era = client.getNegotiatedProtocolVersion() === "2026-07-28" ? "2026-07-28" : "2025-11-25"
  return {
    era,
    asked,
    toolNames: async () =>
      (
        await all(async (cursor) => {
          const p = await client.listTools(at(cursor))
          return { items: p.tools, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) }
        })
      ).map((t) => t.name),
    call: async (name, args, onProgress) =>
      textOf(
        await client.callTool(
          { name, arguments: args },
          onProgress ? { onprogress: (p) => onProgress(p.progress), timeout: 60_000 } : { timeout: 60_000 },
        ),
      ),
    resources: async () =>
      (
        await all(async (cursor) => {
          const p = await client.listResources(at(cursor))
          return { items: p.resources, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) }
        })
      ).map((r) => r.uri),
    read: async (uri) =>
      (await client.readResource({ uri })).contents.map((c) => ("text" in c ? c.text : "")).join(""),
    prompts: async () =>
      (
        await all(async (cursor) => {
          const p = await client.listPrompts(at(cursor))
          return { items: p.prompts, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) }
        })
      ).map((p) => p.name),
    prompt: async (name, args) =>
      JSON.stringify((await client.getPrompt({ name, arguments: args })).messages),
    complete: async (prompt, argument, value, context) =>
      (
        await client.complete({
          ref: { type: "ref/prompt", name: prompt },
          argument: { name: argument, value },
          ...(context ? { context: { arguments: context } } : {}),
        })
      ).completion.values,
    watch: async (uri) => {
      const updated = new Promise<string>((resolve) => updates.set(uri, resolve))
      if (era === "2026-07-28") {
        const subscription = await client.listen({ resourceSubscriptions: [uri] })
        expect(subscription.honoredFilter.resourceSubscriptions).toEqual([uri])
        return { updated, stop: () => subscription.close() }
      }
      await client.subscribeResource({ uri })
      return { updated, stop: async () => void (await client.unsubscribeResource({ uri })) }
    },
    close: () => client.close().catch(() => {}),
  }
}

const within = <A>(promise: Promise<A>, ms: number, what: string): Promise<A> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms),
    ),
  ])

const toml = (value: unknown) => JSON.stringify(value)

/** One cell: a client kind over a transport, against one upstream, every operation the upstream has. */
const cell = async (client: MatrixClient, upstream: Upstream): Promise<void> => {
  const names = await client.toolNames()
  if (upstream === "tasks") {
    expect(names).toEqual(expect.arrayContaining(["tasks.slow", "tasks.ask", "plaintasks.slow"]))
    // The gateway follows the upstream task (tasks/get) to its result; the client sees one result.
    expect(await client.call("tasks.slow", { ms: 80, text: client.era })).toBe(`done ${client.era}`)
    // The task's input_required is put to this client (elicitation/create or an input_required round).
    expect(await client.call("tasks.ask", {})).toBe("Hello, Ada!")
    expect(client.asked).toContain("Please enter your name.")
    // tasks = false: the extension is not declared, the upstream answers inline.
    expect(await client.call("plaintasks.slow", { ms: 80, text: client.era })).toBe(`sync ${client.era}`)
    // No resources, prompts or completions on a task-only server.
    expect((await client.resources()).some((u) => u.includes("tasks"))).toBe(false)
    expect((await client.prompts()).some((p) => p.startsWith("tasks."))).toBe(false)
    return
  }
  if (upstream !== "everything") return modernCalls(client, names, upstream)
  await everythingLock.shared(() => everythingCalls(client, names))
  // The 2025 upstream's elicitation/create, put to a modern client as an input_required round.
  await everythingLock.exclusive(async () => {
    expect(await client.call("everything.trigger-elicitation-request", {})).toContain("Ada")
    expect(client.asked).toContain("Please provide inputs for the following fields:")
  })
}

/**
 * server-everything (2025, stdio) sends its elicitation/create with nothing tying it to the call that
 * caused it: the gateway forwards it only while the calls in flight on that upstream are all one
 * caller's. The matrix's elicitation cells therefore run alone (the typed refusal otherwise is the
 * last test).
 */
const everythingLock = (() => {
  let readers = 0
  let writer: Promise<void> | undefined
  const idle = async () => {
    while (readers > 0) await new Promise((r) => setTimeout(r, 10))
  }
  return {
    shared: async (run: () => Promise<void>) => {
      while (writer !== undefined) await writer
      readers++
      try {
        await run()
      } finally {
        readers--
      }
    },
    exclusive: async (run: () => Promise<void>) => {
      while (writer !== undefined) await writer
      let release = () => {}
      writer = new Promise<void>((r) => {
        release = r
      })
      try {
        await idle()
        await run()
      } finally {
        writer = undefined
        release()
      }
    },
  }
})()

const everythingCalls = async (client: MatrixClient, names: string[]) => {
  expect(names).toEqual(expect.arrayContaining(["everything.echo", "everything.trigger-elicitation-request"]))
  expect(await client.call("everything.echo", { message: client.era })).toBe(`Echo: ${client.era}`)
  const progress: number[] = []
  const done = await client.call(
    "everything.trigger-long-running-operation",
    { duration: 0.6, steps: 3 },
    (p) => progress.push(p),
  )
  expect(done).toContain("completed")
  expect(progress.length).toBeGreaterThan(0)
  expect(progress).toEqual([1, 2, 3].slice(0, progress.length))
  const uri = (await client.resources()).find((u) => u.startsWith("demo://resource/static/document/"))
  expect(uri).toBeDefined()
  expect((await client.read(uri!)).length).toBeGreaterThan(0)
  expect(await client.prompts()).toEqual(expect.arrayContaining(["everything.simple-prompt"]))
  expect(await client.prompt("everything.args-prompt", { city: "Paris" })).toContain("Paris")
  expect(await client.complete("everything.completable-prompt", "department", "Eng")).toEqual(["Engineering"])
  // server-everything's simulated updates: sent at once when toggled on (a toggle can also turn off
  // what another cell turned on, so toggle until one arrives).
  const watched = await client.watch(uri!)
  try {
    let got: string | undefined
    for (let i = 0; i < 4 && got === undefined; i++) {
      await client.call("everything.toggle-subscriber-updates", {})
      got = await within(watched.updated, 1000, "resources/updated").catch(() => undefined)
    }
    expect(got).toBe(uri)
  } finally {
    await watched.stop().catch(() => {})
  }
}

const modernCalls = async (
  client: MatrixClient,
  names: string[],
  b: Exclude<Upstream, "everything" | "tasks">,
) => {
  expect(names).toEqual(expect.arrayContaining([`${b}.echo`, `${b}.progress`, `${b}.confirm`]))
  expect(await client.call(`${b}.echo`, { text: client.era })).toBe(client.era)
  const progress: number[] = []
  // Paced so that a loaded machine still sees steps before the answer; in order, none made up (the
  // last step, read in one chunk with the answer, may be dropped by the client SDK).
  expect(await client.call(`${b}.progress`, { steps: 3, pace: 200 }, (p) => progress.push(p))).toBe(
    "did 3 steps",
  )
  expect(progress.length).toBeGreaterThan(0)
  expect(progress).toEqual([1, 2, 3].slice(0, progress.length))
  // Three backends list memo://greeting: each is served as toolplane://<backend>/…
  const uri = (await client.resources()).find((u) => u.startsWith(`toolplane://${b}/`))
  expect(uri).toBe(`toolplane://${b}/${encodeURIComponent("memo://greeting")}`)
  expect(await client.read(uri!)).toBe("hello from the modern fixture")
  expect(await client.prompts()).toContain(`${b}.greet`)
  expect(await client.prompt(`${b}.greet`, { name: "Grace" })).toContain("Hello, Grace!")
  expect(await client.complete(`${b}.greet`, "name", "Al")).toEqual(["Alan"])
  const watched = await client.watch(uri!)
  try {
    await client.call(`${b}.touch`, { uri: "memo://greeting" })
    expect(await within(watched.updated, 5000, `${b} resources/updated`)).toBe(uri)
  } finally {
    await watched.stop().catch(() => {})
  }
  const what = `${b}-${client.era}`
  expect(await client.call(`${b}.confirm`, { what })).toBe(`confirmed ${what} (state-for-${what})`)
  expect(client.asked).toContain(`Do ${what}?`)
}

const UPSTREAMS: Upstream[] = ["everything", "mstdio", "mhttp", "dual", "tasks"]

describe.concurrent("client era × upstream era through toolplane serve", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolplane-matrix-"))
  const config = join(dir, "gateway.toml")
  let gateway: HttpGateway
  /** One connected client per (transport, kind), shared by its cells. */
  const clients = new Map<string, Promise<MatrixClient>>()

  beforeAll(async () => {
    const [dual, modern, tasks] = await Promise.all([
      startFixture(MODERN, []),
      startFixture(MODERN, ["--legacy", "reject"]),
      startFixture(TASKS, []),
    ])
    const backend = (name: string, mcp: string, extra: string[] = []) => [
      "[[backends]]",
      `name = "${name}"`,
      `mcp = ${mcp}`,
      "require_approval = false",
      // Three gateway processes share this file: no lock file written by each.
      'pin = "off"',
      ...extra,
      "",
    ]
    writeFileSync(
      config,
      [
        ...backend("everything", `{ command = ${toml(EVERYTHING)}, args = ["stdio"] }`, [
          'protocol = "auto"',
        ]),
        ...backend("mstdio", `{ command = ${toml(TSX)}, args = [${toml(MODERN)}, "--legacy", "reject"] }`, [
          'protocol = "2026-07-28"',
        ]),
        ...backend("mhttp", `{ url = ${toml(modern)} }`),
        ...backend("dual", `{ url = ${toml(dual)} }`),
        ...backend("tasks", `{ url = ${toml(tasks)} }`, ['protocol = "2026-07-28"']),
        ...backend("plaintasks", `{ url = ${toml(tasks)} }`, ['protocol = "2026-07-28"', "tasks = false"]),
      ].join("\n"),
    )
    const open = (key: string, make: () => Promise<MatrixClient>) => {
      const made = make()
      made.catch(() => {})
      clients.set(key, made)
    }
    // The stdio clients' gateway processes start while the HTTP one does.
    open("stdio v1", () => v1Client("stdio", config))
    open("stdio v2 2026-07-28", () => v2Client("stdio", config, "2026-07-28"))
    gateway = await startHttpGateway(config)
    open("http v1", () => v1Client("http", gateway.url.href))
    open("http v2 auto", () => v2Client("http", gateway.url.href, "auto"))
    open("http v2 2026-07-28", () => v2Client("http", gateway.url.href, "2026-07-28"))
  }, 120_000)

  afterAll(async () => {
    await Promise.all([...clients.values()].map(async (c) => (await c.catch(() => undefined))?.close()))
    await stopAllGateways()
    for (const child of upstreams) child.kill()
    rmSync(dir, { recursive: true, force: true })
  })

  const rows: [transport: "http" | "stdio", kind: ClientKind][] = [
    ["http", "v1"],
    ["http", "v2 auto"],
    ["http", "v2 2026-07-28"],
    ["stdio", "v1"],
    ["stdio", "v2 2026-07-28"],
  ]
  for (const [transport, kind] of rows)
    describe(`${kind} over ${transport}`, () => {
      it("negotiates its era", async () => {
        const client = await clients.get(`${transport} ${kind}`)!
        expect(client.era).toBe(kind === "v1" ? "2025-11-25" : "2026-07-28")
      }, 120_000)
      for (const upstream of UPSTREAMS)
        it(`× ${upstream}`, async () => cell(await clients.get(`${transport} ${kind}`)!, upstream), 120_000)
    })

  it("a 2025 stdio upstream's elicitation while another caller's call is in flight there: a typed refusal, no hang", async () => {
    const [a, b] = await Promise.all([clients.get("http v1")!, clients.get("http v2 2026-07-28")!])
    await everythingLock.exclusive(async () => {
      // In flight upstream once its first step's progress is back; three more seconds to go then.
      let inFlight = () => {}
      const running = new Promise<void>((resolve) => {
        inFlight = resolve
      })
      const long = a.call("everything.trigger-long-running-operation", { duration: 4, steps: 4 }, () =>
        inFlight(),
      )
      await running
      const started = Date.now()
      const refused = await b.call("everything.trigger-elicitation-request", {})
      expect(refused).toContain(
        "-32600: elicitation/create: tool calls of several callers are in flight; cannot tell whose this is",
      )
      expect(Date.now() - started).toBeLessThan(5000)
      expect(await long).toContain("completed")
    })
  }, 120_000)
})
