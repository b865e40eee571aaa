/**
 * Search mode per caller (visibility of results, totals, cursors, describe and call), incremental
 * updates after a change of the inner tool list, and learning intent examples from use.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  applyMiddleware,
  type CallToolRequest,
  ExecutionFailed,
  InvalidCursor,
  makeContext,
  makeTool,
  structuredResult,
  type Tool,
  ToolNotFound,
  type ToolResult,
  type ToolService,
} from "@toolplane/foundation"
import { afterAll, describe, expect, it, vi } from "vitest"
import {
  fileIntentStore,
  memoryIntentStore,
  SearchError,
  type SearchToolsResult,
  searchMode,
} from "../src/index.js"

const SEARCH = "toolplane/search_tools"
const DESCRIBE = "toolplane/describe_tool"
const CALL = "toolplane/call_tool"

const tool = (id: string, description: string): Tool => {
  const [namespace, name] = id.split("/") as [string, string]
  return makeTool({ namespace, name, description, inputSchema: { type: "object" } })
}

const catalog = [
  tool("billing/refund", "Refund a customer payment"),
  tool("billing/invoice", "Create an invoice for a customer payment"),
  tool("admin/delete_customer", "Delete a customer account and all payment data"),
  tool("admin/export_payments", "Export every customer payment to a file"),
  tool("public/weather", "Current weather for a city"),
  tool("beta/payment_forecast", "Forecast customer payment volume"), // only alice sees it, not the shared listing
]

/** Inner service whose listing depends on the caller, like capability filters or auth scopes below search mode. */
const scopedService = () => {
  const listed: (string | undefined)[] = []
  let failNext = false
  const visibleTo = (caller: string | undefined) => (t: Tool) =>
    caller === "alice"
      ? true
      : caller === "bob"
        ? t.namespace === "billing" || t.namespace === "public"
        : t.namespace !== "beta"
  const service: ToolService = {
    async listTools(request = {}) {
      listed.push(request.context?.callerId)
      return { tools: catalog.filter(visibleTo(request.context?.callerId)) }
    },
    async callTool(request: CallToolRequest): Promise<ToolResult> {
      const t = catalog.find((x) => x.id === request.name)
      if (t === undefined || !visibleTo(request.context?.callerId)(t))
        throw new ToolNotFound({ toolId: request.name, suggestions: [] })
      if (failNext) {
        failNext = false
        throw new ExecutionFailed({ toolId: t.id, cause: { name: "Error", message: "boom" } })
      }
      return structuredResult({ ran: t.id })
    },
  }
  return {
    service,
    listed,
    failOnce() {
      failNext = true
    },
  }
}

const search = async (svc: ToolService, callerId: string, args: Record<string, unknown>) =>
  (await svc.callTool({ name: SEARCH, arguments: args, context: makeContext({ callerId }) }))
    .structuredContent as unknown as SearchToolsResult

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  )

