/**
 * The `--help` pages: the help `@effect/cli` writes of a command (its
 * `HelpDoc` and usage), laid out as the library lays it out, but with each
 * paragraph and the usage wrapped at the terminal's width (80 when stdout is
 * not a terminal), where the library writes each on one line. (`@effect/printer`'s
 * `reflow` would wrap them, but its layout takes seconds on one page.) The `HelpDoc` value is changed in two ways
 * ({@link plain}): the line the library writes under every option of a kind
 * ("A true or false value.", "A user-defined piece of text.", "This setting is
 * optional.") is left out where the option has a description of its own, and
 * so is `--wizard` (the CLI refuses it); a list of subcommands is a
 * description list (usage, then what it does) instead of rows padded to the
 * longest usage.
 *
 * @internal
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Span from "@effect/cli/HelpDoc/Span"
import * as Usage from "@effect/cli/Usage"
import * as Terminal from "@effect/platform/Terminal"
import * as Effect from "effect/Effect"

/** The built-in option the CLI refuses, and so does not show. */
export const wizardFlag = "--wizard"

/** The width to wrap help at: the terminal's, else 80. */
export const width: Effect.Effect<number, never, Terminal.Terminal> = Effect.map(
  Effect.flatMap(Terminal.Terminal, (terminal) => terminal.columns),
  (columns) => (columns > 0 ? columns : 80)
)

/** The text of a span, without its styling. */
const spanText = (span: Span.Span): string =>
  span._tag === "Text" || span._tag === "URI"
    ? span.value
    : span._tag === "Sequence"
    ? spanText(span.left) + spanText(span.right)
    : spanText(span.value)

/** Whether a paragraph is one the library writes under every option of a kind, whatever the option. */
const isGeneric = (doc: HelpDoc.HelpDoc): boolean =>
  doc._tag === "Paragraph" &&
  /^(A true or false value\.|A user-defined piece of text\.|This setting is optional\.)/.test(spanText(doc.value))

/** The blocks of a document, in order. */
const blocks = (doc: HelpDoc.HelpDoc): Array<HelpDoc.HelpDoc> =>
  doc._tag === "Sequence" ? [...blocks(doc.left), ...blocks(doc.right)] : doc._tag === "Empty" ? [] : [doc]

/** An option's or argument's help without the generic paragraphs, when a paragraph of its own is left. */
const described = (body: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  const own = blocks(body).filter((block) => !isGeneric(block))
  return own.length === 0 ? body : own.reduce(HelpDoc.sequence, HelpDoc.empty)
}

/** A row of the library's list of subcommands: usage, padding, description. */
const row = (doc: HelpDoc.HelpDoc): [Span.Span, HelpDoc.HelpDoc] | undefined =>
  doc._tag === "Paragraph" && doc.value._tag === "Sequence" && doc.value.left._tag === "Sequence"
    ? [doc.value.left.left, HelpDoc.p(doc.value.right)]
    : undefined

/** `doc` without the generic paragraphs and `--wizard`, its lists of subcommands as description lists. */
export const plain = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  switch (doc._tag) {
    case "DescriptionList": {
      const [first, ...rest] = doc.definitions.filter(([span]) => spanText(span) !== wizardFlag)
        .map(([span, body]): [Span.Span, HelpDoc.HelpDoc] => [span, described(body)])
      return first === undefined ? HelpDoc.empty : HelpDoc.descriptionList([first, ...rest])
    }
    case "Enumeration": {
      const rows = doc.elements.flatMap((element) => {
        const found = row(element)
        return found === undefined ? [] : [found]
      })
      const [first, ...rest] = rows
      return first === undefined || rows.length < doc.elements.length ? doc : HelpDoc.descriptionList([first, ...rest])
    }
    case "Sequence":
      return HelpDoc.sequence(plain(doc.left), plain(doc.right))
    default:
      return doc
  }
}

/** A block of lines: a paragraph, a header, an entry's name; blocks are printed with a blank line between. */
type Block = ReadonlyArray<string>

/** `line` in bold (taken out where stdout is not a terminal: `console.ts`). */
const bold = (line: string): string => `\x1b[1m${line}\x1b[0m`

/**
 * `units` (words, or usage elements) in lines of at most `pageWidth` columns,
 * indented by `indent`, the lines after the first by `hang` more; a unit
 * longer than a line (a URL) is alone on its line.
 */
