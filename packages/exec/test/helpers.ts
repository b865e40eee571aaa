/**
 * Test helpers. The in-process backend over `defineTool` definitions is foundation's
 * `definitionBackend` (`@toolplane/foundation/testing`): exec must not import @toolplane/plugin-local.
 */
export const SECRET = "0123456789abcdef0123456789abcdef"

export const deferred = <A = void>() => {
  let resolve!: (value: A) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<A>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms))
