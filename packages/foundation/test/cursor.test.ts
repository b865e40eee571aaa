import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { ConfigError, ExpiredCursor, InvalidCursor, makeCursorCodec } from "../src/index.js"

const key = { kid: "k1", secret: "0123456789abcdef0123456789abcdef" }
const binding = {
  purpose: "tools/call",
  toolId: "db/query",
  caller: "alice",
  args: { sql: "select 1", limit: 5 },
}

const position = fc.jsonValue({ maxDepth: 2 }).filter((v) => JSON.stringify(v).length < 500)

const reject = (fn: () => unknown): unknown => {
  try {
    fn()
  } catch (error) {
    return error
  }
  return undefined
}

describe("cursor codec", () => {
  test.prop([position])("valid cursors round-trip", (pos) => {
    const codec = makeCursorCodec({ keys: [key] })
    const claims = codec.decode(codec.encode(binding, pos as never), binding)
    expect(claims.position).toEqual(JSON.parse(JSON.stringify(pos)))
    expect(claims.toolId).toBe("db/query")
    expect(claims.caller).toBe("alice")
  })

  test.prop([position, fc.nat(), fc.integer({ min: 1, max: 255 })])(
    "flipping any byte is rejected with InvalidCursor",
    (pos, index, delta) => {
      const codec = makeCursorCodec({ keys: [key] })
      const cursor = codec.encode(binding, pos as never)
      const bytes = Buffer.from(cursor, "latin1")
      const i = index % bytes.length
      bytes[i] = (bytes[i]! + delta) % 256
      const tampered = bytes.toString("latin1")
      expect(reject(() => codec.decode(tampered, binding))).toBeInstanceOf(InvalidCursor)
    },
  )

  it("binds the cursor to caller, tool, arguments and purpose (argument key order does not matter)", () => {
    const codec = makeCursorCodec({ keys: [key] })
    const cursor = codec.encode(binding, 10)
    expect(codec.decode(cursor, { ...binding, args: { limit: 5, sql: "select 1" } }).position).toBe(10)
    for (const other of [
      { ...binding, caller: "mallory" },
      { ...binding, toolId: "db/drop" },
      { ...binding, args: { sql: "select 2", limit: 5 } },
      { ...binding, purpose: "tools/list" },
      { purpose: "tools/call", toolId: "db/query", args: binding.args },
    ]) {
      const error = reject(() => codec.decode(cursor, other))
      expect(error).toBeInstanceOf(InvalidCursor)
    }
  })

  it("rejects another key and accepts rotated keys", () => {
    const old = makeCursorCodec({ keys: [key] })
    const rotated = makeCursorCodec({
      keys: [{ kid: "k2", secret: "fedcba9876543210fedcba9876543210" }, key],
    })
    const stranger = makeCursorCodec({ keys: [{ kid: "k1", secret: "ffffffffffffffffffffffffffffffff" }] })
    const cursor = old.encode(binding, 1)
    expect(rotated.decode(cursor, binding).kid).toBe("k1")
    expect((reject(() => stranger.decode(cursor, binding)) as InvalidCursor).reason).toContain("signature")
    expect(rotated.encode(binding, 1).startsWith("v1.k2.")).toBe(true)
    expect((reject(() => old.decode(rotated.encode(binding, 1), binding)) as InvalidCursor).reason).toContain(
      "unknown key",
    )
  })

  it("expires", () => {
    let now = 1_000_000
    const codec = makeCursorCodec({ keys: [key], ttlMs: 1000, now: () => now })
    const cursor = codec.encode(binding, 1)
    now += 999
    expect(codec.decode(cursor, binding).position).toBe(1)
    now += 1
    const error = reject(() => codec.decode(cursor, binding))
    expect(error).toBeInstanceOf(ExpiredCursor)
    expect((error as ExpiredCursor).expiredAt).toBe(1_001_000)
  })

  it("caps the size", () => {
    const codec = makeCursorCodec({ keys: [key], maxBytes: 256 })
    expect(reject(() => codec.encode(binding, "x".repeat(300)))).toBeInstanceOf(InvalidCursor)
    expect((reject(() => codec.decode("v1.".padEnd(300, "a"), binding)) as InvalidCursor).reason).toContain(
      "limit",
    )
  })

  it("rejects garbage and bad configuration precisely", () => {
    const codec = makeCursorCodec({ keys: [key] })
    for (const junk of ["", "abc", "v1.k1.x", "v2.k1.a.b", "v1.k1.!!.??"]) {
      expect(reject(() => codec.decode(junk, binding))).toBeInstanceOf(InvalidCursor)
    }
    expect(reject(() => makeCursorCodec({ keys: [] }))).toBeInstanceOf(ConfigError)
    expect(
      (reject(() => makeCursorCodec({ keys: [{ kid: "k", secret: "short" }] })) as ConfigError).path,
    ).toBe("cursor.keys[0].secret")
    expect(
      (reject(() => makeCursorCodec({ keys: [{ kid: "bad kid", secret: key.secret }] })) as ConfigError).path,
    ).toBe("cursor.keys[0].kid")
  })
})
