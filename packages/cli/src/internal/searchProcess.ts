/**
 * The viewer's searches in a child process. A SQLite statement runs to its
 * end on the thread that started it (better-sqlite3 cannot be interrupted
 * from JavaScript), so a search in the server's own process would hold every
 * other request until it is done. `precis serve` runs each search as
 * `precis search --json` instead: its own process, killed once past its
 * time, while the server goes on answering.
 *
 * @internal
 */
import { SearchIndex, StoreError } from "@precis/store"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { spawn } from "node:child_process"

/**
 * How to start `precis` again (the executable, then its script), when this
 * process is the `precis` executable; none in-process (tests, a library).
 *
 * @internal
 */
export class Executable extends Context.Reference<Executable>()("@precis/cli/Executable", {
  defaultValue: (): Option.Option<ReadonlyArray<string>> => Option.none()
}) {}

/** A search of the viewer: `SearchIndex.search`'s arguments and result. */
export type Search = (
  sessionId: string | undefined,
  query: string,
  limit: number
) => Effect.Effect<ReadonlyArray<SearchIndex.SearchHit>, StoreError.StoreError>

const operation = "SearchIndex.search"

const Output = Schema.parseJson(Schema.Struct({ hits: Schema.Array(SearchIndex.SearchHit) }))

/** How a child process ended: its exit code and what it printed. */
export interface Ended {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Why a child `precis` (`command`, such as `precis search`) failed, in one
 * line: the first line it printed on stderr (without `precis: `), else its
 * exit code.
 *
 * @internal
 */
export const childFailure = (ended: Pick<Ended, "code" | "stderr">, command: string): string =>
  ended.stderr.trim().split("\n")[0]?.replace(/^precis: /, "") || `${command} exited with code ${ended.code}`

/**
 * Runs `argv` to its end (a failure to start it is a `StoreError` of
 * `operation`); interrupting it kills the child.
 *
 * @internal
 */
export const run = (argv: ReadonlyArray<string>, operation: string, env: Readonly<Record<string, string>> = {}) =>
  Effect.async<Ended, StoreError.StoreError>((resume) => {
    const [executable = "precis", ...args] = argv
    const child = spawn(executable, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } })
    const out = { stdout: "", stderr: "" }
    child.stdout.setEncoding("utf8").on("data", (data: string) => (out.stdout += data))
    child.stderr.setEncoding("utf8").on("data", (data: string) => (out.stderr += data))
    child.on("error", (cause) => resume(Effect.fail(new StoreError.StoreError({ operation, reason: cause.message, cause }))))
    child.on("close", (code) => resume(Effect.succeed({ code, ...out })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/**
 * The environment that names the store `db` to a child `precis`
 * (`PRECIS_DB`): never its command line, which any user of the machine can
 * read (`ps`), so a PostgreSQL URL's password stays private.
 *
 * @internal
 */
export const dbEnv = (db: string): Readonly<Record<string, string>> => ({ PRECIS_DB: db })

/**
 * A search of `db` by `precis search --json`, started with `argv` (the
 * executable and its script), ended (the child killed) past `timeout`.
 *
 * @internal
 */
export const make = (argv: ReadonlyArray<string>, db: string, timeout: Duration.DurationInput): Search =>
(sessionId, query, limit) =>
  run([
    ...argv,
    "search",
    "--json",
    "--limit",
    String(limit),
    ...(sessionId === undefined ? [] : [`--session=${sessionId}`]),
    "--",
    query
  ], operation, dbEnv(db)).pipe(
    Effect.flatMap(({ code, stderr, stdout }): Effect.Effect<ReadonlyArray<SearchIndex.SearchHit>, StoreError.StoreError> =>
      code === 0
        ? Effect.mapBoth(Schema.decode(Output)(stdout), {
          onFailure: (cause) =>
            new StoreError.StoreError({ operation, reason: "precis search printed no hits it could read", cause }),
          onSuccess: (output) => output.hits
        })
        : Effect.fail(
          new StoreError.StoreError({
            operation,
            reason: childFailure({ code, stderr }, "precis search")
          })
        )
    ),
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () =>
        new StoreError.StoreError({
          operation,
          reason: `the search took longer than ${Duration.format(Duration.decode(timeout))}: ` +
            "search for fewer or rarer words"
        })
    })
  )
