/**
 * How a `precis` process starts `precis` again (the backlog's workers of
 * `watch`): the executable in context, how a child is told the store, and
 * how its failure reads.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Option from "effect/Option"

/**
 * How to start `precis` again (the executable, then its script), when this
 * process is the `precis` executable; none in-process (tests, a library).
 *
 * @internal
 */
export class Executable extends Context.Reference<Executable>()("@precis/cli/Executable", {
  defaultValue: (): Option.Option<ReadonlyArray<string>> => Option.none()
}) {}

/** How a child process ended: its exit code and what it printed. */
export interface Ended {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Why a child `precis` (`command`, such as `precis compact --all`) failed, in
 * one line: the first line it printed on stderr (without `precis: `), else its
 * exit code.
 *
 * @internal
 */
export const childFailure = (ended: Pick<Ended, "code" | "stderr">, command: string): string =>
  ended.stderr.trim().split("\n")[0]?.replace(/^precis: /, "") || `${command} exited with code ${ended.code}`

/**
 * The environment that names the store `db` to a child `precis`
 * (`PRECIS_DB`): never its command line, which any user of the machine can
 * read (`ps`), so a PostgreSQL URL's password stays private.
 *
 * @internal
 */
export const dbEnv = (db: string): Readonly<Record<string, string>> => ({ PRECIS_DB: db })
