/**
 * The shipped `precis` executable as a real process: its output read as it
 * comes, waited on by what it prints (never by a duration), sent signals.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { repoRoot } from "./run.js"

/** The executable the tests spawn (the global setup builds what it runs). */
export const bin = path.join(repoRoot, "packages", "cli", "bin", "precis.js")

/** The environment of a child: none of the machine's PRECIS_* or OPENAI_* settings. */
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
