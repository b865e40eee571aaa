/**
 * Id patterns: an exact id, a glob (`*` any characters except `/`, `**` any characters, `?` one
 * character except `/`), or a regular expression written `re:<source>`.
 */
import { ConfigError } from "@toolplane/foundation"

/** @internal */
export type IdMatcher = (id: string) => boolean

const GLOB_CHARS = /[*?]/

/** @internal */
export const globToRegExp = (glob: string): RegExp => {
  let source = ""
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!
    if (ch === "*") {
      if (glob[i + 1] === "*") {
        source += ".*"
        i++
      } else source += "[^/]*"
    } else if (ch === "?") source += "[^/]"
    else source += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&")
  }
  return new RegExp(`^${source}$`)
}

/** Compiles id patterns into one matcher; a bad `re:` pattern is a ConfigError at `path[i]`. @internal */
export const compileIdPatterns = (patterns: readonly string[], path: string): IdMatcher => {
  const exact = new Set<string>()
  const regexps: RegExp[] = []
  patterns.forEach((pattern, i) => {
    if (typeof pattern !== "string" || pattern.length === 0)
      throw new ConfigError({ path: `${path}[${i}]`, reason: "id pattern must be a non-empty string" })
    if (pattern.startsWith("re:")) {
      try {
        regexps.push(new RegExp(pattern.slice(3)))
      } catch (error) {
        throw new ConfigError({
          path: `${path}[${i}]`,
          reason: `invalid regular expression: ${(error as Error).message}`,
        })
      }
    } else if (GLOB_CHARS.test(pattern)) regexps.push(globToRegExp(pattern))
    else exact.add(pattern)
  })
  if (regexps.length === 0) return (id) => exact.has(id)
  return (id) => exact.has(id) || regexps.some((re) => re.test(id))
}