const wrap = (units: ReadonlyArray<string>, indent: number, pageWidth: number, hang = 0): Block => {
  const lines: Array<string> = []
  for (const unit of units) {
    const last = lines.at(-1)
    if (last !== undefined && last.length + 1 + unit.length <= pageWidth) lines[lines.length - 1] = `${last} ${unit}`
    else lines.push(" ".repeat(indent + (lines.length > 0 ? hang : 0)) + unit)
  }
  return lines
}

const words = (text: string): Array<string> => text.split(/\s+/).filter((word) => word.length > 0)

/** A help document as the library lays it out (an entry's help under it, indented by 2), at `pageWidth` columns. */
const blocksOf = (doc: HelpDoc.HelpDoc, indent: number, pageWidth: number): Array<Block> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Header":
      return [wrap(words(spanText(doc.value)), indent, pageWidth).map(bold)]
    case "Paragraph":
      return [wrap(words(spanText(doc.value)), indent, pageWidth)]
    case "DescriptionList":
      return doc.definitions.flatMap(([span, body]) => [
        wrap(words(spanText(span)), indent, pageWidth, 2).map(bold),
        ...blocksOf(body, indent + 2, pageWidth)
      ])
    case "Enumeration":
      return doc.elements.flatMap((element) =>
        element._tag === "Paragraph"
          ? [wrap(["-", ...words(spanText(element.value))], indent + 2, pageWidth, 2)]
          : blocksOf(element, indent + 2, pageWidth)
      )
    case "Sequence":
      return [...blocksOf(doc.left, indent, pageWidth), ...blocksOf(doc.right, indent, pageWidth)]
  }
}

/** The elements of a usage (`[--db FILE]`, `<FILE>`), as its help writes each. */
const usageParts = (usage: Usage.Usage): Array<string> =>
  usage._tag === "Concat"
    ? [...usageParts(usage.left), ...usageParts(usage.right)]
    : [spanText(HelpDoc.getSpan(Usage.getHelp(usage)))].filter((part) => part.length > 0)

/** The app a page is of: its name (the first word of every usage) and version. */
export interface App {
  readonly name: string
  readonly version: string
}

/**
 * The help page of `command`, reached through the commands `parents` (the
 * app's name first), with `more` after the command's own help (the root
 * page's list of commands), at `pageWidth` columns: the banner, the usage
 * (each element whole on a line when it fits), then the help, as
 * {@link plain} has it.
 */
export const page = (
  app: App,
  parents: ReadonlyArray<string>,
  command: Descriptor.Command<unknown>,
  pageWidth: number,
  more: HelpDoc.HelpDoc = HelpDoc.empty
): string => {
  const parts = ["$", ...parents, ...usageParts(Descriptor.getUsage(command))]
  const usage = wrap(parts.flatMap((part) => (part.length < pageWidth ? [part] : words(part))), 0, pageWidth, 4)
  const help = plain(HelpDoc.sequence(Descriptor.getHelp(command, CliConfig.defaultConfig), more))
  const banner = HelpDoc.blocks([HelpDoc.h1(app.name), HelpDoc.p(`${app.name} ${app.version}`), HelpDoc.h1("USAGE")])
  return [...blocksOf(banner, 0, pageWidth), usage, ...blocksOf(help, 0, pageWidth)].map((block) => block.join("\n"))
    .join("\n\n")
}

/** A command as the root page lists it: its name (with its arguments) and its one-line summary. */
export interface Listed {
  readonly name: string
  readonly summary: string
  readonly descriptor: Descriptor.Command<unknown>
}

/** The root page's list of `commands`, each its name, arguments (`<FILE>`, `[<FILE>]`) and summary. */
export const commandList = (app: App, commands: ReadonlyArray<Listed>): HelpDoc.HelpDoc => {
  const rows = commands.map((c): [Span.Span, HelpDoc.HelpDoc] => [
    Span.text([c.name, ...usageParts(Descriptor.getUsage(c.descriptor)).filter((part) => /^\[?</.test(part))].join(" ")),
    HelpDoc.p(c.summary)
  ])
  const [first, ...rest] = rows
  return first === undefined ? HelpDoc.empty : HelpDoc.blocks([
    HelpDoc.h1("COMMANDS"),
    HelpDoc.descriptionList([first, ...rest]),
    HelpDoc.p(`${app.name} COMMAND --help prints the options of a command.`)
  ])
}
