/**
 * The commands of `precis`, one record each, in the order `precis --help`
 * lists them. The parser (`Command.withSubcommands` in `Cli.ts`), each
 * command's `--help`, the list of the root page and the list of
 * commands in docs/cli.md (checked by a test) are all read from {@link commands}.
 *
 * To add a command: write its module in this folder, exporting `command` (made
 * with `Command.make`, with a description and the shared options of
 * `internal/options.ts`, piped through `reported` of `internal/errors.ts`,
 * which checks that its inferred errors are ones the CLI prints) and
 * `summary` (one line), then add the module to {@link commands}.
 *
 * @internal
 */
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as HashSet from "effect/HashSet"
import * as Compact from "./compact.js"
import * as Condense from "./condense.js"
import * as Context from "./context.js"
import * as Hook from "./hook.js"
import * as Import from "./import.js"
import * as Install from "./install.js"
import * as Mcp from "./mcp.js"
import * as Search from "./search.js"
import * as Serve from "./serve.js"
import * as Sessions from "./sessions.js"
import * as Show from "./show.js"
import * as Summarize from "./summarize.js"
import * as Uninstall from "./uninstall.js"
import * as Watch from "./watch.js"

/**
 * The commands, in the order the root page lists them: each is its module,
 * which exports the `command` and a one-line `summary` of what it does (for
 * the root page and the README).
 */
export const commands = [
  Import,
  Compact,
  Summarize,
  Sessions,
  Show,
  Context,
  Condense,
  Watch,
  Search,
  Serve,
  Mcp,
  Hook,
  Install,
  Uninstall
] as const satisfies ReadonlyArray<{ readonly summary: string }>

/** One command as the help pages and the README list it. */
export interface Entry {
  /** What the user types: the name the command was made with. */
  readonly name: string
  readonly summary: string
  readonly descriptor: Descriptor.Command<unknown>
}

/** The {@link commands} as entries, in order. */
export const entries: ReadonlyArray<Entry> = commands.map(({ command, summary }): Entry => {
  const descriptor: Descriptor.Command<unknown> = command.descriptor
  return { name: HashSet.values(Descriptor.getNames(descriptor)).next().value ?? "", summary, descriptor }
})
