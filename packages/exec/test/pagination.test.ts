import { defineTool, ExpiredCursor, InvalidCursor, makeCursorCodec, page } from "@toolplane/foundation"
import { definitionBackend } from "@toolplane/foundation/testing"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { callAll, createRunner } from "../src/index.js"
import { SECRET } from "./helpers.js"

const rows = Array.from({ length: 25 }, (_, i) => `row${i}`)
let resumes: unknown[] = []
const search = defineTool({
  id: "logs/search",
  paginated: true,
  annotations: { readOnlyHint: true },
  input: z.object({ q: z.string(), size: z.number().default(10) }),
  handler: ({ size }, { resume }) => {
    resumes.push(resume)
    const offset = typeof resume === "number" ? resume : 0
    const slice = rows.slice(offset, offset + size)
    return page({ rows: slice }, offset + size < rows.length ? offset + size : undefined)
  },
})
const other = defineTool({
  id: "logs/other",
  paginated: true,
  input: z.object({ q: z.string() }),
  handler: () => "x",
})

describe("paginated tool results", () => {
  const make = (now?: () => number) =>
    createRunner({
      backends: [definitionBackend([search, other])],
      ...(now
        ? { cursorCodec: makeCursorCodec({ keys: [{ kid: "k", secret: SECRET }], ttlMs: 1000, now }) }
        : {}),
      cursorSecret: SECRET,
    })

  it("returns pages with signed cursors and resumes from verified state", async () => {
    resumes = []
    const runner = make()
    const first = await runner.callTool({ name: "logs/search", arguments: { q: "x" } })
    expect(first.structuredContent).toEqual({ rows: rows.slice(0, 10) })
    expect(first).not.toHaveProperty("continuation")
    expect(first.nextCursor).toMatch(/^v1\.k1\./)
    const second = await runner.callTool({
      name: "logs/search",
      arguments: { q: "x" },
      cursor: first.nextCursor!,
    })
    expect(second.structuredContent).toEqual({ rows: rows.slice(10, 20) })
    const third = await runner.callTool({
      name: "logs/search",
      arguments: { q: "x" },
      cursor: second.nextCursor!,
    })
    expect(third.structuredContent).toEqual({ rows: rows.slice(20) })
    expect(third.nextCursor).toBeUndefined()
    expect(resumes).toEqual([undefined, 10, 20])
  })

  it("continues on another runner (replica) sharing the secret", async () => {
    const first = await make().callTool({ name: "logs/search", arguments: { q: "x" } })
    const second = await make().callTool({
      name: "logs/search",
      arguments: { q: "x" },
      cursor: first.nextCursor!,
    })
    expect(second.structuredContent).toEqual({ rows: rows.slice(10, 20) })
  })

  it("rejects tampered cursors and cursors for another tool, caller or arguments", async () => {
    resumes = []
    const runner = make()
    const first = await runner.callTool({
      name: "logs/search",
      arguments: { q: "x" },
      context: { callerId: "alice" },
    })
    const cursor = first.nextCursor!
    const [v, kid, payload, mac] = cursor.split(".") as [string, string, string, string]
    const forged = JSON.parse(Buffer.from(payload, "base64url").toString())
    forged.x = 0
    const tampered = [
      `${v}.${kid}.${Buffer.from(JSON.stringify(forged)).toString("base64url")}.${mac}`,
      `${cursor.slice(0, -2)}${cursor.endsWith("AA") ? "BB" : "AA"}`,
      "garbage",
      `${v}.other.${payload}.${mac}`,
    ]
    for (const bad of tampered) {
      const error = await runner
        .callTool({ name: "logs/search", arguments: { q: "x" }, cursor: bad, context: { callerId: "alice" } })
        .catch((e) => e)
      expect(error, bad).toBeInstanceOf(InvalidCursor)
    }
    const misuse = [
      { name: "logs/search", arguments: { q: "x" }, context: { callerId: "bob" } },
      { name: "logs/search", arguments: { q: "x" } },
      { name: "logs/search", arguments: { q: "y" }, context: { callerId: "alice" } },
      { name: "logs/other", arguments: { q: "x" }, context: { callerId: "alice" } },
    ]
    for (const request of misuse) {
      const error = await runner.callTool({ ...request, cursor }).catch((e) => e)
      expect(error, JSON.stringify(request)).toBeInstanceOf(InvalidCursor)
    }
    expect(resumes).toEqual([undefined])
  })

  it("rejects expired continuation cursors", async () => {
    let now = 1_000_000
    const runner = make(() => now)
    const first = await runner.callTool({ name: "logs/search", arguments: { q: "x" } })
    now += 5000
    await expect(
      runner.callTool({ name: "logs/search", arguments: { q: "x" }, cursor: first.nextCursor! }),
    ).rejects.toBeInstanceOf(ExpiredCursor)
  })

  it("callAll follows cursors within page and byte limits", async () => {
    const runner = make()
    const all = await runner.callAll({ name: "logs/search", arguments: { q: "x" } })
    expect(all.complete).toBe(true)
    expect(all.pages).toHaveLength(3)
    expect(all.structured.flatMap((s) => s.rows as string[])).toEqual(rows)
    const two = await callAll(
      runner,
      { name: "logs/search", arguments: { q: "x", size: 5 } },
      { maxPages: 2 },
    )
    expect(two).toMatchObject({ complete: false, stoppedBy: "maxPages" })
    expect(two.pages).toHaveLength(2)
    const rest = await runner.callAll({
      name: "logs/search",
      arguments: { q: "x", size: 5 },
      cursor: two.nextCursor!,
    })
    expect(rest.structured.flatMap((s) => s.rows as string[])).toEqual(rows.slice(10))
    const firstSize = all.bytes / 3
    const capped = await runner.callAll(
      { name: "logs/search", arguments: { q: "x" } },
      { maxBytes: firstSize * 1.5 },
    )
    expect(capped).toMatchObject({ complete: false, stoppedBy: "maxBytes" })
    expect(capped.pages).toHaveLength(1)
    const resumed = await runner.callTool({
      name: "logs/search",
      arguments: { q: "x" },
      cursor: capped.nextCursor!,
    })
    expect(resumed.structuredContent).toEqual({ rows: rows.slice(10, 20) })
  })
})
