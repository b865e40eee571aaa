import { existsSync, mkdtempSync, readFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createRunner } from "@toolplane/exec"
import {
  ApprovalRequired,
  Cancelled,
  ExecutionFailed,
  InvalidArguments,
  makeContext,
  Timeout,
} from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { runSubprocess, subprocessBackend, subprocessTool } from "../src/index.js"

const node = process.execPath
const script = (code: string) => ["-e", code]
/** Running (a zombie waiting to be reaped by init counts as dead). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return true
  }
}
const waitUntil = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20))
  return check()
}

describe("subprocess tools", () => {
  it("passes arguments as literal argv elements (no shell injection)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolplane-"))
    const marker = join(dir, "pwned")
    const echoArgs = subprocessTool({
      id: "proc/args",
      input: z.object({ values: z.array(z.string()) }),
      command: node,
      args: ({ values }) => [
        ...script("process.stdout.write(JSON.stringify({ argv: process.argv.slice(1) }))"),
        ...values,
      ],
      output: "json",
      annotations: { readOnlyHint: true },
    })
    const runner = createRunner({ backends: [subprocessBackend([echoArgs])] })
    const hostile = [
      `; touch ${marker}`,
      `$(touch ${marker})`,
      `\`touch ${marker}\``,
      "a && touch x",
      "'\"",
      "*",
      "| cat",
    ]
    const result = await runner.callTool({ name: "proc/args", arguments: { values: hostile } })
    expect(result.structuredContent).toEqual({ argv: hostile })
    expect(existsSync(marker)).toBe(false)
  })

  it("fails a non-zero exit with ExecutionFailed carrying the tail of stderr", async () => {
    const failing = subprocessTool({
      id: "proc/fail",
      command: node,
      args: () => script("process.stderr.write('x'.repeat(5000) + 'the real reason'); process.exit(3)"),
      annotations: { readOnlyHint: true },
    })
    const runner = createRunner({ backends: [subprocessBackend([failing])] })
    const error = await runner.callTool({ name: "proc/fail" }).catch((e) => e)
    expect(error).toBeInstanceOf(ExecutionFailed)
    expect(error.cause.message).toContain("exited with code 3")
    expect(error.detail).toMatch(/the real reason$/)
    expect(error.detail.length).toBeLessThanOrEqual(2000)
    // the backend survives: a healthy call afterwards works
    const ok = subprocessTool({
      id: "proc/ok",
      command: node,
      args: () => script("console.log('fine')"),
      annotations: { readOnlyHint: true },
    })
    const runner2 = createRunner({ backends: [subprocessBackend([failing, ok])] })
    await runner2.callTool({ name: "proc/fail" }).catch(() => {})
    expect((await runner2.callTool({ name: "proc/ok" })).content).toEqual([{ type: "text", text: "fine\n" }])
  })

  const hangingTree = (id: string, timeoutMs: number) =>
    subprocessTool({
      id,
      input: z.object({ pidFile: z.string() }),
      command: node,
      args: ({ pidFile }) => [
        ...script(
          "const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); require('fs').writeFileSync(process.argv[1], JSON.stringify([process.pid, c.pid])); setInterval(() => {}, 1000)",
        ),
        pidFile,
      ],
      timeoutMs,
      killGraceMs: 200,
      annotations: { readOnlyHint: true },
    })
  const readPids = async (file: string): Promise<number[]> => {
    await waitUntil(() => existsSync(file) && readFileSync(file, "utf8").length > 0)
    return JSON.parse(readFileSync(file, "utf8")) as number[]
  }

  it("kills a hanging command and its children at the timeout", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "toolplane-")), "pids.json")
    const runner = createRunner({ backends: [subprocessBackend([hangingTree("proc/hang", 600)])] })
    const t0 = Date.now()
    const error = await runner.callTool({ name: "proc/hang", arguments: { pidFile } }).catch((e) => e)
    expect(error).toBeInstanceOf(Timeout)
    expect(Date.now() - t0).toBeLessThan(5000)
    const pids = await readPids(pidFile)
    expect(pids).toHaveLength(2)
    expect(await waitUntil(() => pids.every((pid) => !alive(pid)))).toBe(true)
  })

  it("kills the process tree when the caller cancels", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "toolplane-")), "pids.json")
    const runner = createRunner({ backends: [subprocessBackend([hangingTree("proc/cancel", 60_000)])] })
    const controller = new AbortController()
    const call = runner.callTool({
      name: "proc/cancel",
      arguments: { pidFile },
      context: { signal: controller.signal },
    })
    const pids = await readPids(pidFile)
    expect(pids.every(alive)).toBe(true)
    controller.abort()
    await expect(call).rejects.toBeInstanceOf(Cancelled)
    expect(await waitUntil(() => pids.every((pid) => !alive(pid)))).toBe(true)
  })

  it("survives a stdout flood: fails at the cap and kills the process, or truncates", async () => {
    const flood = (onOverflow: "fail" | "truncate") =>
      subprocessTool({
        id: `proc/flood_${onOverflow}`,
        command: node,
        args: () => script("const b = Buffer.alloc(65536, 120); for (;;) require('fs').writeSync(1, b)"),
        maxOutputBytes: 200_000,
        onOverflow,
        killGraceMs: 200,
        annotations: { readOnlyHint: true },
      })
    const runner = createRunner({ backends: [subprocessBackend([flood("fail"), flood("truncate")])] })
    const t0 = Date.now()
    const error = await runner.callTool({ name: "proc/flood_fail" }).catch((e) => e)
    expect(error).toBeInstanceOf(ExecutionFailed)
    expect(error.cause.name).toBe("OutputLimitExceeded")
    const truncated = await runner.callTool({ name: "proc/flood_truncate" })
    expect((truncated.content[0] as { text: string }).text.length).toBe(200_000)
    expect(Date.now() - t0).toBeLessThan(5000)
  })

  it("passes only allow-listed environment variables and runs in cwd", async () => {
    process.env.TOOLPLANE_TEST_SECRET = "do-not-leak"
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolplane-")))
    const env = subprocessTool({
      id: "proc/env",
      command: node,
      args: () => script("console.log(JSON.stringify({ env: process.env, cwd: process.cwd() }))"),
      env: { allow: ["PATH"], set: { MODE: "test" } },
      cwd: dir,
      output: "json",
      annotations: { readOnlyHint: true },
    })
    const runner = createRunner({ backends: [subprocessBackend([env])] })
    const result = await runner.callTool({ name: "proc/env" })
    const out = result.structuredContent as { env: Record<string, string>; cwd: string }
    expect(out.cwd).toBe(dir)
    expect(out.env.MODE).toBe("test")
    expect(out.env.PATH).toBe(process.env.PATH)
    expect(out.env.TOOLPLANE_TEST_SECRET).toBeUndefined()
    delete process.env.TOOLPLANE_TEST_SECRET
  })

  it("validates before spawning, requires approval unless read-only, and reports a missing command", async () => {
    let built = 0
    const tool = subprocessTool({
      id: "proc/typed",
      input: z.object({ n: z.number().int() }),
      command: node,
      args: ({ n }) => {
        built++
        return script(`console.log(${n})`)
      },
    })
    const missing = subprocessTool({
      id: "proc/missing",
      command: "/nonexistent/toolplane-command",
      annotations: { readOnlyHint: true },
    })
    const backend = subprocessBackend([tool, missing])
    expect(backend.metadata().kind).toBe("subprocess")
    await expect(
      backend.execute({ toolId: "proc/typed", arguments: { n: "1; rm -rf /" } }, makeContext()),
    ).rejects.toBeInstanceOf(InvalidArguments)
    expect(built).toBe(0)
    const runner = createRunner({ backends: [backend] })
    await expect(runner.callTool({ name: "proc/typed", arguments: { n: 1 } })).rejects.toBeInstanceOf(
      ApprovalRequired,
    )
    expect(built).toBe(0)
    const error = await runner.callTool({ name: "proc/missing" }).catch((e) => e)
    expect(error).toBeInstanceOf(ExecutionFailed)
    expect(error.cause.message).toContain("ENOENT")
  })

  it("runSubprocess writes stdin and honours success codes", async () => {
    const out = await runSubprocess({
      toolId: "t/stdin",
      command: node,
      argv: script(
        "let s=''; process.stdin.on('data', d => s += d).on('end', () => { process.stdout.write(s.toUpperCase()); process.exit(2) })",
      ),
      stdin: "hello",
      successCodes: [0, 2],
    })
    expect(out).toMatchObject({ stdout: "HELLO", exitCode: 2, truncated: false })
  })
})