describe("search mode per caller", () => {
  it("shows each caller only the tools its own listing holds: hits, totals, describe, call", async () => {
    const inner = scopedService()
    const svc = applyMiddleware(inner.service, searchMode())
    const bob = await search(svc, "bob", { query: "customer payment", limit: 10 })
    expect(bob.hits.map((h) => h.id).sort()).toEqual(["billing/invoice", "billing/refund"])
    expect(bob.total).toBe(2)
    const alice = await search(svc, "alice", { query: "customer payment", limit: 10 })
    expect(alice.hits.map((h) => h.id)).toEqual(
      expect.arrayContaining(["admin/delete_customer", "admin/export_payments", "beta/payment_forecast"]),
    )
    expect(alice.total).toBe(5)
    // bob cannot describe or call what he cannot see, and the error does not suggest hidden ids
    const ctx = makeContext({ callerId: "bob" })
    const hidden = await rejection(
      svc.callTool({ name: DESCRIBE, arguments: { id: "admin/delete_customer" }, context: ctx }),
    )
    expect(hidden).toBeInstanceOf(ToolNotFound)
    expect(JSON.stringify((hidden as ToolNotFound).suggestions)).not.toContain("admin/")
    expect(
      await rejection(svc.callTool({ name: CALL, arguments: { id: "admin/delete_customer" }, context: ctx })),
    ).toBeInstanceOf(ToolNotFound)
    const ok = await svc.callTool({ name: CALL, arguments: { id: "billing/refund" }, context: ctx })
    expect(ok.structuredContent).toEqual({ ran: "billing/refund" })
    // a tool only alice's listing holds is found and callable by her
    const aliceCtx = makeContext({ callerId: "alice" })
    const forecast = await svc.callTool({
      name: CALL,
      arguments: { id: "beta/payment_forecast" },
      context: aliceCtx,
    })
    expect(forecast.structuredContent).toEqual({ ran: "beta/payment_forecast" })
    // listings: one shared, one per caller (cached)
    expect(inner.listed.filter((c) => c === "bob")).toHaveLength(1)
    expect(inner.listed.filter((c) => c === "alice")).toHaveLength(1)
  })

  it("pages and cursors count visible tools only, and a cursor does not pass to another caller", async () => {
    const svc = applyMiddleware(scopedService().service, searchMode())
    const p1 = await search(svc, "alice", { query: "customer payment", limit: 2 })
    expect(p1.nextCursor).toBeDefined()
    const p2 = await search(svc, "alice", { query: "customer payment", limit: 2, cursor: p1.nextCursor })
    const p3 = await search(svc, "alice", { query: "customer payment", limit: 2, cursor: p2.nextCursor })
    expect(p3.nextCursor).toBeUndefined()
    const all = [...p1.hits, ...p2.hits, ...p3.hits].map((h) => h.id)
    expect(new Set(all).size).toBe(5)
    expect(
      await rejection(
        svc.callTool({
          name: SEARCH,
          arguments: { query: "customer payment", limit: 2, cursor: p1.nextCursor },
          context: makeContext({ callerId: "bob" }),
        }),
      ),
    ).toBeInstanceOf(InvalidCursor)
  })

  it("takes a visibility function over the shared listing", async () => {
    const svc = applyMiddleware(
      scopedService().service,
      searchMode({ visibility: (t, ctx) => ctx?.callerId === "root" || t.namespace === "public" }),
    )
    expect((await search(svc, "guest", { query: "payment weather city" })).hits.map((h) => h.id)).toEqual([
      "public/weather",
    ])
    expect((await search(svc, "root", { query: "customer payment" })).total).toBe(4)
  })

  it("rejects a bad visibility option", () => {
    expect(() => searchMode({ visibility: "everyone" as never })).toThrow(/visibility/)
  })
})

describe("search mode and tool-list changes", () => {
  /** A service whose tool list the test changes (`state.tools`), counting its listings. */
  const changingService = (initial: Tool[]) => {
    const state = { tools: initial, listings: 0 }
    const inner: ToolService = {
      async listTools() {
        state.listings++
        return { tools: state.tools }
      },
      async callTool(request) {
        return structuredResult({ ran: request.name })
      },
    }
    return { inner, state }
  }

  it("updates its index after a change (changes hook) without waiting for refreshMs", async () => {
    const { inner, state } = changingService(catalog.slice(0, 5))
    const listeners = new Set<() => void>()
    const svc = applyMiddleware(
      inner,
      searchMode({
        visibility: "shared",
        refreshMs: 3_600_000,
        changes: (l) => {
          listeners.add(l)
          return () => listeners.delete(l)
        },
      }),
    )
    expect((await search(svc, "a", { query: "volcano eruption" })).total).toBe(0)
    state.tools = [...state.tools, tool("geo/volcano", "Volcano eruption alerts")]
    expect((await search(svc, "a", { query: "volcano eruption" })).total).toBe(0) // cached for refreshMs
    for (const l of listeners) l()
    expect((await search(svc, "a", { query: "volcano eruption" })).hits[0]?.id).toBe("geo/volcano")
    expect(state.listings).toBe(2)
  })

  it("keeps its index when applied again to the same inner service (as gatewayStack does after a change)", async () => {
    const { inner, state } = changingService(catalog.slice(0, 5))
    const mode = searchMode({ visibility: "shared", refreshMs: 3_600_000 })
    const first = mode(inner)
    await search(first, "a", { query: "refund" })
    state.tools = [...state.tools, tool("geo/volcano", "Volcano eruption alerts")]
    const again = mode(inner)
    expect((await search(again, "a", { query: "volcano" })).hits[0]?.id).toBe("geo/volcano")
    // the old service object shares the updated index
    expect((await search(first, "a", { query: "volcano" })).hits[0]?.id).toBe("geo/volcano")
    expect(state.listings).toBe(2)
  })
})

