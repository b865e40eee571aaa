/**
 * A single-producer single-consumer ring of records on a `SharedArrayBuffer`, used between the sandbox
 * (parent thread) and a worker for host calls and their answers, so that these skip `postMessage` and
 * its structured clone. A record is two int32 fields and a UTF-8 text (JSON). Only the sandbox's own
 * JavaScript on either thread touches the buffer; QuickJS never sees it (strings are copied into the
 * engine).
 *
 * Layout: `[head, tail, -, -]` as int32 (byte offsets into the data area; the reader owns `head`, the
 * writer `tail`; equal means empty), then the data area. A record at a 4-byte aligned offset is
 * `[byteLength, a, b]` as int32 followed by the text's bytes, padded to 4. A record that does not fit
 * before the end of the data area starts at 0, after a wrap marker (`-1`) where it would have been.
 * Publication order: the writer fills the record, then stores `tail` (`Atomics.store`); the reader loads
 * `tail` (`Atomics.load`), reads, then stores `head`. Only erasable TypeScript here: the worker runs the
 * source directly when Node strips the types.
 */

const HEADER_BYTES = 16
const RECORD_HEADER = 12
const HEAD = 0
const TAIL = 1
const WRAP = -1

/** One end's view of a ring. */
export interface Ring {
  readonly buffer: SharedArrayBuffer
  readonly control: Int32Array
  readonly words: Int32Array
  readonly bytes: Buffer
  /** Size of the data area in bytes (a multiple of 4). */
  readonly capacity: number
}

/** A record read from a ring. */
export interface RingRecord {
  readonly a: number
  readonly b: number
  readonly text: string
}

/** A shared buffer for a ring with `capacity` bytes of data (rounded up to a multiple of 4, at least 64). */
export const newRingBuffer = (capacity: number): SharedArrayBuffer =>
  new SharedArrayBuffer(HEADER_BYTES + Math.max(64, Math.ceil(capacity / 4) * 4))

/** Views a ring's shared buffer (either end). */
export const ringOf = (buffer: SharedArrayBuffer): Ring => {
  const capacity = buffer.byteLength - HEADER_BYTES
  return {
    buffer,
    control: new Int32Array(buffer, 0, 4),
    words: new Int32Array(buffer, HEADER_BYTES, capacity / 4),
    bytes: Buffer.from(buffer, HEADER_BYTES, capacity),
    capacity,
  }
}

/**
 * Appends a record; `false` when it does not fit in the free space now (the caller sends it another way).
 * Writer side only.
 */
export const ringWrite = (ring: Ring, a: number, b: number, text: string): boolean => {
  const { control, words, bytes, capacity } = ring
  // An upper bound first (3 bytes per UTF-16 unit), the exact size only when the bound does not fit.
  let length = text.length * 3
  let need = RECORD_HEADER + ((length + 3) & ~3)
  const head = Atomics.load(control, HEAD)
  const tail = control[TAIL]!
  const at = placeFor(need, head, tail, capacity)
  let pos = at
  if (pos < 0) {
    length = Buffer.byteLength(text)
    need = RECORD_HEADER + ((length + 3) & ~3)
    pos = placeFor(need, head, tail, capacity)
    if (pos < 0) return false
  }
  const written = bytes.write(text, pos + RECORD_HEADER, "utf8")
  if (pos !== tail) words[tail >> 2] = WRAP
  const w = pos >> 2
  words[w] = written
  words[w + 1] = a
  words[w + 2] = b
  let next = pos + RECORD_HEADER + ((written + 3) & ~3)
  if (next === capacity) next = 0
  Atomics.store(control, TAIL, next)
  return true
}

/**
 * Where a record of `need` bytes goes (its offset), or -1 when it does not fit. The ring never becomes
 * full to the byte: `tail` must not catch up with `head`, or full would read as empty.
 */
const placeFor = (need: number, head: number, tail: number, capacity: number): number => {
  if (tail >= head) {
    const end = tail + need
    if (end < capacity || (end === capacity && head !== 0)) return tail
    // Wrap: a marker at `tail` (there is always room for one int32), the record at 0, before `head`.
    return need < head ? 0 : -1
  }
  return tail + need < head ? tail : -1
}

/** The next record, or `undefined` when the ring is empty. Reader side only. */
export const ringRead = (ring: Ring): RingRecord | undefined => {
  const { control, words, bytes, capacity } = ring
  let head = control[HEAD]!
  const tail = Atomics.load(control, TAIL)
  if (head === tail) return undefined
  let length = words[head >> 2]!
  if (length === WRAP) {
    head = 0
    length = words[0]!
  }
  const w = head >> 2
  const record = {
    a: words[w + 1]!,
    b: words[w + 2]!,
    text: bytes.toString("utf8", head + RECORD_HEADER, head + RECORD_HEADER + length),
  }
  let next = head + RECORD_HEADER + ((length + 3) & ~3)
  if (next === capacity) next = 0
  Atomics.store(control, HEAD, next)
  return record
}
