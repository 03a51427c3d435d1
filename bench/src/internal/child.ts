/**
 * Runs one measurement in a child process (the same entry point with
 * `--child NAME ARGS`), so that its peak memory (`maxRSS`) is its own.
 */
import { spawn } from "node:child_process"

/** Runs measurement `name` with `args` in a child process; resolves with its result and its peak RSS. */
export const run = <A>(name: string, args: unknown): Promise<A & { readonly maxRssMB: number }> =>
  new Promise((resolve, reject) => {
    const entry = process.argv[1]!
    const child = spawn(process.execPath, [...process.execArgv, entry, "--child", name, JSON.stringify(args)], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
    })
    child.on("error", reject)
    child.on("close", (code) => {
      const last = out.trim().split("\n").at(-1) ?? ""
      if (code !== 0) return reject(new Error(`child ${name} exited with ${code}`))
      try {
        resolve(JSON.parse(last))
      } catch {
        reject(new Error(`child ${name} printed no result: ${out.slice(-500)}`))
      }
    })
  })

/** What a child prints as its last line: its result and its own peak memory. */
export const reply = (result: object): void => {
  const maxRssMB = process.resourceUsage().maxRSS / 1024
  process.stdout.write(`${JSON.stringify({ ...result, maxRssMB })}\n`)
}

/** The peak memory of a child that loads the modules of measurement `of` and does nothing. */
export const idleRss = async (of: string): Promise<number> => (await run<object>("idle", { of })).maxRssMB
