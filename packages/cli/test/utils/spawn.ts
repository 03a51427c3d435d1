/**
/**
 * The shipped `precis` executable as a real process: `bin/precis.js` runs the
 * compiled `dist/` (the global setup builds it), with an environment free of
 * the machine's PRECIS_* and OPENAI_* settings, as another user when asked.
 * {@link start} reads its output as it comes (waited on by what it prints,
 * never by a duration) and sends it signals; {@link precis} runs it to its end.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as path from "node:path"
import { repoRoot } from "./run.js"

/** The shipped executable. */
export const bin = path.join(repoRoot, "packages", "cli", "bin", "precis.js")

/** What a spawned process did. */
export interface Spawned {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** How to spawn: where, with which settings, as which user (`uid`/`gid`: only when the tests run as root). */
export interface SpawnOptions {
  readonly cwd: string
  readonly env?: Record<string, string>
  readonly uid?: number
  readonly gid?: number
  readonly timeout?: number
}

/** The tests' environment without any PRECIS_* or OPENAI_* setting of the machine, and with `extra`. */
export const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("PRECIS_") && !key.startsWith("OPENAI_") && key !== "NO_COLOR") env[key] = value
  }
  return { ...env, ...extra }
}

/** A running `precis`. */
export interface Running {
  readonly child: ChildProcess
  /** Everything printed so far. */
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the first match of `pattern` in `stream`, once printed (rejects if the process exits first). */
  readonly waitFor: (stream: "stdout" | "stderr", pattern: RegExp) => Promise<RegExpMatchArray>
  /** The exit code (`null` when a signal killed it). */
  readonly exited: Promise<number | null>
}

/** Spawns `precis ARGS` in `cwd`. */
export const start = (args: ReadonlyArray<string>, options: { readonly cwd: string; readonly env?: Record<string, string> }): Running => {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd,
    env: cleanEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"]
  })
  const text = { stdout: "", stderr: "" }
  const waiting: Array<() => void> = []
  const changed = () => {
    for (const check of waiting.splice(0)) check()
  }
  child.stdout!.on("data", (data: Buffer) => {
    text.stdout += data.toString()
    changed()
  })
  child.stderr!.on("data", (data: Buffer) => {
    text.stderr += data.toString()
    changed()
  })
  let done = false
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      done = true
      changed()
      resolve(code)
    })
  )
  const waitFor = (stream: "stdout" | "stderr", pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const found = text[stream].match(pattern)
        if (found !== null) return resolve(found)
        if (done) return reject(new Error(`precis exited before printing ${pattern}; stderr: ${text.stderr}`))
        waiting.push(check)
      }
      check()
    })
  return { child, stdout: () => text.stdout, stderr: () => text.stderr, waitFor, exited }
}

/** Runs `precis args` to its end. */
export const precis = (args: ReadonlyArray<string>, options: SpawnOptions): Promise<Spawned> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      {
        cwd: options.cwd,
        env: cleanEnv(options.env),
        timeout: options.timeout ?? 90_000,
        ...(options.uid === undefined ? {} : { uid: options.uid }),
        ...(options.gid === undefined ? {} : { gid: options.gid })
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
        resolve({ code, stdout, stderr })
      }
    )
  })

/** One JSON object of `--json` output (`watch`'s events): its time and name, and the rest. */
export interface JsonEvent {
  readonly at: string
  readonly event: string
  readonly [key: string]: unknown
}

/** The JSON objects printed so far, one per line. */
export const jsonEvents = (running: Running): Array<JsonEvent> =>
  running.stdout().split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line) as JsonEvent)
