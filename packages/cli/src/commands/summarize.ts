/**
 * `precis summarize FILE`: one summary of all the turns of a file, no store.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { Summarizer } from "@precis/core"
import { Importer } from "@precis/importers"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { reported } from "../internal/errors.js"
import { readText, readConversations } from "../internal/input.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { printJson, timed, withVerbosity } from "../internal/output.js"

/** What `summarize` does, in one line (the root page and the README list it). */
export const summary = "Summarize the turns of a file into one summary (no store)"

/** The `summarize` command. */
export const command = Command.make(
  "summarize",
  {
    file: Opt.file,
    format: Opt.format,
    provider: Opt.provider,
    timeout: Opt.timeout,
    prior: Opt.prior,
    targetTokens: Opt.targetTokens,
    json: Opt.json,
    verbose: Opt.verbose
  },
  (args) =>
    Effect.gen(function*() {
      const turns = Importer.allTurns(yield* timed("parsed input")(readConversations(args.file, args.format)))
      const priorSummary = Option.isSome(args.prior) ? yield* readText(args.prior.value) : undefined
      const summary = yield* Effect.flatMap(Summarizer.Summarizer, (s) =>
        s.summarizeTurns(turns, {
          priorSummary,
          targetTokens: Option.getOrUndefined(args.targetTokens)
        })).pipe(
          timed("summarized"),
          Layers.failOnPermanentFallback(args.file),
          Effect.provide(Layers.summarizer(args.provider, args.timeout))
        )
      if (args.json) {
        return yield* printJson({
          text: summary.text,
          tier: summary.tier,
          inputTokens: summary.inputTokens,
          outputTokens: summary.outputTokens
        })
      }
      yield* Console.log(
        `${summary.text}\n\ntier: ${summary.tier} · ${summary.inputTokens} tokens in · ${summary.outputTokens} tokens out`
      )
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Summarize all the turns of a file into one summary (no store): prints its text and the tier that wrote it."
  ),
  reported
)
