/**
 * `requestState` of multi round-trip requests: a state the server signed is accepted only unchanged, for
 * the caller, tool and arguments it was issued for, before its expiry and once (properties over the
 * signer; packages/cli/test/requestStateHttp.test.ts checks the same over HTTP, where nothing may run).
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { RequestStates } from "../src/server/modern/requestState.js"

const binding = { caller: "alice", method: "tools/call ops.launch", arguments: { target: "moon", n: 1 } }

describe("RequestStates (the signer)", () => {
  it("accepts its own state unchanged, once", () => {
    const states = new RequestStates("secret-0123456789abcdef")
    const state = states.sign(binding, ["approval"], {})
    const verdict = states.verify(state, binding)
    expect(verdict.ok).toBe(true)
    if (!verdict.ok) return
    expect(states.consume(verdict.claims)).toBe(true)
    expect(states.verify(state, binding)).toEqual({ ok: false, reason: "replayed" })
    expect(states.consume(verdict.claims)).toBe(false)
  })

  it("refuses a rejected state (before and after any use), until it expires", () => {
    let now = 1_000_000
    const states = new RequestStates("secret-0123456789abcdef", { now: () => now, ttlMs: 1000 })
    const state = states.sign(binding, ["approval"], {})
    const verdict = states.verify(state, binding)
    expect(verdict.ok).toBe(true)
    if (!verdict.ok) return
    states.reject(verdict.claims.n, verdict.claims.e)
    expect(states.verify(state, binding)).toEqual({ ok: false, reason: "rejected" })
    const other = states.sign(binding, ["approval"], {})
    expect(states.verify(other, binding).ok).toBe(true)
    now += 1001
    expect(states.verify(state, binding)).toEqual({ ok: false, reason: "expired" })
  })

  it("refuses a state with any character changed", () => {
    const states = new RequestStates("secret-0123456789abcdef")
    const state = states.sign(binding, ["approval"], { earlier: { action: "accept" } })
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ "
    fc.assert(
      fc.property(fc.nat(state.length - 1), fc.constantFrom(...alphabet), (index, char) => {
        fc.pre(state[index] !== char)
        const changed = state.slice(0, index) + char + state.slice(index + 1)
        expect(states.verify(changed, binding).ok).toBe(false)
      }),
      { numRuns: 500 },
    )
  })

  it("refuses another caller, method or arguments, and another server's key", () => {
    const states = new RequestStates("secret-0123456789abcdef")
    const other = new RequestStates("another-secret-0123456789")
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (caller, method, args) => {
          const state = states.sign(binding, ["approval"], {})
          if (caller !== binding.caller)
            expect(states.verify(state, { ...binding, caller })).toEqual({ ok: false, reason: "caller" })
          if (method !== binding.method)
            expect(states.verify(state, { ...binding, method })).toEqual({ ok: false, reason: "method" })
          if (JSON.stringify(args) !== JSON.stringify(binding.arguments))
            expect(states.verify(state, { ...binding, arguments: args }).ok).toBe(false)
          expect(other.verify(state, binding)).toEqual({ ok: false, reason: "signature" })
        },
      ),
      { numRuns: 200 },
    )
  })

  it("binds canonical arguments (key order does not matter) and refuses after expiry", () => {
    let now = 1_000_000
    const states = new RequestStates("secret-0123456789abcdef", { ttlMs: 1000, now: () => now })
    const state = states.sign(binding, ["approval"], {})
    expect(states.verify(state, { ...binding, arguments: { n: 1, target: "moon" } }).ok).toBe(true)
    now += 999
    expect(states.verify(state, binding).ok).toBe(true)
    now += 1
    expect(states.verify(state, binding)).toEqual({ ok: false, reason: "expired" })
  })
})
