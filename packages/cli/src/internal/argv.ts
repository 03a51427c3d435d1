/**
 * The arguments, read before `@effect/cli` parses them: which command they
 * name (for `--help`), and two mistakes its parser misreports: an unknown
 * option (it takes `--frob` for the file of a command that reads one, which
 * then "does not exist") and an option missing its value (`--db` last, or
 * followed by another option: the parser calls it an unknown argument, or
 * again takes it for a file).
 *
 * @internal
 */
import * as AutoCorrect from "@effect/cli/AutoCorrect"
import * as BuiltInOptions from "@effect/cli/BuiltInOptions"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as Usage from "@effect/cli/Usage"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"

/** The options of a command by name (aliases too), each with what its value is (`FILE`), or `undefined` for a flag. */
type Flags = ReadonlyMap<string, string | undefined>

/** The option names and values of a usage, at any depth. */
const flagsOfUsage = (usage: Usage.Usage): Array<readonly [string, string | undefined]> => {
  switch (usage._tag) {
    case "Named":
      return usage.names.filter((name) => name.startsWith("-")).map((name) => [name, Option.getOrUndefined(usage.acceptedValues)])
    case "Optional":
    case "Repeated":
      return flagsOfUsage(usage.usage)
    case "Alternation":
    case "Concat":
      return [...flagsOfUsage(usage.left), ...flagsOfUsage(usage.right)]
    default:
      return []
  }
}

/** The options every command takes: `@effect/cli`'s built-ins (`--help`, `--version`, `--log-level`, …). */
const builtIns: Flags = new Map(
  flagsOfUsage(Options.getUsage(BuiltInOptions.builtInOptions(Descriptor.make("precis"), Usage.empty, HelpDoc.empty)))
)

const flagsOf = (command: Descriptor.Command<unknown>): Flags =>
  new Map([...builtIns, ...flagsOfUsage(Descriptor.getUsage(command))])

/**
 * The subcommands of a command, by name: `getSubcommands` gives a command
 * without any its own name, which is not a subcommand of itself.
 */
const subcommandsOf = (command: Descriptor.Command<unknown>): ReadonlyMap<string, Descriptor.Command<unknown>> => {
  const own = new Set(HashSet.values(Descriptor.getNames(command)))
  return new Map(HashMap.toEntries(Descriptor.getSubcommands(command)).filter(([name]) => !own.has(name)))
}

/** Whether an argument is an option: it starts with `-`, and is neither `-` nor a negative number. */
const isOption = (arg: string): boolean => arg.startsWith("-") && arg !== "-" && !/^-\d/.test(arg)

/**
 * The known option closest to `name`, when it is close enough to be what was
 * meant: at most two edits, and fewer than half its characters (`-x` is not
 * a misspelt `-h`).
 */
const closest = (name: string, flags: Flags): string | undefined => {
  const scored = [...flags.keys()].map((known) => [known, AutoCorrect.levensteinDistance(name, known, CliConfig.defaultConfig)] as const)
  const best = scored.sort((a, b) => a[1] - b[1])[0]
  return best !== undefined && best[1] <= 2 && best[1] * 2 < name.length ? best[0] : undefined
}

/** Where the arguments lead, and the first mistake on the way, as the one line to print. */
export interface Walked {
  /** The commands named after the root (`["compact"]`); empty for the root. */
  readonly path: ReadonlyArray<string>
  readonly command: Descriptor.Command<unknown>
  readonly problem: string | undefined
}

/**
 * Follows `args` (without `node` and the script) from `root` (the app's name
 * and command) into `commands` (the root's subcommands, by name) and their
 * own subcommands, up to `--`: each option must be one of the command reached
 * (or a built-in), and an option that takes a value must be given one.
 */
export const walk = (
  args: ReadonlyArray<string>,
  root: { readonly name: string; readonly command: Descriptor.Command<unknown> },
  commands: ReadonlyMap<string, Descriptor.Command<unknown>>
): Walked => {
  const path: Array<string> = []
  let command = root.command
  let subcommands = commands
  let flags = flagsOf(command)
  let problem: string | undefined
  // After a command's first argument, a word naming a subcommand is an argument too.
  let descend = true
  const see = () => `see ${[root.name, ...path].join(" ")} --help`
  for (let i = 0; i < args.length && problem === undefined; i++) {
    const arg = args[i]!
    if (arg === "--") break
    if (isOption(arg)) {
      const [name = arg, ...inline] = arg.split("=")
      if (!flags.has(name)) {
        const meant = closest(name, flags)
        problem = `unknown option ${name} for ${[root.name, ...path].join(" ")}` +
          (meant === undefined ? ` (${see()})` : `: did you mean ${meant}? (${see()})`)
      } else {
        const value = flags.get(name)
        if (value === undefined || inline.length > 0) continue
        const next = args[i + 1]
        if (next === undefined || (isOption(next) && flags.has(next.split("=")[0]!))) {
          problem = `${name} needs a value: ${value} (${see()})`
        } else i++
      }
      continue
    }
    const subcommand = descend ? subcommands.get(arg) : undefined
    if (subcommand === undefined) {
      descend = false
      continue
    }
    path.push(arg)
    command = subcommand
    subcommands = subcommandsOf(subcommand)
    flags = flagsOf(subcommand)
  }
  return { path, command, problem }
}
