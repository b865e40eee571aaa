/**
 * The shared ring host calls and answers travel through: FIFO order across wrap-arounds, refusal when a
 * record does not fit (the caller falls back to a message), UTF-8 text, and a writer on another thread.
 */
import { Worker } from "node:worker_threads"
import { describe, expect, it } from "vitest"
import { newRingBuffer, ringOf, ringRead, ringWrite } from "../src/internal/ring.js"

/** A deterministic pseudo-random sequence (so a failure reproduces). */
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}

describe("shared ring", () => {
  it("reads nothing from an empty ring and returns records in order with both fields", () => {
    const ring = ringOf(newRingBuffer(256))
    expect(ringRead(ring)).toBeUndefined()
    expect(ringWrite(ring, 7, -3, '{"a":1}')).toBe(true)
    expect(ringWrite(ring, 8, 4, "")).toBe(true)
    expect(ringRead(ring)).toEqual({ a: 7, b: -3, text: '{"a":1}' })
    expect(ringRead(ring)).toEqual({ a: 8, b: 4, text: "" })
    expect(ringRead(ring)).toBeUndefined()
  })

  it("keeps FIFO order over thousands of wrap-arounds with records of every size, refusing what does not fit", () => {
    const capacity = 200
    const ring = ringOf(newRingBuffer(capacity))
    const next = random(42)
    const pending: { a: number; b: number; text: string }[] = []
    let written = 0
    let refused = 0
    let read = 0
    for (let step = 0; step < 20_000; step++) {
      if (next() < 0.55) {
        // Text of 0..150 characters, some of them multi-byte (é is 2 bytes, € 3, 😀 4).
        const length = Math.floor(next() * 150)
        let text = ""
        for (let i = 0; i < length; i++) text += ["a", "é", "€", "😀"][Math.floor(next() * 4)]
        const record = { a: written, b: -1 - written, text }
        if (ringWrite(ring, record.a, record.b, text)) {
          pending.push(record)
          written++
        } else {
          refused++
          // Refused only when it truly does not fit: 12 bytes of header plus the padded UTF-8 text
          // must exceed what is free (at most capacity - 4 with one record in flight).
          if (pending.length === 0) expect(12 + Buffer.byteLength(text)).toBeGreaterThan(capacity / 2 - 16)
        }
      } else {
        const got = ringRead(ring)
        const want = pending.shift()
        expect(got).toEqual(want)
        if (got) read++
      }
    }
    for (let got = ringRead(ring); got !== undefined; got = ringRead(ring))
      expect(got).toEqual(pending.shift())
    expect(pending).toEqual([])
    expect(read).toBeGreaterThan(1000)
    expect(refused).toBeGreaterThan(0)
  })

  it("never lets a full ring look empty", () => {
    const ring = ringOf(newRingBuffer(64))
    // 64 bytes of data: three 16-byte records (12 + 4) fit, the fourth would make tail reach head.
    expect(ringWrite(ring, 1, 0, "abcd")).toBe(true)
    expect(ringWrite(ring, 2, 0, "abcd")).toBe(true)
    expect(ringWrite(ring, 3, 0, "abcd")).toBe(true)
    expect(ringWrite(ring, 4, 0, "abcd")).toBe(false)
    expect(ringRead(ring)?.a).toBe(1)
    // One slot free again, at the start: the record wraps there.
    expect(ringWrite(ring, 4, 0, "abcd")).toBe(true)
    expect([ringRead(ring)?.a, ringRead(ring)?.a, ringRead(ring)?.a, ringRead(ring)]).toEqual([
      2,
      3,
      4,
      undefined,
    ])
  })

  it("carries records from a writer thread to a reader thread in order", async () => {
    const buffer = newRingBuffer(1024)
    const count = 5000
    // The writer spins on a full ring; the reader (this thread) spins on an empty one.
    const worker = new Worker(new URL("./fixtures/ringWriter.ts", import.meta.url), {
      workerData: { buffer, count },
    })
    const ring = ringOf(buffer)
    let seen = 0
    const deadline = Date.now() + 20_000
    while (seen < count && Date.now() < deadline) {
      const record = ringRead(ring)
      if (record === undefined) continue
      expect(record.a).toBe(seen)
      expect(record.b).toBe(seen % 7)
      expect(record.text).toBe("é".repeat(seen % 97) + seen)
      seen++
    }
    await worker.terminate()
    expect(seen).toBe(count)
  })
})
