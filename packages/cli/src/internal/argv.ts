/**
 * The one workaround the CLI keeps for the parser of `@effect/cli` (0.77.2):
 * a word that looks like an option but is not one of the command's
 * (`compact --frob`), or is one given last without its value
 * (`compact --fresh-tail`), is bound to the command's positional argument, so
 * the command reads a file `--frob` ("no such file"). A positional argument
 * made with {@link positional} refuses such a word given before `--`, and the
 * parser then reports its own finding (`The flag '--fresh-tails' is not
 * recognized. Did you mean '--fresh-tail'?`, `Expected a value following
 * option: '--db'`) or this one. Likewise, after an option and its value
 * (`compact --db x.db --help`), `--help` is not seen: `Cli.run` looks for it
 * in {@link beforeDashes}. `test/Argv.test.ts` names the upstream behaviour:
 * it fails once the parser stops doing it.
 *
 * @internal
 */
import * as Args from "@effect/cli/Args"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/** The words of the command line before `--`: after it, a word that starts with `-` is a value. */
const optionWords = FiberRef.unsafeMake<ReadonlyArray<string>>([])

/** The words of `args` before `--`: the only ones that can be options. */
export const beforeDashes = (args: ReadonlyArray<string>): ReadonlyArray<string> =>
  args.includes("--") ? args.slice(0, args.indexOf("--")) : args

/** Runs `self`, the parse of `args` (without `node` and the script), knowing which words precede `--`. */
export const withArgs = (args: ReadonlyArray<string>) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.locally(self, optionWords, beforeDashes(args))

/** `args` refusing as its value a word that starts with `-` (not `-` alone, not a negative number) before `--`. */
export const positional = <A extends string>(args: Args.Args<A>): Args.Args<A> =>
  Args.mapEffect(args, (value) =>
    Effect.flatMap(FiberRef.get(optionWords), (words) =>
      /^-\D/.test(value) && words.includes(value)
        ? Effect.fail(HelpDoc.p(`unknown option ${value} (a value that starts with - goes after --)`))
        : Effect.succeed(value)))
