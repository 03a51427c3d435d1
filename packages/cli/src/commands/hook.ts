/**
 * `precis hook claude-code`: Claude Code runs it on its hook events (see
 * `internal/claudeCode.ts` for the contract) with the event's JSON on stdin.
 *
 * - `PreCompact`, `SessionEnd`: imports the transcript's new lines into the
 *   session named by `session_id` (with `@precis/importers`' `Follower`, as
 *   `precis watch` does: each run reads only the bytes the file gained), then
 *   compacts the session until `--deadline`: an interrupted compaction keeps
 *   what it wrote, and the next run goes on. One line on stdout says what was
 *   done and what is left.
 * - `Stop`, `SubagentStop`: imports only.
 * - `SessionStart` with `source` `compact` or `resume`: imports, then prints
 *   the session-state header and a note naming the recall tools as
 *   `additionalContext`, so what Claude's own summary dropped comes back.
 * - `SessionStart` with `source` `startup` or `clear`: the digest of the
 *   project's earlier sessions (`internal/claudeCodeStart.ts`); `SessionEnd`
 *   stores the session's state before it compacts.
 * - Any other event: nothing.
 *
 * A failure is one line `precis: reason` on stderr and exit code 1, which
 * Claude Code shows as a hook error and otherwise ignores: the session goes
 * on (exit code 2, which could block a compaction, is never used).
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { ActiveContext, CompactionManager } from "@precis/compaction"
import { Layout } from "@precis/context"
import { SessionState, TokenEstimator } from "@precis/core"
import { Follower, type Importer, SkipReport } from "@precis/importers"
import { DagStore, TurnStore } from "@precis/store"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as ClaudeCode from "../internal/claudeCode.js"
import * as ClaudeCodeStart from "../internal/claudeCodeStart.js"
import * as AgentHooks from "../internal/agentHooks.js"
import * as OpencodePlugin from "../internal/opencodePlugin.js"
import { CliError, inStore, reported } from "../internal/errors.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import * as SkippedLines from "../internal/skippedLines.js"
import { withVerbosity } from "../internal/output.js"
import { StdinRef } from "../internal/stdin.js"

/** `~/x`, as Claude Code may write a path, made absolute with `HOME`. */
const expandHome = (file: string) =>
  file.startsWith("~/") ? Effect.map(ClaudeCode.home, (home) => `${home}${file.slice(1)}`) : Effect.succeed(file)

/**
 * The transcript of a hook's input: `None` when there is none (no path, or
 * a file never written: nothing to import); refused when it is anything but
 * a regular file (a directory, a FIFO, a device), which is never read.
 */
const transcriptOf = (input: ClaudeCode.HookInput): Effect.Effect<Option.Option<string>, CliError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    if (input.transcript_path === undefined || input.transcript_path.length === 0) return Option.none()
    const file = yield* expandHome(input.transcript_path)
    const fs = yield* FileSystem.FileSystem
    const info = yield* Effect.option(fs.stat(file))
    if (Option.isNone(info)) return Option.none()
    if (info.value.type !== "File") {
      return yield* new CliError({ reason: `${file}: not a regular file (${info.value.type}): not a transcript, never read` })
    }
    return Option.some(file)
  })

/** What an import did: the turns added, the lines skipped, and whether the deadline stopped it. */
interface Imported {
  readonly added: number
  readonly skippedLines: number
  readonly stopped: boolean
}

/**
 * Imports what the transcript gained since the last run into `session`
 * until `until` (epoch milliseconds; what was read by then stays); a bad
 * line is said on stderr (`FILE:LINE: skipped: reason`), kept in the side
 * file of `db` and left out, a NUL shown as ␀ is said too, as `import` does;
 * a transcript that cannot be followed fails.
 */
const importTranscript = (
  input: ClaudeCode.HookInput,
  until: number,
  db: Layers.Db,
  agent: Agent
): Effect.Effect<Imported, CliError, Follower.Follower | FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const file = yield* transcriptOf(input)
    if (Option.isNone(file)) return { added: 0, skippedLines: 0, stopped: false }
    const follower = yield* Follower.Follower
    // At the agent's event it is not writing the transcript: a session kept whole is settled.
    const following = yield* follower.start({ paths: [file.value], session: input.session_id, format: agent.format, settled: true })
    let added = 0
    let skippedLines = 0
    const read = Stream.runForEach(following.poll, (event) => {
      switch (event._tag) {
        case "Imported":
          return Effect.sync(() => void (added += event.added))
        case "LineSkipped":
          skippedLines++
          return Effect.zipRight(
            Console.error(`precis: ${SkipReport.skippedLine(event.file, event)}`),
            SkippedLines.keepLines(event.file, [event], db)
          )
        case "LineMended":
          return Console.error(`precis: ${SkipReport.mendedLine(event.file, event)}`)
        case "FileFailed":
          // A bad file's reason may already name the file.
          return new CliError({ reason: event.reason.startsWith(file.value) ? event.reason : `${file.value}: ${event.reason}` })
        case "Restarted":
          return Effect.void
      }
    })
    const remaining = until - (yield* Clock.currentTimeMillis)
    const done = remaining <= 0 ? Option.none() : yield* Effect.timeoutOption(read, Duration.millis(remaining))
    return { added, skippedLines, stopped: Option.isNone(done) }
  }).pipe(Effect.scoped)

