import { describe, expect, it } from "vitest"
import { toolListViolations } from "../src/index.js"

describe("the function-tool checker", () => {
  it("catches every kind of violation (it can fail)", () => {
    expect(
      toolListViolations([
        { name: "a/b", parameters: { type: "object" } },
        { name: "x", parameters: { anyOf: [], description: null } },
        {
          name: "x",
          parameters: { type: "object", properties: { n: { exclusiveMinimum: true, $ref: "#/$defs/no" } } },
        },
      ]),
    ).toEqual([
      "a/b: name does not match /^[a-zA-Z0-9_-]{1,64}$/",
      'x: root type must be "object"',
      'x: "anyOf" at the top level',
      "x: #/description is null",
      "x: #/properties/n/exclusiveMinimum is a draft-04 boolean",
      "x: #/properties/n/$ref #/$defs/no does not resolve",
      "x: duplicate name",
    ])
  })

  it("accepts a valid list", () => {
    expect(
      toolListViolations([
        {
          name: "weather__current",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
        {
          name: "with-ref",
          parameters: { type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: {} } },
        },
      ]),
    ).toEqual([])
  })
})
