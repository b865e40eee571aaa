import { describe, expect, it } from "vitest"
import { parseInvocation, USAGE } from "../src/cli.js"
import { UsageError } from "../src/command.js"
import { COMMANDS } from "../src/commands/registry.js"

describe("command registry", () => {
  it("lists ten uniquely named commands, each described in the help", () => {
    const names = COMMANDS.map((c) => c.name)
    expect(names).toEqual([
      "serve",
      "list",
      "search",
      "call",
      "export",
      "check",
      "lock",
      "runs",
      "audit",
      "auth",
    ])
    for (const command of COMMANDS) expect(USAGE).toMatch(new RegExp(`^  ${command.name}\\b`, "m"))
  })

  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    "%s accepts exactly the flags it declares",
    (name, command) => {
      for (const [flag, type] of Object.entries(command.flags)) {
        const argv = type === "boolean" ? [name, `--${flag}`] : [name, `--${flag}`, "x"]
        if (command.synopsis !== undefined) argv.push("arg")
        expect(parseInvocation(argv).values).toHaveProperty(flag)
      }
      const foreign = COMMANDS.flatMap((c) => Object.keys(c.flags)).filter((f) => !(f in command.flags))
      for (const flag of new Set(foreign)) {
        const other = COMMANDS.find((c) => flag in c.flags)!
        const argv = other.flags[flag] === "boolean" ? [name, `--${flag}`] : [name, `--${flag}`, "x"]
        expect(() => parseInvocation(argv)).toThrow(UsageError)
        expect(() => parseInvocation(argv)).toThrow(`--${flag} does not apply to ${name}`)
      }
    },
  )

  it("rejects more positional arguments than a command declares", () => {
    expect(() => parseInvocation(["list", "extra"])).toThrow('unexpected argument "extra" for list')
    expect(parseInvocation(["search", "a", "b", "c"]).positionals).toEqual(["a", "b", "c"])
  })
})
