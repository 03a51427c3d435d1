/**
 * Deterministic synthetic coding-agent sessions of any size: episodes of a
 * user request, a command, its (long) tool output with paths, stack traces,
 * error names and numbers, the agent's analysis, an edit and a re-run.
 *
 * @since 0.1.0
 */
import { ConversationTurn, TokenEstimator, Transcript } from "@precis/core"

/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same
 * sequence, in `[0, 1)`.
 *
 * @since 0.1.0
 */
export const random = (seed: number): () => number => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = (
  "the a to of and in that it for is on with this as we be at by not or from but should can will when then " +
  "first next now still because so if which only also before after again instead already missing value function " +
  "test case result error fix change update check call return type field config module handler request response " +
  "cache queue worker session user token timeout retry limit option default path file line build run step output " +
  "input state store record parse load save read write close open start stop flag version release branch commit"
).split(" ")
const DIRS = ["src", "src/auth", "src/config", "src/store", "src/http", "lib", "test", "packages/core/src", "scripts"]
const NAMES = ["session", "loader", "client", "router", "cache", "schema", "worker", "index", "retry", "parser"]
const EXTS = [".ts", ".ts", ".ts", ".py", ".json", ".js"]
const IDENTS = [
  "parseConfig", "createSession", "loadUser", "retryPolicy", "handleRequest", "flushQueue", "decodeToken",
  "buildIndex", "openStore", "resolvePath", "maxRetries", "SessionStore", "HttpClient", "RateLimiter"
]
const ERRORS = ["TypeError", "RangeError", "SyntaxError", "ValidationError", "TimeoutError", "AssertionError"]
const CODES = ["ENOENT", "ECONNREFUSED", "EADDRINUSE", "TS2345", "TS2322", "E999", "ERR_MODULE_NOT_FOUND"]
const COMMANDS = [
  "pnpm vitest run", "npm test --", "pnpm tsc -b", "git diff --stat", "python -m pytest -x", "node scripts/check.js",
  "grep -rn", "cat"
]

const pick = <A>(rng: () => number, xs: ReadonlyArray<A>): A => xs[Math.floor(rng() * xs.length)]!
const int = (rng: () => number, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1))

const sentence = (rng: () => number, extra: ReadonlyArray<string> = []): string => {
  const n = int(rng, 6, 16)
  const words: Array<string> = []
  for (let i = 0; i < n; i++) words.push(i > 0 && extra.length > 0 && rng() < 0.12 ? pick(rng, extra) : pick(rng, WORDS))
  const s = words.join(" ")
  return s.charAt(0).toUpperCase() + s.slice(1) + "."
}

/**
 * Options of the generator.
 *
 * @since 0.1.0
 */
export interface Options {
  readonly seed?: number | undefined
  readonly sessionId?: string | undefined
  /** ISO-8601 time of the first turn. */
  readonly start?: string | undefined
  /** Ids are `${idPrefix}${n}`. Default `t`. */
  readonly idPrefix?: string | undefined
}

// Builds the turns of a generator: ids `${idPrefix}${n}`, each 2-90 s after the one before.
const turnMaker = (options: Options, rng: () => number) => {
  let time = Date.parse(options.start ?? "2025-03-01T09:00:00Z")
  let n = 0
  const prefix = options.idPrefix ?? "t"
  return (role: string, content: string, metadata?: Record<string, unknown>) => {
    time += int(rng, 2, 90) * 1000
    return ConversationTurn.make({
      role,
      content,
      id: `${prefix}${n++}`,
      timestamp: new Date(time).toISOString(),
      ...(metadata === undefined ? {} : { metadata }),
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId })
    })
  }
}

/**
 * An endless, deterministic stream of turns (roles `user`, `assistant`, `tool`).
 *
 * @since 0.1.0
 */
export function* turns(options: Options = {}): Generator<ConversationTurn.ConversationTurn> {
  const rng = random(options.seed ?? 1)
  const make = turnMaker(options, rng)
  for (;;) {
    const file = `${pick(rng, DIRS)}/${pick(rng, NAMES)}${pick(rng, EXTS)}`
    const testFile = file.replace(/\.\w+$/, ".test.ts")
    const ident = pick(rng, IDENTS)
    const error = pick(rng, ERRORS)
    const code = pick(rng, CODES)
    const command = `${pick(rng, COMMANDS)} ${testFile}`
    const line = int(rng, 10, 900)
    const facts = [`\`${ident}\``, file, String(line), error]
    yield make(
      "user",
      `${sentence(rng, facts)} The \`${ident}\` call in ${file} fails with ${error} (${code}); ` +
        `please fix it and keep the limit at ${int(rng, 2, 500)}. ${sentence(rng)}`
    )
    yield make("assistant", `${sentence(rng, facts)} Running \`${command}\` to reproduce.`)
    const out: Array<string> = [`$ ${command}`]
    const noise = int(rng, 8, 70)
    for (let i = 0; i < noise; i++) {
      const r = rng()
      if (r < 0.3) out.push(`  PASS ${pick(rng, DIRS)}/${pick(rng, NAMES)}.test.ts (${int(rng, 1, 80)} tests) ${int(rng, 3, 4000)}ms`)
      else if (r < 0.55) out.push(`    at ${pick(rng, IDENTS)} (${pick(rng, DIRS)}/${pick(rng, NAMES)}.ts:${int(rng, 1, 999)}:${int(rng, 1, 80)})`)
      else if (r < 0.8) out.push(`[${pick(rng, ["debug", "info", "info", "warn"])}] ${sentence(rng)} id=${int(rng, 1000, 99999)}`)
      else out.push(`  ${sentence(rng)}`)
    }
    out.splice(int(rng, 1, out.length), 0, `  FAIL ${testFile}`, `${error}: ${sentence(rng)} (${code})`, `    at ${ident} (${file}:${line}:${int(rng, 1, 60)})`)
    out.push(`Tests: ${int(rng, 1, 9)} failed, ${int(rng, 10, 400)} passed`)
    yield make("tool", out.join("\n"))
    yield make(
      "assistant",
      `${sentence(rng, facts)} ${sentence(rng, facts)} The cause is in \`${ident}\` at ${file}:${line}: ` +
        `${sentence(rng)} Decision: ${sentence(rng, facts)}`
    )
    yield make("tool", `File ${file} edited: ${int(rng, 1, 40)} lines changed around line ${line}.`)
    yield make("assistant", `Re-ran \`${command}\`: ${int(rng, 10, 400)} passed, 0 failed. ${sentence(rng)}`)
  }
}

