/**
 * Per-tool memoization: listings hand the same tool objects to every call until they change, so
 * anything derived from a tool (a verdict, a renamed copy, a compiled validator) is computed once per
 * tool object and forgotten with it.
 */
import type { Tool } from "@toolplane/foundation"

/** `compute`, remembered per tool object (weakly, so replaced tools are collected). */
export const memoizeByTool = <A>(compute: (tool: Tool) => A): ((tool: Tool) => A) => {
  const memo = new WeakMap<Tool, A>()
  return (tool) => {
    const known = memo.get(tool)
    if (known !== undefined || memo.has(tool)) return known as A
    const value = compute(tool)
    memo.set(tool, value)
    return value
  }
}
