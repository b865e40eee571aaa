import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  applyMiddleware,
  Cancelled,
  defineMiddleware,
  InvalidCursor,
  listAllTools,
  makeCursorCodec,
  makeTool,
  paginateTools,
  type ToolService,
  textResult,
  toolServiceFromEffect,
  toolServiceToEffect,
} from "../src/index.js"

const codec = makeCursorCodec({ keys: [{ kid: "t", secret: "0123456789abcdef0123456789abcdef" }] })
const tools = Array.from({ length: 25 }, (_, i) => makeTool({ id: `ns/t${String(i).padStart(2, "0")}` }))

const service = (list = tools): ToolService => ({
  listTools: async (request = {}) => paginateTools(list, { codec, pageSize: 10, cursor: request.cursor }),
  callTool: async (request) => textResult(`called ${request.name}`),
})

describe("tool service", () => {
  it("paginates with signed keyset cursors", async () => {
    const first = await service().listTools()
    expect(first.tools.map((t) => t.id)).toEqual(tools.slice(0, 10).map((t) => t.id))
    expect(first.nextCursor).toBeDefined()
    const all = await listAllTools(service())
    expect(all.map((t) => t.id)).toEqual(tools.map((t) => t.id))
  })

  it("keeps pages stable when tools are removed between pages", async () => {
    const first = await service().listTools()
    const shrunk = tools.filter((t) => t.id !== "ns/t03" && t.id !== "ns/t12")
    const second = await service(shrunk).listTools({ cursor: first.nextCursor! })
    expect(second.tools[0]!.id).toBe("ns/t10")
    expect(second.tools.map((t) => t.id)).not.toContain("ns/t12")
  })

  it("rejects a tampered listing cursor", async () => {
    const first = await service().listTools()
    const tampered = first.nextCursor!.slice(0, -2) + (first.nextCursor!.endsWith("A") ? "BB" : "AA")
    await expect(service().listTools({ cursor: tampered })).rejects.toBeInstanceOf(InvalidCursor)
  })

  it("applies middleware innermost first", async () => {
    const seen: string[] = []
    const tag = (label: string) =>
      defineMiddleware({
        callTool: async (request, next) => {
          seen.push(label)
          return next.callTool(request)
        },
      })
    const stacked = applyMiddleware(service(), tag("inner"), tag("outer"))
    await stacked.callTool({ name: "ns/t00" })
    expect(seen).toEqual(["outer", "inner"])
  })

  it("converts to and from the Effect form", async () => {
    const effectful = toolServiceToEffect(service())
    const result = await Effect.runPromise(effectful.callTool({ name: "ns/t01" }))
    expect(result.content[0]).toEqual({ type: "text", text: "called ns/t01" })
    const plain = toolServiceFromEffect(effectful)
    expect((await plain.listTools()).tools).toHaveLength(10)
  })
})

describe("toolServiceFromEffect", () => {
  it("rejects a cancelled call with Cancelled, never an untyped error", async () => {
    const slow = toolServiceFromEffect({
      listTools: () => Effect.succeed({ tools: [] }),
      callTool: () => Effect.never,
    })
    const controller = new AbortController()
    const pending = slow.callTool({ name: "ns/slow", context: { signal: controller.signal } })
    controller.abort(new Error("user pressed stop"))
    const error = await pending.catch((e) => e)
    expect(error).toBeInstanceOf(Cancelled)
    expect((error as Cancelled).reason).toBe("user pressed stop")
  })
})
