/**
 * The help pages, laid out as `@effect/cli` lays them out, with these
 * differences: the usage of a subcommand starts with `precis` (the library
 * prints `$ compact …` when asked `precis compact --help`); every line is
 * wrapped at the terminal's width (80 when stdout is not a terminal); a text
 * option reads as what its pseudo-name stands for (an integer, a file path, …)
 * instead of "A user-defined piece of text."; "This setting is optional." is
 * left out (every option is, and each says its default); `--wizard` is left
 * out (the CLI refuses it: its prompts hang without a terminal); and the root
 * page lists the commands by name with a one-line summary.
 *
 * @internal
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import type * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"
import * as Usage from "@effect/cli/Usage"
import * as Terminal from "@effect/platform/Terminal"
import * as Effect from "effect/Effect"
import * as Layout from "./layout.js"

/** The line `@effect/cli` writes under every text option and argument, whatever it holds. */
const TEXT_LINE = "A user-defined piece of text."

/** The line `@effect/cli` writes under every option with a default: all of the CLI's have one. */
const OPTIONAL_LINE = "This setting is optional."

/** What each pseudo-name of the CLI's text options and arguments stands for. */
const typeLines: Readonly<Record<string, string>> = {
  N: "An integer.",
  FILE: "A file path.",
  PATH: "A file or directory path.",
  DIR: "A directory path.",
  ID: "A session id.",
  QUERY: "Words to search for.",
  HOST: "A host name or IP address.",
  DURATION: "A duration: seconds, or a number with a unit."
}

/** The built-in option the CLI refuses, and so does not show. */
export const wizardFlag = "--wizard"

/** The width help is wrapped at when stdout is not a terminal. */
const defaultWidth = 80

/** The width to wrap help at: the terminal's, else {@link defaultWidth}. */
export const width: Effect.Effect<number, never, Terminal.Terminal> = Effect.map(
  Effect.flatMap(Terminal.Terminal, (terminal) => terminal.columns),
  (columns) => (columns > 0 ? columns : defaultWidth)
)

/** The text of a span, without its styling. */
const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    default:
      return spanText(span.value)
  }
}

/** The type line of an entry (`--fresh-tail N`, `<FILE>`, `<PATH> 1+`, `<PATH>...`), from its pseudo-name. */
const typeLineOf = (entry: string): string | undefined =>
  entry.split(" ").map((word) => typeLines[word.replace(/^<|>(\.\.\.)?$/g, "")]).filter((line) => line !== undefined).at(-1)

/** The paragraphs of an entry's body, typed by the entry's pseudo-name and without the optional line. */
const body = (doc: HelpDoc.HelpDoc, indent: number, typeLine: string | undefined): Array<Layout.Block> =>
  blocksOf(doc, indent).filter((block) => !(block._tag === "Text" && block.words.join(" ").startsWith(OPTIONAL_LINE)))
    .map((block) =>
      typeLine !== undefined && block._tag === "Text" && block.words.join(" ") === TEXT_LINE
        ? Layout.text(typeLine, { indent })
        : block
    )

/** A help document of `@effect/cli` as blocks: headers, paragraphs, each entry with its body indented by 2. */
const blocksOf = (doc: HelpDoc.HelpDoc, indent = 0): Array<Layout.Block> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Header":
      return [Layout.text(spanText(doc.value), { indent, strong: true })]
    case "Paragraph":
      return [Layout.text(spanText(doc.value), { indent })]
    case "DescriptionList":
      return doc.definitions.flatMap(([span, entryBody]) => {
        const entry = spanText(span)
        if (entry === wizardFlag) return []
        return [Layout.text(entry, { indent, hang: 2, strong: true }), ...body(entryBody, indent + 2, typeLineOf(entry))]
      })
    case "Enumeration":
      return doc.elements.flatMap((element) =>
        element._tag === "Paragraph"
          ? [Layout.text(["-", ...Layout.words(spanText(element.value))], { indent: indent + 2, hang: 2 })]
          : blocksOf(element, indent + 2)
      )
    case "Sequence":
      return [...blocksOf(doc.left, indent), ...blocksOf(doc.right, indent)]
  }
}

/** The elements of a usage, in order (`[--db FILE]`, `<FILE>`, …), each as one word. */
export const usageParts = (usage: Usage.Usage): Array<Usage.Usage> =>
  usage._tag === "Concat" ? [...usageParts(usage.left), ...usageParts(usage.right)] : usage._tag === "Empty" ? [] : [usage]

const usageText = (usage: Usage.Usage): string => blocksOf(Usage.getHelp(usage)).map((b) => b._tag === "Text" ? b.words.join(" ") : "").join(" ")

/** A command's arguments as its usage writes them: `<FILE>`, `[<FILE>]`, `<PATH>...`. */
const argumentsOf = (command: Descriptor.Command<unknown>): Array<string> =>
  usageParts(Descriptor.getUsage(command)).slice(1).map(usageText).filter((part) => /^\[?</.test(part))

/** The usage line: `$ precis compact [--db FILE] …`, the lines after the first under the command's options. */
const usageBlock = (command: Descriptor.Command<unknown>, parents: ReadonlyArray<string>, pageWidth: number) => {
  const [name, ...rest] = usageParts(Descriptor.getUsage(command)).map(usageText)
  const head = ["$", ...parents, name ?? ""]
  const hang = head.join(" ").length + 1
  return Layout.text([...head, ...rest.filter((part) => part.length > 0)], { hang: hang <= pageWidth / 3 ? hang : 4 })
}

/** The app a page is of: its name (the first of every usage line) and version. */
export interface App {
  readonly name: string
  readonly version: string
}

const banner = (app: App): Array<Layout.Block> => [
  Layout.text(app.name, { strong: true }),
  Layout.text(`${app.name} ${app.version}`),
  Layout.text("USAGE", { strong: true })
]

/**
 * The help page of `command`, reached through the commands `parents` (the
 * app's name first): the banner, the version, the usage line and the
 * command's own help, at `pageWidth` columns.
 */
export const page = (command: Descriptor.Command<unknown>, parents: ReadonlyArray<string>, app: App, pageWidth: number): string =>
  Layout.render(
    [...banner(app), usageBlock(command, parents, pageWidth), ...blocksOf(Descriptor.getHelp(command, CliConfig.defaultConfig))],
    pageWidth
  )

/** A command as the root page lists it: its name (with its arguments) and its one-line summary. */
export interface Listed {
  readonly name: string
  readonly summary: string
  readonly descriptor: Descriptor.Command<unknown>
}

/**
 * The root page: the banner, the usage, the help of `root` (the root command
 * without its subcommands: its description and options), then the
 * `commands`, one row each (name and arguments, summary), at `pageWidth`
 * columns.
 */
export const rootPage = (
  root: Descriptor.Command<unknown>,
  commands: ReadonlyArray<Listed>,
  app: App,
  pageWidth: number
): string =>
  Layout.render(
    [
      ...banner(app),
      Layout.text(["$", app.name, "COMMAND", "[OPTIONS]"]),
      ...blocksOf(Descriptor.getHelp(root, CliConfig.defaultConfig)),
      Layout.text("COMMANDS", { strong: true }),
      Layout.table(commands.map((c) => [[c.name, ...argumentsOf(c.descriptor)].join(" "), c.summary]), 2),
      Layout.text(`${app.name} COMMAND --help prints the options of a command.`)
    ],
    pageWidth
  )
