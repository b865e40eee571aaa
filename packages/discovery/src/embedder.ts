/**
 * Turns texts into dense vectors, for hybrid (lexical + dense) search. Bring your own
 * (an embeddings API, a local model); discovery never downloads a model.
 *
 * @since 0.1.0
 */
export interface Embedder {
  /** One vector per text, in order. */
  embed(texts: string[]): Promise<number[][]>
}
