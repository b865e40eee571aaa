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
  it("segments scripts written without spaces into words (Intl.Segmenter)", () => {
    expect(splitWords("查询城市的天气预报")).toEqual(["查询", "城市", "的", "天气", "预报"])
    expect(splitWords("東京の天気を調べる")).toEqual(["東京", "の", "天気", "を", "調べる"])
    expect(splitWords("ファイルを削除する")).toEqual(["ファイル", "を", "削除", "する"])
    expect(splitWords("ค้นหาสภาพอากาศ")).toEqual(["ค้นหา", "สภาพ", "อากาศ"])
    expect(splitWords("api天气")).toEqual(["api", "天气"])
  })
  it("keeps single CJK characters that are words, and bridges single characters with bigrams", () => {
    expect(splitWords("東")).toEqual(["東"])
    expect(tokenize("東", { minTokenLength: 2 })).toEqual(["東"])
    // the segmenter splits 读取 into two one-character words: their bigram is kept too
    expect(splitWords("读取文件")).toEqual(expect.arrayContaining(["读", "取", "读取", "文件"]))
  })
  it("adds character bigrams to Korean words (particles attach to them)", () => {
    expect(splitWords("날씨를 알려줘")).toEqual(expect.arrayContaining(["날씨를", "날씨", "알려줘"]))
  })
  it("folds width and case (NFKC) in every script", () => {
    expect(splitWords("ＡＰＩ ｶﾀｶﾅ")).toEqual(["api", "カタカナ"])
  })
  it("drops Chinese and Japanese function words with the default stop words", () => {
    expect(tokenize("东京的天气")).toEqual(["东京", "天气"])
    expect(tokenize("東京の天気を調べる")).toEqual(["東京", "天気", "調べる"])
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
