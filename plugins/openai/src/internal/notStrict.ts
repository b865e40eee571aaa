/** The failure inside strict conversion (and its limits check) that makes a schema not strict-able. */
export class NotStrict extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
    /** The source feature strict mode cannot express, when one keyword is the cause. */
    readonly feature?: string,
  ) {
    super(reason)
  }
}
