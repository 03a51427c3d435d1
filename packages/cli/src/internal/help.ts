/**
 * The help pages, laid out as `@effect/cli` lays them out, with three
 * differences: the usage of a subcommand starts with `precis` (the library
 * prints `$ compact …` when asked `precis compact --help`), a text option reads
 * as what its pseudo-name stands for (an integer, a file path, …) instead of
 * "A user-defined piece of text.", and `--wizard` is left out (the CLI refuses
 * it: its prompts hang without a terminal).
 *
 * @internal
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Span from "@effect/cli/HelpDoc/Span"
import * as Usage from "@effect/cli/Usage"
import * as Arr from "effect/Array"
import * as Option from "effect/Option"
import { stripAnsi } from "./console.js"

/** The line `@effect/cli` writes under every text option and argument, whatever it holds. */
const TEXT_LINE = "A user-defined piece of text."

/** What each pseudo-name of the CLI's text options and arguments stands for. */
const typeLines: Readonly<Record<string, string>> = {
  N: "An integer.",
  FILE: "A file path.",
  ID: "A session id.",
  DURATION: "A duration: seconds, or a number with a unit."
}

/** The built-in option the CLI refuses, and so does not show. */
export const wizardFlag = "--wizard"

const spanText = (span: Span.Span): string => stripAnsi(HelpDoc.toAnsiText(HelpDoc.p(span))).trim()

/** `doc` with the generic text line replaced by `line`. */
const retype = (doc: HelpDoc.HelpDoc, line: string): HelpDoc.HelpDoc => {
  switch (doc._tag) {
    case "Paragraph":
      return spanText(doc.value) === TEXT_LINE ? HelpDoc.p(line) : doc
    case "Sequence":
      return HelpDoc.sequence(retype(doc.left, line), retype(doc.right, line))
    default:
      return doc
  }
}

/** The type line of an entry (`--fresh-tail N`, `<FILE>`), from its last word. */
const typeLineOf = (entry: string): string | undefined => typeLines[(entry.split(" ").at(-1) ?? "").replace(/^<|>$/g, "")]

/**
 * A command's help with each text option and argument typed by its
 * pseudo-name, and without `--wizard`.
 */
export const revise = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  switch (doc._tag) {
    case "Sequence":
      return HelpDoc.sequence(revise(doc.left), revise(doc.right))
    case "DescriptionList": {
      const kept = Arr.filterMap(doc.definitions, ([span, body]): Option.Option<[Span.Span, HelpDoc.HelpDoc]> => {
        const entry = spanText(span)
        if (entry === wizardFlag) return Option.none()
        const line = typeLineOf(entry)
        return Option.some([span, line === undefined ? body : retype(body, line)])
      })
      return Arr.isNonEmptyArray(kept) ? HelpDoc.descriptionList(kept) : HelpDoc.empty
    }
    default:
      return doc
  }
}

/**
 * The help page of `command`, reached through the commands `parents` (empty
 * for the root): the banner, the version, the usage lines (prefixed with the
 * parents' names) and the command's revised help.
 */
export const page = <Name extends string, R, E, A>(
  command: Command.Command<Name, R, E, A>,
  parents: ReadonlyArray<string>,
  app: { readonly name: string; readonly version: string }
): HelpDoc.HelpDoc => {
  const config = CliConfig.defaultConfig
  const usage = parents.reduceRight(
    (rest, parent) => Usage.concat(Usage.named([parent], Option.none()), rest),
    Command.getUsage(command)
  )
  return HelpDoc.blocks([
    HelpDoc.h1(Span.code(app.name)),
    HelpDoc.p(`${app.name} ${app.version}`),
    HelpDoc.h1("USAGE"),
    ...Usage.enumerate(usage, config).map((line) => HelpDoc.p(Span.concat(Span.text("$ "), line))),
    revise(Command.getHelp(command, config))
  ])
}
