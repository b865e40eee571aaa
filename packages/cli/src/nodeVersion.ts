/**
 * The Node.js versions `toolplane` runs on. Imports nothing, so the entry point can check the version
 * before loading any module an older Node cannot load.
 *
 * @since 0.1.0
 */

/** The oldest Node.js major version `toolplane` supports (the packages' `engines`). @since 0.1.0 */
export const MIN_NODE_MAJOR = 22

/**
 * The message refusing a Node.js version older than {@link MIN_NODE_MAJOR} (`process.versions.node`),
 * or `undefined` when it is supported.
 *
 * @since 0.1.0
 */
export const unsupportedNode = (version: string): string | undefined => {
  const major = Number.parseInt(version, 10)
  if (!Number.isFinite(major) || major >= MIN_NODE_MAJOR) return undefined
  return `toolplane needs Node.js >= ${MIN_NODE_MAJOR} (this is ${version})`
}
