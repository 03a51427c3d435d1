/**
 * The real executable, spawned: `bin/precis.js` runs the compiled `dist/`
 * (the global setup builds it), with an environment free of the machine's
 * PRECIS_* and OPENAI_* settings, as another user when asked.
 */
import { execFile } from "node:child_process"
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