/** The turns of `session` no summary covers yet. */
const uncovered = (session: string) =>
  Effect.flatMap(TurnStore.TurnStore, (store) => Effect.map(store.uncoveredTurns(session), (turns) => turns.length))

/** The most turns one compaction call summarizes: the deadline is checked between calls. */
const BATCH_TURNS = 200

/**
 * Compacts `session` in batches until nothing is left or `until` (epoch
 * milliseconds) passes, a batch in progress then interrupted (what it wrote
 * stays); says what was done, and that the rest waits when time ran out.
 */
const compactUntil = (session: string, imported: Imported, until: number) =>
  Effect.gen(function*() {
    const added = imported.added
    const manager = yield* CompactionManager.CompactionManager
    const before = yield* uncovered(session)
    const started = yield* Clock.currentTimeMillis
    // An import the deadline stopped leaves no time to compact.
    let stopped = imported.stopped
    while (!stopped) {
      const remaining = until - (yield* Clock.currentTimeMillis)
      const batch = remaining <= 0
        ? Option.none()
        : yield* manager.compact(session, { maxTurns: BATCH_TURNS }).pipe(Effect.timeoutOption(Duration.millis(remaining)))
      if (Option.isNone(batch)) {
        stopped = true
        break
      }
      if (batch.value.turnsCompacted === 0 && batch.value.condensedSummariesCreated === 0) break
    }
    const after = yield* uncovered(session)
    const elapsed = Duration.format(Duration.millis((yield* Clock.currentTimeMillis) - started))
    const n = imported.skippedLines
    const skipped = n === 0 ? "" : ` (${n} ${n === 1 ? "line" : "lines"} skipped)`
    return `precis: session ${ClaudeCode.shownSession(session)}: ${added} new turns imported${skipped}; ${before - after} turns summarized in ${elapsed}; ` +
      `${after} not summarized yet` +
      (stopped ? " (stopped at the deadline: the next PreCompact or SessionEnd goes on)" : "")
  })

/** The `SessionStart` output for `session`: its state and the recall note (nothing for an unknown session). */
const restore = (session: string) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const dag = yield* DagStore.DagStore
    const info = (yield* store.sessions).find((s) => s.id === session)
    // The turn the note cites: the session's latest.
    const latest = info === undefined ? undefined : (yield* store.turns(session, { from: info.turnCount - 1 })).at(-1)
    if (latest === undefined) return Option.none<string>()
    const estimator = yield* TokenEstimator.TokenEstimator
    const { state } = yield* ActiveContext.loadState(session)
    const ids = (yield* dag.parentless(session)).map((s) => s.id)
    const note = ClaudeCode.recallNote(session, SessionState.shortId(latest.id), ids)
    return Option.some(ClaudeCode.sessionStartOutput(Layout.header(estimator, state), note))
  })

/** Creates the folder of a SQLite store (the default one lives where nothing may exist yet). */
const ensureFolder = (db: Layers.Db) =>
  db.isUrl ? Effect.void : Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.makeDirectory(path.dirname(db.path), { recursive: true }).pipe(
      Effect.mapError((error) => new CliError({ reason: `${db}: cannot create its folder: ${error.message}` }))
    )
  })

/** How long past the deadline the hook may take to say what it did before it is stopped whatever it does. */
const OVERRUN_MILLIS = 5_000

/** An agent whose hooks run `precis hook NAME`: how its input and transcript are read, where the report goes. */
interface Agent {
  readonly name: string
  /** The Claude Code hook input that stands for the agent's (the same input for Claude Code). */
  readonly input: (input: ClaudeCode.HookInput) => Effect.Effect<ClaudeCode.HookInput, CliError, FileSystem.FileSystem>
  /** The transcript's format. */
  readonly format: Importer.Format
  /** Says what an import and compaction did. */
  readonly report: (line: string) => Effect.Effect<void>
  readonly description: string
}

