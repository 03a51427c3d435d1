/**
 * `precis context`: the context an agent would send, as the read-only
 * `Assembler` of `@precis/context` assembles it, in `Layout`'s order: the
 * parentless summaries in time order, the session-state header (unless
 * `--no-state`), then the fresh tail; with `--budget N`, the first request
 * pinned first and everything, as printed, within N tokens (the header within
 * `Layout.defaultStateShare` of them, then mask, forget and window), filled
 * from the summary DAG (`Expansion`) up to 85% of N unless `--no-expand`; a
 * session whose turns all fit N is printed whole, verbatim.
 * Read-only: nothing is compacted, the session state is carried forward from
 * the stored one, never saved. With `--project DIR`, the start-of-session
 * digest of that project instead (`ProjectDigest`).
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { Assembler, AssemblerConfig, Layout, ProjectDigest } from "@precis/context"
import { TurnStore } from "@precis/store"
import { Escape } from "@precis/core"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as path from "node:path"
import { CliError, inStore, reported } from "../internal/errors.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { printJson, withVerbosity } from "../internal/output.js"
import * as Render from "../internal/render.js"
import * as Session from "../internal/session.js"

/** `--project DIR`: the project's digest, within `budget` tokens (the digest's default without one). */
const projectDigest = (directory: string, budget: number | undefined, json: boolean) =>
  Effect.gen(function*() {
    const digest = yield* ProjectDigest.make(path.resolve(directory), { maxTokens: budget })
    if (json) return yield* printJson(digest)
    yield* digest.text.length === 0
      ? Console.error(`precis: no session of ${Escape.line(digest.directory)} in the store yet`)
      : Console.log(digest.text)
  })

/** What `context` does, in one line (the root page and the README list it). */
export const summary = "Print the context an agent would send (--budget N), or what a new session in a project starts with (--project DIR)"

/** The `context` command. */
export const command = Command.make(
  "context",
  {
    db: Opt.db,
    session: Opt.storeSession,
    budget: Opt.budget,
    project: Opt.project,
    noState: Opt.noState,
    noExpand: Opt.noExpand,
    json: Opt.json,
    verbose: Opt.verbose
  },
  (args) =>
    Effect.gen(function*() {
      yield* Session.requireStore(args.db)
      // Assembling the context needs the store and the token estimator, never a model.
      if (Option.isSome(args.project)) {
        if (Option.isSome(args.session)) {
          return yield* new CliError({ reason: "--project and --session name different things: give one of them" })
        }
        return yield* projectDigest(args.project.value, Option.getOrUndefined(args.budget), args.json).pipe(
          Effect.provide(Layers.readStore(args.db)),
          inStore(args.db)
        )
      }
      yield* Effect.gen(function*() {
        const sessionId = yield* Session.resolve(args.db, args.session)
        const budget = Option.getOrUndefined(args.budget)
        const assembler = yield* Assembler.Assembler
        // Assembled once: no turn follows, so it fills what a loop's low-water mark would leave for new turns.
        const assembled = yield* assembler.assemble(sessionId, { budget })
        const { header, headerTokens } = assembled
        if (budget !== undefined) {
          if (args.json) {
            return yield* printJson({
              session: sessionId,
              budget,
              tokens: assembled.tokens,
              header,
              headerTokens,
              report: assembled.report,
              pinned: assembled.pinned.map(Render.contextTurn),
              summaries: assembled.summaries.map((s) => ({ ...Render.dagNode(s), content: s.content })),
              turns: assembled.turns.map(Render.contextTurn)
            })
          }
          yield* Console.log(Layout.render(assembled))
          return yield* Effect.forEach(Render.contextReport(assembled, budget), (line) => Console.error(line), { discard: true })
        }
        if (args.json) {
          return yield* printJson({
            session: sessionId,
            tokens: assembled.tokens,
            header,
            headerTokens,
            summaries: assembled.summaries.map((s) => ({ ...Render.dagNode(s), content: s.content })),
            // Without a budget the turns are the store's, each with its place in the session.
            turns: assembled.turns.map((t) => ({
              id: t.id,
              seq: t instanceof TurnStore.StoredTurn ? t.seq : undefined,
              role: t.role,
              content: t.content,
              timestamp: t.timestamp ?? null
            }))
          })
        }
        yield* Console.log(Layout.render(assembled))
      }).pipe(
        Effect.provide(
          Assembler.layerReadOnly({ ...AssemblerConfig.oneShot, sessionState: !args.noState, expand: !args.noExpand })
            .pipe(Layer.provideMerge(Layers.readStore(args.db)))
        ),
        inStore(args.db)
      )
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Print the context an agent would send: the parentless summaries in time order, the session-state header " +
      "(task, directory and branch, files, last checks, open errors, issues, git, plan; each entry citing its " +
      "turn; --no-state leaves it out), then the turns not yet summarized (the fresh tail). With --budget N, " +
      "the first request is pinned first, " +
      "fit it into N tokens (the header within 15% of them, old tool output masked, low-value turns forgotten, " +
      "then a hard window), fill the context up to 85% of the budget from the summary DAG (summaries shown as their " +
      "children, the newest leaves as their turns in the digest form the summarizer read, then verbatim, newest " +
      "first; not with --no-expand) and report each stage on stderr (in the JSON with --json). A session whose " +
      "turns all fit the budget is printed whole, verbatim, with no summary. " +
      "With --project DIR, print the digest a new session in that folder starts with instead."
  ),
  reported
)
