/**
 * The documentation-example checker (scripts/docExamples.ts, run by `pnpm typecheck`): extraction from
 * Markdown and TSDoc, the imports a TSDoc fragment gets, and, on a scratch workspace, that a wrong example
 * fails at the line of the document it comes from.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import {
  checkDocExamples,
  exampleModule,
  importedPackages,
  markdownExamples,
  outputMatches,
  tsdocExamples,
} from "../scripts/docExamples.js"

describe("extraction", () => {
  it("finds ```ts blocks in Markdown with the line of their first code line, skipping no-check", () => {
    const md = [
      "# T",
      "",
      "```ts",
      "const a = 1",
      "```",
      "",
      "```ts no-check",
      "class X {",
      "```",
      "```sh",
      "ls",
      "```",
    ]
    expect(markdownExamples("README.md", md.join("\n"))).toEqual([
      { source: "README.md", line: 4, code: "const a = 1", kind: "markdown" },
    ])
  })

  it("finds the ```ts block after an @example tag in a doc comment", () => {
    const src = [
      "/**",
      " * Does it.",
      " *",
      " * @example",
      " * ```ts",
      " * const x = doIt(1)",
      " *   .then(String)",
      " * ```",
      " * @since 0.1.0",
      " */",
      "export const doIt = (n: number) => Promise.resolve(n)",
    ]
    expect(tsdocExamples("src/a.ts", src.join("\n"))).toEqual([
      { source: "src/a.ts", line: 6, code: "const x = doIt(1)\n  .then(String)", kind: "tsdoc" },
    ])
  })

  it("imports for a TSDoc fragment what it uses from its package, other packages and known libraries", () => {
    const own = {
      name: "@toolplane/a",
      exports: new Map([
        ["doIt", false],
        ["Options", true],
        ["unused", false],
      ]),
    }
    const other = {
      name: "@toolplane/b",
      exports: new Map([
        ["helper", false],
        ["doIt", false],
      ]),
    }
    const module = exampleModule(
      {
        source: "src/a.ts",
        line: 6,
        code: "const o: Options = {}\nconst doneBy = doIt(helper(z.string()))",
        kind: "tsdoc",
      },
      own,
      [other],
    )
    const [first, ...rest] = module.split("\n")
    expect(first).toContain('import { type Options, doIt } from "@toolplane/a";')
    expect(first).toContain('import { helper } from "@toolplane/b";')
    expect(first).toContain('import { z } from "zod";')
    expect(rest[0]).toBe("const o: Options = {}") // the example starts on the generated file's 2nd line
  })

  it("leaves README blocks as written (they must import what they use)", () => {
    const module = exampleModule(
      { source: "README.md", line: 3, code: "doIt()", kind: "markdown" },
      { name: "@toolplane/a", exports: new Map([["doIt", false]]) },
    )
    expect(module).not.toContain("import")
  })
})

describe("checkDocExamples on a scratch workspace", () => {
  const root = mkdtempSync(join(tmpdir(), "toolplane-doc-examples-"))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  // two small tsc programs: seconds alone, more on a loaded machine
  it("passes correct examples and reports a wrong one at its document line", { timeout: 120_000 }, () => {
    writeFileSync(
      join(root, "tsconfig.base.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          module: "ESNext",
          moduleResolution: "Bundler",
          strict: true,
          types: [],
        },
      }),
    )
    const pkg = join(root, "packages", "a")
    mkdirSync(join(pkg, "src"), { recursive: true })
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@toolplane/a", type: "module" }))
    writeFileSync(
      join(pkg, "src", "index.ts"),
      [
        "/**",
        " * @example",
        " * ```ts",
        " * const n: number = twice(2)",
        " * ```",
        " */",
        "export const twice = (n: number): number => n * 2",
      ].join("\n"),
    )
    const readme = [
      "# a",
      "",
      "```ts",
      'import { twice } from "@toolplane/a"',
      "",
      "const ok: number = twice(1)",
      'const wrong: string = twice("x")',
      "```",
    ]
    writeFileSync(join(pkg, "README.md"), readme.join("\n"))
    const result = checkDocExamples(root, { docsHost: "@toolplane/a", prelude: null })
    expect(result.examples).toBe(2)
    expect(result.errors.length).toBeGreaterThanOrEqual(1)
    for (const error of result.errors) expect(error).toMatch(/^packages\/a\/README\.md:7: TS\d+: /)

    writeFileSync(join(pkg, "README.md"), readme.filter((l) => !l.includes("wrong")).join("\n"))
    expect(checkDocExamples(root, { docsHost: "@toolplane/a", prelude: null })).toEqual({
      examples: 2,
      errors: [],
    })
  })
})

describe("runnable examples (```ts run)", () => {
  it("marks complete programs and takes the ```text block after one as its expected output", () => {
    const md = [
      "```ts run",
      'console.log("hi")',
      "```",
      "",
      "```text",
      "hi",
      "```",
      "```ts",
      "const typedOnly = 1",
      "```",
      "```ts run",
      "console.log(2)",
      "```",
    ]
    expect(markdownExamples("README.md", md.join("\n"))).toEqual([
      {
        source: "README.md",
        line: 2,
        code: 'console.log("hi")',
        kind: "markdown",
        run: true,
        expected: "hi",
      },
      { source: "README.md", line: 9, code: "const typedOnly = 1", kind: "markdown" },
      { source: "README.md", line: 12, code: "console.log(2)", kind: "markdown", run: true },
    ])
  })

  it("names the packages a program imports", () => {
    const code = [
      'import { z } from "zod"',
      'import { x } from "@toolplane/foundation/testing"',
      'import { readFileSync } from "node:fs"',
      'import { y } from "./local.js"',
      'import type { Tool } from "@toolplane/foundation"',
    ].join("\n")
    expect(importedPackages(code)).toEqual(["@toolplane/foundation", "zod"])
  })

  it("compares output line by line, with ... matching any text", () => {
    expect(outputMatches("30 [ 'sum 3' ]\n21 1\n", "30 [ 'sum 3' ]\n21 1")).toBe(true)
    expect(outputMatches("30 [ 'sum 3' ]\n22 1\n", "30 [ 'sum 3' ]\n21 1")).toBe(false)
    expect(outputMatches("run 0f3c-77 suspended\n", "run ... suspended")).toBe(true)
    expect(outputMatches("a\nb\nc\n", "a\n...\nc")).toBe(true)
    expect(outputMatches("a (b) [c]\n", "a (b) [c]")).toBe(true)
  })
})
