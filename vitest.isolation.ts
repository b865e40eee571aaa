/**
 * Which test files need a fresh module graph of their own. Every other file shares its worker's modules
 * with the files that ran there before it, which spares re-evaluating the workspace's sources per file
 * (about a fifth of the suite's wall time on two cores).
 *
 * A file is isolated when it, or a test support module it imports, touches what outlives a file: process
 * globals (`globalThis`, `process.env` writes, `process.on`, `process.chdir`), OpenTelemetry's global
 * providers, vitest's module mocks, stubs and fake timers, or a resource opened at a support module's top
 * level and closed by its top-level `afterAll` (which would close it under the next file).
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const SHARED_STATE = [
  /\bsetGlobal[A-Z]\w*\(/,
  /\bvi\.(mock|doMock|stubGlobal|stubEnv|useFakeTimers)\(/,
  /\bvi\.spyOn\((globalThis|process|console)\b/,
  /\bglobalThis\b/,
  /\bprocess\.env(\.\w+|\[[^\]]+\])\s*=[^=]/,
  /\bdelete process\.env\b/,
  /\bObject\.assign\(process\.env\b/,
  /\bprocess\.(on|once|chdir)\(/,
  /\b(propagation|context|trace|metrics)\.disable\(/,
]
/** A support module's own top-level resource lifetime. */
const TOP_LEVEL_HOOK = /^(afterAll|beforeAll)\(/m
const LOCAL_IMPORT = /from\s+"(\.{1,2}\/[^"]+)\.js"/g

const walk = (dir: string, out: string[]): string[] => {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path, out)
    else if (name.endsWith(".test.ts")) out.push(path)
  }
  return out
}

const touchesSharedState = (file: string): boolean => {
  const text = readFileSync(file, "utf8")
  if (SHARED_STATE.some((pattern) => pattern.test(text))) return true
  for (const match of text.matchAll(LOCAL_IMPORT)) {
    const support = resolve(dirname(file), `${match[1]}.ts`)
    let supportText: string
    try {
      supportText = readFileSync(support, "utf8")
    } catch {
      continue
    }
    if (TOP_LEVEL_HOOK.test(supportText) || SHARED_STATE.some((pattern) => pattern.test(supportText)))
      return true
  }
  return false
}

/** The test files (relative to `root`, `/`-separated) that must run with module isolation. */
export const isolatedTestFiles = (root: string, dirs: readonly string[]): string[] =>
  dirs
    .flatMap((dir) => {
      const abs = join(root, dir)
      try {
        return walk(abs, [])
      } catch {
        return []
      }
    })
    .filter(touchesSharedState)
    .map((file) => relative(root, file).split("\\").join("/"))
    .sort()