/** `precis hook NAME` for `agent`. */
const hookCommand = (agent: Agent) => Command.make(
  agent.name,
  { db: Opt.agentDb, provider: Opt.provider, deadline: Opt.deadline, verbose: Opt.verbose },
  (args) =>
    Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      const input = yield* agent.input(yield* ClaudeCode.decodeInput(yield* (yield* StdinRef).readAll))
      const action = ClaudeCode.actionOf(input)
      if (action === "nothing") return
      // The deadline bounds the whole hook, the import included.
      const deadline = Option.getOrElse(args.deadline, () => Opt.defaultDeadline)
      const until = started + Duration.toMillis(deadline)
      const run = Effect.gen(function*() {
        const db = new Layers.Db(yield* ClaudeCode.storeOf(args.db))
        if (action === "digest") return yield* ClaudeCodeStart.run(input, db, args.deadline)
        yield* ensureFolder(db)
        const store = Layer.provideMerge(Follower.layer, Layers.store(db))
        const session = input.session_id
        if (action === "import-and-compact") {
          const manager = CompactionManager.layerConfig().pipe(
            Layer.provideMerge(store),
            Layer.provide(Layers.summarizer(args.provider))
          )
          const line = yield* importTranscript(input, until, db, agent).pipe(
            Effect.tap(() => ClaudeCodeStart.storeState(input)),
            Effect.flatMap((imported) => compactUntil(session, imported, until)),
            Effect.provide(manager),
            inStore(db)
          )
          return yield* agent.report(line)
        }
        const output = yield* importTranscript(input, until, db, agent).pipe(
          Effect.flatMap((imported) => (action === "restore" && !imported.stopped ? restore(session) : Effect.succeedNone)),
          Effect.provide(store),
          inStore(db)
        )
        if (Option.isSome(output)) yield* Console.log(output.value)
      })
      // What the import and the compaction do not bound (a store another process holds locked) stops too:
      // not waited for (a wait for SQLite's write lock is not interruptible; the process exits).
      const left = Math.max(0, until - (yield* Clock.currentTimeMillis)) + OVERRUN_MILLIS
      yield* Effect.timeoutFail(Effect.disconnect(run), {
        duration: Duration.millis(left),
        onTimeout: () => new CliError({ reason: `stopped at the deadline (${Duration.format(deadline)}): the next hook goes on` })
      })
    }).pipe(withVerbosity(args.verbose))
).pipe(Command.withDescription(agent.description), reported)

/** `precis hook claude-code`. */
export const claudeCode = hookCommand({
  name: "claude-code",
  input: Effect.succeed,
  format: "claude-code",
  report: Console.log,
  description:
    "Run by Claude Code's hooks (precis install claude-code sets them up) with the hook's JSON on stdin. " +
      "PreCompact and SessionEnd import the transcript's new lines into the session (named by its session_id) and " +
      "compact it until --deadline (SessionEnd stores the session's state first); Stop imports only; SessionStart " +
      "after a compaction or a resume prints the session-state header and a note on the recall tools as additional " +
      "context for Claude, at a start or after /clear the digest of the earlier sessions held in the same folder. A failure exits 1 " +
      "with one line on stderr, which does not stop the Claude Code session."
})

/** `precis hook gemini`. */
export const gemini = hookCommand({
  name: "gemini",
  input: (input) => Effect.succeed(AgentHooks.fromGemini(input)),
  format: "auto",
  // Gemini CLI reads a hook's stdout as JSON: the report goes to its log (stderr).
  report: Console.error,
  description: "Run by Gemini CLI's hooks (precis install gemini sets them up) with the hook's JSON on stdin. PreCompress and " +
    "SessionEnd import the session's chat (its transcript_path, read whole: only the turns not yet stored are added) into " +
    "the session named after the chat's file, as precis watch names it, and compact it until --deadline; SessionStart on a " +
    "resume prints the session-state header and a note on the recall tools as additionalContext. A failure exits 1 with " +
    "one line on stderr, which Gemini CLI shows as a warning."
})

/** One line for the root page and the README. */
export const summary = "Run as a coding agent's hook: import, compact, give back the session state and the project's digest"

/** `precis hook codex`. */
export const codex = hookCommand({
  name: "codex",
  input: (input) => Effect.succeed(AgentHooks.namedAfterTranscript(input)),
  format: "codex",
  // Codex reads a hook's stdout as JSON: the report goes to stderr.
  report: Console.error,
  description: "Run by Codex CLI's hooks (precis install codex sets them up in ~/.codex/hooks.json) with the hook's JSON on " +
    "stdin. PreCompact imports the rollout's new lines (its transcript_path) into the session named after the rollout's " +
    "file, as precis watch names it, and compacts it until --deadline; Stop imports only; SessionStart after a compaction " +
    "or a resume prints the session-state header and a note on the recall tools as additionalContext, at a start or " +
    "after /clear the digest of the project's earlier sessions. A failure exits 1 with one line on stderr."
})

/** `precis hook opencode`. */
export const opencode = hookCommand({
  name: "opencode",
  input: OpencodePlugin.asClaudeCodeInput,
  format: "opencode-storage",
  report: Console.log,
  description: "Run by precis's opencode plugin (precis install opencode writes it) with { hook_event_name, session_id } on " +
    "stdin: session.idle imports the session from opencode's storage (its info, message and part files; only the turns " +
    "not yet stored are added) into the session of that id, as precis watch names it; session.compacted imports and " +
    "compacts it until --deadline. A failure exits 1 with one line on stderr; opencode does not wait for it."
})

/** The `hook` command: one subcommand per agent whose hooks run precis. */
export const command = Command.make("hook").pipe(
  Command.withDescription("Hooks for coding agents: precis hook claude-code, precis hook codex, precis hook gemini, precis hook opencode."),
  Command.withSubcommands([claudeCode, codex, gemini, opencode]),
  reported
)
