/**
 * `toolplane serve` fronting MCP 2026-07-28 upstreams (SDK v2 servers: modern-only over stdio and HTTP,
 * dual-era over HTTP) beside a 2025-only one (server-everything over stdio), all real processes: an SDK
 * client lists, calls (with progress), reads a resource, gets a prompt and completes an argument
 * through the gateway over stdio and HTTP. (Resilience with a modern upstream: resilience.test.ts.)
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type ClientSetup,
  type Connected,
  connectHttp,
  connectStdio,
  REPO,
  startHttpGateway,
  stopAllGateways,
  TSX,
  textOf,
} from "./helpers/processes.js"

const FIXTURE = join(REPO, "plugins", "mcp", "test", "fixtures", "modernServer.ts")
const EVERYTHING = join(REPO, "packages", "cli", "node_modules", ".bin", "mcp-server-everything")
const upstreams = new Set<ChildProcess>()

/** The modern fixture over HTTP; resolves with its URL once it listens. */
const startModernHttp = async (args: string[]): Promise<{ url: string; child: ChildProcess }> => {
  const child = spawn(TSX, [FIXTURE, "--http", ...args], { stdio: ["ignore", "pipe", "inherit"] })
  upstreams.add(child)
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", () => reject(new Error("modern fixture exited")))
    child.stdout!.on("data", (d) => {
      const m = /PORT (\d+)/.exec(String(d))
      if (m) resolve(Number(m[1]))
    })
  })
  return { url: `http://127.0.0.1:${port}/mcp`, child }
}

const toml = (value: unknown) => JSON.stringify(value)

describe.concurrent("toolplane serve fronting 2026-07-28 and 2025 upstreams", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolplane-modern-"))
  const config = join(dir, "gateway.toml")

  beforeAll(async () => {
    const [dual, modern] = await Promise.all([startModernHttp([]), startModernHttp(["--legacy", "reject"])])
    writeFileSync(
      config,
      [
        "[[backends]]",
        'name = "mstdio"',
        `mcp = { command = ${toml(TSX)}, args = [${toml(FIXTURE)}, "--legacy", "reject"] }`,
        "require_approval = false",
        'protocol = "2026-07-28"',
        "",
        "[[backends]]",
        'name = "mhttp"',
        `mcp = { url = ${toml(modern.url)} }`,
        "require_approval = false",
        "",
        "[[backends]]",
        'name = "dual"',
        `mcp = { url = ${toml(dual.url)} }`,
        "require_approval = false",
        "",
        "[[backends]]",
        'name = "everything"',
        `mcp = { command = ${toml(EVERYTHING)}, args = ["stdio"] }`,
        "require_approval = false",
        'protocol = "auto"',
        "",
      ].join("\n"),
    )
  }, 30_000)

  afterAll(async () => {
    await stopAllGateways()
    for (const child of upstreams) child.kill()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Every page of a listing. */
  const all = async <A>(
    page: (cursor?: string) => Promise<{ items: A[]; nextCursor?: string }>,
  ): Promise<A[]> => {
    const out: A[] = []
    let cursor: string | undefined
    do {
      const next = await page(cursor)
      out.push(...next.items)
      cursor = next.nextCursor
    } while (cursor !== undefined)
    return out
  }

  /** A 2025 client that answers elicitation: what a modern upstream's input_required reaches it as. */
  const asked: unknown[] = []
  const answering: ClientSetup = {
    capabilities: { elicitation: {} },
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message)
        return { action: "accept", content: { ok: true } }
      }),
  }

  const exercise = async ({ client }: Connected) => {
    const c = (cursor?: string) => (cursor === undefined ? {} : { cursor })
    const names = (
      await all(async (cursor) => {
        const p = await client.listTools(c(cursor))
        return { items: p.tools, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) }
      })
    ).map((t) => t.name)
    expect(names).toEqual(
      expect.arrayContaining(["mstdio.echo", "mhttp.echo", "dual.echo", "everything.echo"]),
    )
    for (const backend of ["mstdio", "mhttp", "dual"]) {
      const echo = await client.callTool({ name: `${backend}.echo`, arguments: { text: backend } })
      expect(textOf(echo)).toBe(backend)
      const progress: number[] = []
      const done = await client.callTool(
        { name: `${backend}.progress`, arguments: { steps: 3 } },
        CallToolResultSchema,
        { onprogress: (p) => progress.push(p.progress) },
      )
      expect(textOf(done)).toBe("did 3 steps")
      expect(progress).toEqual([1, 2, 3])
    }
    expect(textOf(await client.callTool({ name: "everything.echo", arguments: { message: "old" } }))).toBe(
      "Echo: old",
    )
    // Three backends list the same URI and prompt name: served as toolplane:// URIs and dotted names.
    const resources = (
      await all(async (cursor) => {
        const p = await client.listResources(c(cursor))
        return { items: p.resources, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) }
      })
    ).filter((r) => r.uri.includes("greeting"))
    expect(resources.length).toBe(3)
    const read = await client.readResource({ uri: resources.find((r) => r.uri.includes("mhttp"))!.uri })
    expect(read.contents[0]).toMatchObject({ text: "hello from the modern fixture" })
    const prompts = (
      await all(async (cursor) => {
        const p = await client.listPrompts(c(cursor))
        return { items: p.prompts, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) }
      })
    ).map((p) => p.name)
    expect(prompts).toEqual(expect.arrayContaining(["mstdio.greet", "dual.greet"]))
    const prompt = await client.getPrompt({ name: "mstdio.greet", arguments: { name: "Grace" } })
    expect(JSON.stringify(prompt.messages)).toContain("Hello, Grace!")
    const completion = await client.complete({
      ref: { type: "ref/prompt", name: "dual.greet" },
      argument: { name: "name", value: "Al" },
    })
    expect(completion.completion.values).toEqual(["Alan"])
    // The modern upstream's input_required, put to this 2025 client as elicitation/create.
    const confirmed = await client.callTool({ name: "mhttp.confirm", arguments: { what: "release" } })
    expect(textOf(confirmed)).toBe("confirmed release (state-for-release)")
    expect(asked).toContain("Do release?")
  }

  it("serves them all over stdio", async () => {
    const connected = await connectStdio(config, answering)
    try {
      await exercise(connected)
    } finally {
      await connected.close()
    }
  }, 60_000)

  it("serves them all over HTTP", async () => {
    const gateway = await startHttpGateway(config)
    const connected = await connectHttp(gateway.url, gateway.stderr, answering)
    try {
      await exercise(connected)
    } finally {
      await connected.close()
      await gateway.stop()
    }
  }, 60_000)
})
