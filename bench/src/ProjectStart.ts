/**
 * Section `start`: what a new Claude Code session in a project waits for.
 * A store of 200 sessions held in one folder (and 50 in another), each
 * stored as `SessionEnd` leaves it (its turns and its session state), then
 * the shipped bin's `precis hook claude-code` run as Claude Code runs it on
 * `SessionStart` (`startup`, a new session in that folder), against the same
 * bin's `precis --help` (what starting the command costs), interleaved; and
 * the digest alone, in process (`ProjectDigest.make`).
 *
 * @since 0.1.0
 */
import { ActiveContext } from "@precis/compaction"
import { ProjectDigest } from "@precis/context"
import { ConversationTurn, TokenEstimator } from "@precis/core"
import { Store } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { figure, type Figure } from "./Results.js"
import { binPath } from "./Startup.js"
import * as Stats from "./Stats.js"
import * as Synthetic from "./Synthetic.js"

/**
 * @since 0.1.0
 */
export interface Options {
  readonly quick: boolean
}

/** The sessions of the project, and of the folder beside it. */
const SESSIONS = 200
const ELSEWHERE = 50
/** The tokens of each session's transcript. */
const SESSION_TOKENS = 8_000

const PROJECT = "/home/dev/app"
const OTHER = "/home/dev/other"

// Session `i`'s turns, held in `cwd` on day `i` of 2025, as the Claude Code importer writes them.
const sessionTurns = (i: number, cwd: string) =>
  Synthetic.session(SESSION_TOKENS, { seed: i + 1, idPrefix: `s${i}-`, start: new Date(Date.UTC(2025, 0, 1 + i, 9)).toISOString() })
    .map((turn) => ConversationTurn.make({ ...turn, metadata: { ...turn.metadata, cwd, sourceFormat: "claude-code" } }))

/**
 * Builds the store at `file`: every session appended and its state stored,
 * as `precis hook claude-code` leaves a session at its `SessionEnd`.
 *
 * @since 0.1.0
 */
export const buildStore = (file: string) =>
  Effect.gen(function*() {
    const store = yield* Store.all
    const all = [
      ...Array.from({ length: SESSIONS }, (_, i) => ({ id: `project-${i}`, turns: sessionTurns(i, PROJECT) })),
      ...Array.from({ length: ELSEWHERE }, (_, i) => ({ id: `other-${i}`, turns: sessionTurns(SESSIONS + i, OTHER) }))
    ]
    for (const session of all) {
      yield* store.appendTurns(session.id, session.turns)
      yield* ActiveContext.refreshState(session.id)
    }
  }).pipe(Effect.provide(SqliteStore.layer({ filename: file })), Effect.runPromise)

/** Wall time (ms) of one run of `node ARGS` with `stdin` and `env`, which must exit 0, and its stdout. */
const timeRun = (args: ReadonlyArray<string>, stdin = "", env: NodeJS.ProcessEnv = process.env) => {
  const t0 = performance.now()
  const result = spawnSync(process.execPath, args, { input: stdin, env, encoding: "utf8" })
  const ms = performance.now() - t0
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited with ${result.status}: ${result.stderr}`)
  return { ms, stdout: result.stdout }
}

/**
 * The section's figures: the `SessionStart` hook's wall time on the store of
 * 200 sessions (median, against an empty Node process), the digest's time in
 * process, and its size.
 *
 * @since 0.1.0
 */
export const run = async (options: Options): Promise<ReadonlyArray<Figure>> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-bench-start-"))
  try {
    const db = path.join(dir, "claude-code.db")
    await buildStore(db)
    const bin = binPath()
    const env = { ...process.env, HOME: dir, PRECIS_CLAUDE_CODE_DB: db }
    const payload = JSON.stringify({ hook_event_name: "SessionStart", session_id: "new", cwd: PROJECT, source: "startup" })
    const rounds = options.quick ? 5 : 15
    const hook = () => timeRun([bin, "hook", "claude-code"], payload, env)
    const first = hook()
    timeRun([bin, "--help"])
    const hookMs: Array<number> = []
    const helpMs: Array<number> = []
    for (let i = 0; i < rounds; i++) {
      hookMs.push(hook().ms)
      helpMs.push(timeRun([bin, "--help"]).ms)
    }
    const text = (JSON.parse(first.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext
    const digestMs: Array<number> = []
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now()
      await Effect.runPromise(ProjectDigest.make(PROJECT).pipe(Effect.provide(SqliteStore.layer({ filename: db, readonly: true }))))
      digestMs.push(performance.now() - t0)
    }
    return [
      figure({
        section: "start",
        name: `SessionStart (startup) hook, ${SESSIONS} sessions in the project: wall time, median`,
        value: Stats.median(hookMs),
        unit: "ms",
        baseline: { name: "precis --help (the command's start)", value: Stats.median(helpMs), unit: "ms" },
        note: `${rounds} interleaved runs of the shipped bin; slowest ${Stats.max(hookMs).toFixed(0)} ms; ` +
          `${SESSIONS + ELSEWHERE} sessions of ${SESSION_TOKENS} tokens in the store`
      }),
      figure({
        section: "start",
        name: "the digest alone, in process (store opened, ProjectDigest.make): median",
        value: Stats.median(digestMs),
        unit: "ms",
        note: `${rounds} runs`
      }),
      figure({
        section: "start",
        name: "the digest's size",
        value: TokenEstimator.approximate.estimate(text),
        unit: "tokens",
        target: { op: "<=", value: ProjectDigest.defaultMaxTokens, on: "value" },
        note: `${text.length} characters (Claude Code's cap: 10,000)`
      })
    ]
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
