// Offline: feeds the learner the ground-truth sequence with real results; reports per read-only tool whether
// the next call was among the proposals.
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createInterface } from "node:readline"
import { canonicalJson } from "../../src/prefetch/canonical.js"
import { Learner } from "../../src/prefetch/learner.js"

const dir = "/work/wt/prefetch/../shared/bench/bfcl"
const ann = JSON.parse(readFileSync("bench/prefetch/annotations.json", "utf8"))
const ro = new Set(Object.values(ann.readOnly).flat() as string[])
const qs = readFileSync(`${dir}/multi_turn_base.questions.jsonl`, "utf8").trim().split("\n").map((l) => JSON.parse(l))
const as = new Map(readFileSync(`${dir}/multi_turn_base.answers.jsonl`, "utf8").trim().split("\n").map((l) => { const a = JSON.parse(l); return [a.id, a.ground_truth] }))
const child = spawn("python3", ["bench/prefetch/bfcl_server.py", `${dir}/func_source_code`], { stdio: ["pipe", "pipe", "inherit"] })
const waiting = new Map<number, (v: any) => void>()
createInterface({ input: child.stdout! }).on("line", (l) => { const r = JSON.parse(l); waiting.get(r.id)!(r); waiting.delete(r.id) })
let n = 0
const rq = (op: string, b: any): Promise<any> => new Promise((res) => { const id = ++n; waiting.set(id, res); child.stdin!.write(JSON.stringify({ ...b, op, id }) + "\n") })
const minConfidence = Number(process.env.MC ?? 0.45), minSupport = Number(process.env.MS ?? 2), window = Number(process.env.W ?? 3)
const l = new Learner({ window, minConfidence, minSupport })
const oracle = new Map<string, number>(); const lastArgs = new Map<string, any>()
let eligible = 0, hits = 0, issued = 0
const miss = new Map<string, number>(), hit = new Map<string, number>()
for (const q of qs) {
  const r = await rq("load", { session: "s", classes: q.involved_classes, config: q.initial_config, ground_truth: as.get(q.id) })
  let proposals: { toolId: string; arguments: any }[] = []
  const values = new Set<string>()
  let first = true
  for (const turn of r.calls) for (const c of turn) {
    const key = c.name + canonicalJson(c.args)
    const ok = proposals.some((p) => p.toolId + canonicalJson(p.arguments) === key)
    if (!ro.has(c.name)) proposals = []
    if (ro.has(c.name)) { eligible++; if (ok) { hits++; hit.set(c.name, (hit.get(c.name) ?? 0) + 1) } else miss.set(c.name, (miss.get(c.name) ?? 0) + 1) }
    if (ro.has(c.name)) {
      const vals = Object.values(c.args).map((v) => canonicalJson(v))
      const derivable = vals.every((v) => values.has(v) || canonicalJson(lastArgs.get(c.name)?.[Object.keys(c.args)[vals.indexOf(v)]!]) === v)
      if (first) oracle.set("first", (oracle.get("first") ?? 0) + 1)
      else if (derivable) oracle.set("derivable", (oracle.get("derivable") ?? 0) + 1)
      else oracle.set("no", (oracle.get("no") ?? 0) + 1)
    }
    first = false
    lastArgs.set(c.name, c.args)
    for (const v of Object.values(c.args)) values.add(canonicalJson(v))
    const res = (await rq("call", { session: "s", name: c.name, args: c.args })).result
    const walk = (v: any) => { values.add(canonicalJson(v)); if (v && typeof v === "object") for (const x of Object.values(v)) walk(x) }
    walk(res)
    const structured = res !== null && typeof res === "object" && !Array.isArray(res) ? res : { result: res }
    l.observe(c.name, c.args, structured)
    proposals = l.propose().filter((p) => ro.has(p.toolId)).slice(0, 4)
    issued += proposals.length
  }
}
console.log({ eligible, hits, issued, hitRate: hits / eligible, precision: hits / issued })
console.log(oracle)
console.log("miss", [...miss].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}:${v}/${v + (hit.get(k) ?? 0)}`).join(" "))
child.stdin!.end()
