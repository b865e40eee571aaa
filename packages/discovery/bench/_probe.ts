import { loadMetaTool } from "./datasets.js"
import { buildSearcher } from "./evaluate.js"
const d = loadMetaTool()
const o = JSON.parse(process.argv[2] ?? "{}")
const s = buildSearcher(d.corpus, new Map(), o)
let shown = 0
for (let i = 0; i < d.queries.length && shown < 40; i += 97) {
  const q = d.queries[i]!
  const gold = d.qrels.get(q.id)!
  const hits = s.search(q.text, { limit: 3 }).hits.map((h) => h.id)
  if (!hits.includes(gold[0]!)) {
    shown++
    console.log(`${q.text}\n   gold ${gold.join(",")}: ${d.corpus.tools.get(gold[0]!)!.description?.slice(0, 100)}\n   got ${hits.join(", ")}`)
  }
}