/**
 * Turns from {@link turns} until their formatted transcript reaches
 * `tokens` by the default estimator.
 *
 * @since 0.1.0
 */
export const session = (tokens: number, options: Options = {}): ReadonlyArray<ConversationTurn.ConversationTurn> =>
  takeTokens(turns(options), tokens)

// Turns from a stream until their formatted transcript reaches `tokens` by the default estimator.
const takeTokens = (
  stream: Iterable<ConversationTurn.ConversationTurn>,
  tokens: number
): ReadonlyArray<ConversationTurn.ConversationTurn> => {
  const out: Array<ConversationTurn.ConversationTurn> = []
  let codePoints = 0
  for (const turn of stream) {
    if (codePoints >= tokens * 4) break
    out.push(turn)
    // +1 for the newline that joins formatted turns.
    codePoints += TokenEstimator.codePointLength(Transcript.formatTurn(turn)) + 1
  }
  return out
}

/**
 * An endless, deterministic stream shaped like real coding-agent transcripts
 * (mostly tool output): a user request, then several tool calls (an assistant
 * turn with `metadata.toolCalls`) each answered by a `tool` result of 5k-30k
 * tokens (file reads, test logs, searches) with its `toolCallId`, and short
 * assistant notes.
 *
 * @since 0.1.0
 */
export function* codingTurns(options: Options = {}): Generator<ConversationTurn.ConversationTurn> {
  const rng = random(options.seed ?? 1)
  const make = turnMaker(options, rng)
  let call = 0
  for (;;) {
    const file = `${pick(rng, DIRS)}/${pick(rng, NAMES)}${pick(rng, EXTS)}`
    const ident = pick(rng, IDENTS)
    yield make("user", `${sentence(rng, [file, ident])} Please fix \`${ident}\` in ${file}.`)
    const steps = int(rng, 2, 4)
    for (let s = 0; s < steps; s++) {
      const id = `call_${call++}`
      const kind = pick(rng, ["read", "test", "grep"] as const)
      const command = kind === "read" ? `cat ${file}` : kind === "test" ? `${pick(rng, COMMANDS.slice(0, 5))} ${file}` : `grep -rn ${ident} .`
      yield make("assistant", `${sentence(rng, [file])}`, {
        toolCalls: [{ id, name: kind === "read" ? "read_file" : "bash", arguments: JSON.stringify(kind === "read" ? { path: file } : { command }) }]
      })
      const target = int(rng, 5_000, 30_000) * 4
      const out: Array<string> = kind === "test" ? [`$ ${command}`] : []
      let chars = 0
      for (let i = 1; chars < target; i++) {
        const line = kind === "read"
          ? `${String(i).padStart(5)}  ${sentence(rng, [ident])}`
          : kind === "test"
          ? `  PASS ${pick(rng, DIRS)}/${pick(rng, NAMES)}.test.ts (${int(rng, 1, 80)} tests) ${int(rng, 3, 4000)}ms`
          : `${pick(rng, DIRS)}/${pick(rng, NAMES)}.ts:${int(rng, 1, 999)}: ${sentence(rng, [ident])}`
        out.push(line)
        chars += line.length + 1
      }
      if (kind === "test") out.push(`${pick(rng, ERRORS)}: ${sentence(rng)}`, `exit code ${int(rng, 0, 1)}`)
      yield make("tool", out.join("\n"), { toolCallId: id, toolName: kind === "read" ? "read_file" : "bash" })
    }
    yield make("assistant", `${sentence(rng, [file, ident])} Decision: ${sentence(rng, [ident])}`)
  }
}

/**
 * Turns from {@link codingTurns} until their formatted transcript reaches `tokens`.
 *
 * @since 0.1.0
 */
export const codingSession = (tokens: number, options: Options = {}): ReadonlyArray<ConversationTurn.ConversationTurn> =>
  takeTokens(codingTurns(options), tokens)
