import { describe, expect, it } from "vitest"
import { Analyzer, ENGLISH_STOP_WORDS, splitWords, tokenize } from "../src/index.js"

describe("splitWords", () => {
  it("splits camelCase and PascalCase, keeping acronyms together", () => {
    expect(splitWords("createIssue")).toEqual(["create", "issue"])
    expect(splitWords("getHTTPServerStatus")).toEqual(["get", "http", "server", "status"])
    expect(splitWords("XMLParser")).toEqual(["xml", "parser"])
  })
  it("splits snake_case, kebab-case, dots and slashes", () => {
    expect(splitWords("create_pull_request")).toEqual(["create", "pull", "request"])
    expect(splitWords("list-open-issues")).toEqual(["list", "open", "issues"])
    expect(splitWords("github.repos.list")).toEqual(["github", "repos", "list"])
    expect(splitWords("github/create_issue")).toEqual(["github", "create", "issue"])
    expect(splitWords("/v1/nutrition")).toEqual(["v1", "nutrition"])
  })
  it("handles digits next to letters", () => {
    expect(splitWords("base64Encode")).toEqual(["base64", "encode"])
    expect(splitWords("s3:GetObject")).toEqual(["s3", "get", "object"])
  })
  it("folds case and diacritics, keeps other scripts", () => {
    expect(splitWords("Café Crème")).toEqual(["cafe", "creme"])
    expect(splitWords("Straße")).toEqual(["straße"])
    expect(splitWords("погода Москва")).toEqual(["погода", "москва"])
    expect(splitWords("ＡＢＣ")).toEqual(["abc"]) // full-width (NFKC)
  })
  it("emits character bigrams for scripts written without spaces", () => {
    expect(splitWords("天气预报")).toEqual(["天气", "气预", "预报"])
    expect(splitWords("東")).toEqual(["東"])
    expect(splitWords("api天气")).toEqual(["api", "天气"])
  })
})

describe("Analyzer", () => {
  it("drops English stop words", () => {
    expect(tokenize("the list of all the issues")).toEqual(["list", "issu"])
    expect(ENGLISH_STOP_WORDS.has("the")).toBe(true)
    expect(tokenize("the", { stopWords: false, stem: false })).toEqual(["the"])
  })
  it("stems English words (Porter)", () => {
    expect(tokenize("running runs")).toEqual(["run", "run"])
    expect(tokenize("issues issue")).toEqual(["issu", "issu"])
    expect(tokenize("connections connected", { stem: false })).toEqual(["connections", "connected"])
    expect(tokenize("connections connected")).toEqual(["connect", "connect"])
  })
  it("does not stem non-ASCII words", () => {
    expect(tokenize("погоды")).toEqual(["погоды"])
  })
  it("expands developer abbreviations (aliases) on both sides", () => {
    expect(tokenize("lat lng")).toEqual(tokenize("latitude longitude"))
    expect(tokenize("lat", { aliases: false })).toEqual(["lat"])
  })
  it("honours minTokenLength", () => {
    expect(tokenize("page 1 of x", { minTokenLength: 2 })).toEqual(["page"])
    expect(tokenize("page 1 of x")).toEqual(["page", "1", "x"])
  })
  it("is deterministic and memoises stems", () => {
    const a = new Analyzer()
    expect(a.analyze("Searching GitHub repositories")).toEqual(a.analyze("Searching GitHub repositories"))
  })
})
