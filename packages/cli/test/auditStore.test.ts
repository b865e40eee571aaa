/**
 * The audit log in the durable store (`[audit] sink = "store"`) on a real SQLite file: the records are
 * those of the file sink (same JSON), the table refuses updates and deletes, `toolplane audit` filters it
 * like the file, and every call answered before a SIGKILL of the gateway has its row.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, it } from "vitest"
import { killTest, roundTrip } from "./helpers/auditStoreCases.js"
import { opsGatewaySuite } from "./helpers/opsGateway.js"

describe("audit log in a SQLite store", () => {
  const suite = opsGatewaySuite("toolplane-audit-sqlite-")

  it("keeps the file's records, filters them, and refuses updates and deletes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolplane-audit-store-"))
    try {
      const file = join(dir, "runs.db")
      const { DatabaseSync } = await import("node:sqlite")
      await roundTrip(file, async (sql) => {
        const db = new DatabaseSync(file)
        try {
          db.exec(sql)
        } finally {
          db.close()
        }
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it(
    "loses no answered call when the gateway is killed",
    killTest(suite, () => join(suite.dir(), "runs.db")),
    60_000,
  )
})
