/**
 * Interns analyzed terms as dense integer ids.
 *
 * @since 0.1.0
 */
export class Vocabulary {
  private readonly ids = new Map<string, number>()

  /** Number of distinct terms seen. */
  get size(): number {
    return this.ids.size
  }

  /** The id of a term, interning it when new. */
  intern(term: string): number {
    let id = this.ids.get(term)
    if (id === undefined) {
      id = this.ids.size
      this.ids.set(term, id)
    }
    return id
  }

  /** The id of a known term, or `undefined`. */
  lookup(term: string): number | undefined {
    return this.ids.get(term)
  }
}
