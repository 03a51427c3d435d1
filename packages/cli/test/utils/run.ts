/**
 * Runs the CLI in-process on an argv, capturing stdout and stderr, with a
 * configuration read only from `env` (never from the real environment).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Terminal from "@effect/platform/Terminal"
import { assert, expect } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import type * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Cli from "../../src/Cli.js"
import { type Stderr, StderrRef } from "../../src/internal/progress.js"
import { StdinRef } from "../../src/internal/stdin.js"

export interface Result {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const text = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? a : String(a))).join(" ")

/** A console writing `log`/`info` into `out` and `error`/`warn`/`debug` into `err`. */
const capturing = (base: Console.Console, out: Array<string>, err: Array<string>): Console.Console => ({
  ...base,
  log: (...args) => Effect.sync(() => void out.push(text(args))),
  info: (...args) => Effect.sync(() => void out.push(text(args))),
  error: (...args) => Effect.sync(() => void err.push(text(args))),
  warn: (...args) => Effect.sync(() => void err.push(text(args))),
  debug: (...args) => Effect.sync(() => void err.push(text(args))),
  unsafe: {
    ...base.unsafe,
    log: (...args) => void out.push(text(args)),
    info: (...args) => void out.push(text(args)),
    error: (...args) => void err.push(text(args)),
    warn: (...args) => void err.push(text(args)),
    debug: (...args) => void err.push(text(args))
  }
})

export interface RunOptions {
  /** The configuration (`PRECIS_*` variables). */
  readonly env?: Record<string, string>
  /** Replaces the process's stderr for the progress bar. */
  readonly stderr?: Stderr
  /** Receives stdout's lines as they are printed (for a command that runs until interrupted). */
  readonly stdout?: Array<string>
  /** The terminal's width (`Terminal.columns`); 0, as when stdout is not a terminal, by default. */
  readonly columns?: number
  /** What the command reads on stdin (`precis hook`). */
  readonly stdin?: string
}

export const runCli = (args: ReadonlyArray<string>, options: RunOptions = {}): Effect.Effect<Result> =>
  Effect.consoleWith((base) => {
    const out: Array<string> = options.stdout ?? []
    const err: Array<string> = []
    const program = Cli.main(["node", "precis", ...args]).pipe(
      Effect.updateService(Terminal.Terminal, (terminal) => ({ ...terminal, columns: Effect.succeed(options.columns ?? 0) })),
      Effect.provide(NodeContext.layer),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(options.env ?? {})))),
      Effect.withConsole(capturing(base, out, err))
    )
    const withStdin = options.stdin === undefined
      ? program
      : Effect.provideService(program, StdinRef, { readAll: Effect.succeed(options.stdin) })
    return Effect.map(
      options.stderr === undefined ? withStdin : Effect.provideService(withStdin, StderrRef, options.stderr),
      (code): Result => ({ code, stdout: out.join("\n"), stderr: err.join("\n") })
    )
  })

/** `text` with the characters special in a regular expression escaped. */
export const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Runs the CLI as a promise (for `beforeAll`). */
export const run = (args: ReadonlyArray<string>, options?: RunOptions): Promise<Result> =>
  Effect.runPromise(runCli(args, options))

/** A fresh temporary directory. */
export const tempDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "precis-cli-"))

/** The repository root (packages/cli/test/utils -> ../../../..). */
export const repoRoot = path.resolve(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "..", "..")

/**
 * A precis JSONL session of `count` turns, one minute apart, each mentioning
 * a file path, a command and an error, so the summaries have something to keep.
 */
export const sessionJsonl = (count: number, prefix = "t"): string =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      id: `${prefix}${i}`,
      role: i % 2 === 0 ? "user" : "assistant",
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
      content: `Step ${i}: edited src/module${i}.ts and ran \`pnpm test --filter pkg${i}\`; ` +
        `it failed with TypeError: cannot read property 'x${i}' of undefined, fixed by guarding the call. ` +
        "We agreed to keep the retry budget at 3 attempts and to log the elapsed time of every call."
    })).join("\n") + "\n"

/**
 * A Claude Code session of two lines (a request, an answer) written in the
 * folder `cwd`, from `minute` past midnight of 2025-01-01.
 */
export const claudeCodeJsonl = (session: string, cwd: string, minute: number): string =>
  [0, 1].map((i) =>
    JSON.stringify({
      type: i === 0 ? "user" : "assistant",
      uuid: `${session}-${i}`,
      sessionId: session,
      cwd,
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, minute + i)).toISOString(),
      message: { role: i === 0 ? "user" : "assistant", content: `${session} says ${i}` }
    })
  ).join("\n") + "\n"

/** Writes `content` to `dir/name` and returns the path. */
export const write = (dir: string, name: string, content: string): string => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, content)
  return file
}

/** A failure reports one line `precis: ...` on stderr (no stack trace) and exit code 1. */
export const assertOneLineFailure = (result: Result, expected: string | RegExp) => {
  assert.strictEqual(result.code, 1)
  const lines = result.stderr.split("\n").filter((l) => l.trim().length > 0)
  assert.strictEqual(lines.length, 1, `stderr: ${result.stderr}`)
  expect(lines[0]).toMatch(/^precis: /)
  expect(lines[0]).toMatch(expected)
  expect(result.stderr).not.toMatch(/\n\s+at /)
}
