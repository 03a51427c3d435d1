/**
 * `precis condense FILE --budget N`: the stateless Condenser Pipeline over the
 * turns of a file (no store): mask, forget, summarize, window.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { Condenser } from "@precis/context"
import { Transcript } from "@precis/core"
import { Importer } from "@precis/importers"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliError, reported } from "../internal/errors.js"
import { readConversations } from "../internal/input.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { printJson, timed, withVerbosity } from "../internal/output.js"
import * as Render from "../internal/render.js"

/** What `condense` does, in one line (the root page and the README list it). */
export const summary = "Fit the turns of a file into --budget N tokens (no store)"

/** The `condense` command. */
export const command = Command.make(
  "condense",
  {
    file: Opt.file,
    format: Opt.format,
    budget: Opt.budget,
    provider: Opt.provider,
    timeout: Opt.timeout,
    json: Opt.json,
    verbose: Opt.verbose
  },
  (args) =>
    Effect.gen(function*() {
      if (Option.isNone(args.budget)) return yield* new CliError({ reason: "condense needs --budget N" })
      const budget = args.budget.value
      const turns = Importer.allTurns(yield* timed("parsed input")(readConversations(args.file, args.format)))
      const condensed = yield* Condenser.condense(turns, { budget }).pipe(
        timed("condensed"),
        Layers.failOnPermanentFallback(args.file),
        Effect.provide(Layers.summarizer(args.provider, args.timeout))
      )
      if (args.json) {
        return yield* printJson({
          budget,
          tokens: condensed.tokens,
          report: condensed.report,
          summaries: condensed.summaries.map((s) => ({ id: s.id, tier: s.tier ?? null, content: s.content })),
          turns: condensed.turns.map(Render.contextTurn)
        })
      }
      yield* Console.log(
        [Transcript.renderSummaries(condensed.summaries), Transcript.formatTurns(condensed.turns)]
          .filter((part) => part.length > 0)
          .join("\n\n")
      )
      yield* Effect.forEach(Render.condenserReport(condensed.report, budget), (line) => Console.error(line), { discard: true })
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Fit the turns of a file into --budget N tokens (no store): old tool output masked, low-value turns " +
      "forgotten, older turns summarized, then a hard window. Prints the condensed context, and each stage's " +
      "report on stderr (in the JSON with --json)."
  ),
  reported
)