describe("learning intent examples from use", () => {
  const dir = mkdtempSync(join(tmpdir(), "discovery-learn-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const notes = [
    tool("notes/archive", "Move a note to the archive"),
    tool("notes/pin", "Pin a note to the top"),
    tool("mail/send", "Send an email"),
  ]
  const notesService = (fail = false): ToolService => ({
    async listTools() {
      return { tools: notes }
    },
    async callTool(request) {
      if (fail) throw new ExecutionFailed({ toolId: request.name, cause: { name: "Error", message: "x" } })
      return structuredResult({ ran: request.name })
    },
  })
  const ctx = makeContext({ callerId: "u1" })

  it("turns a search followed by a successful call of a hit into an example, persisted to a file", async () => {
    const path = join(dir, "learned.json")
    const svc = applyMiddleware(notesService(), searchMode({ learn: { store: fileIntentStore(path) } }))
    const found = await search(svc, "u1", { query: "stash this note away for later" })
    expect(found.hits.map((h) => h.id)).toContain("notes/archive")
    await svc.callTool({ name: CALL, arguments: { id: "notes/archive" }, context: ctx })
    // the example is persisted after the call answers: wait for it (a loaded machine can take a while)
    await vi.waitFor(
      () =>
        expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
          "notes/archive": ["stash this note away for later"],
        }),
      { timeout: 5_000, interval: 20 },
    )

    // a new deployment over the same file ranks the tool first for that wording
    const next = applyMiddleware(notesService(), searchMode({ learn: { store: fileIntentStore(path) } }))
    const ranked = await search(next, "u2", { query: "stash it away" })
    expect(ranked.hits[0]?.id).toBe("notes/archive")
  })

  it("learns only successful calls of a hit of the caller's own last search, bounded per tool", async () => {
    const store = memoryIntentStore()
    const svc = applyMiddleware(notesService(), searchMode({ learn: { store, maxPerTool: 2 } }))
    // a call without a search, and a call of a tool that was not a hit: nothing learned
    await svc.callTool({ name: CALL, arguments: { id: "mail/send" }, context: ctx })
    await search(svc, "u1", { query: "pin a note" })
    await svc.callTool({ name: CALL, arguments: { id: "mail/send" }, context: ctx })
    // another caller's search does not count for u1
    await search(svc, "u9", { query: "send an email" })
    await svc.callTool({ name: CALL, arguments: { id: "mail/send" }, context: ctx })
    expect(store.snapshot()).toEqual({})
    for (const q of ["pin a note", "keep this note on top", "pin the note first"]) {
      await search(svc, "u1", { query: q })
      await svc.callTool({ name: CALL, arguments: { id: "notes/pin" }, context: ctx })
    }
    await vi.waitFor(
      () =>
        expect(store.snapshot()).toEqual({ "notes/pin": ["keep this note on top", "pin the note first"] }),
      { timeout: 5_000, interval: 20 },
    )
  })

  it("does not learn from a failed call", async () => {
    const store = memoryIntentStore()
    const svc = applyMiddleware(notesService(true), searchMode({ learn: { store } }))
    await search(svc, "u1", { query: "archive my note" })
    await rejection(svc.callTool({ name: CALL, arguments: { id: "notes/archive" }, context: ctx }))
    expect(store.snapshot()).toEqual({})
  })

  it("fails with a SearchError naming the file when the store holds something else", async () => {
    const path = join(dir, "bad.json")
    writeFileSync(path, JSON.stringify({ "notes/pin": "not a list" }))
    await expect(fileIntentStore(path).load()).rejects.toThrow(SearchError)
    await expect(fileIntentStore(path).load()).rejects.toThrow(/bad\.json/)
    expect(() => searchMode({ learn: { store: {} as never } })).toThrow(/learn\.store/)
  })
})
