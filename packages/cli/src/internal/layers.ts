/**
 * The layers the commands run on: the provider named by `--provider`, the
 * Summarizer over it and the store named by `--db`.
 *
 * @internal
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Escape, type Provider, type Summary, Summarizer } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { OpenAiProvider } from "@precis/provider-openai"
import type { FollowedFiles, Store, StoreError } from "@precis/store"
import { PgStore } from "@precis/store-pg"
import { SqliteStore } from "@precis/store-sqlite"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import { CliError } from "./errors.js"
import { Db } from "./db.js"

/** The summary providers of `--provider`. */
export const providers = ["extractive", "openai"] as const

/**
 * A value of `--provider`: `extractive` (offline, deterministic, the default)
 * or `openai` (any OpenAI-compatible server, configured by `PRECIS_OPENAI_*`).
 */
export type ProviderName = typeof providers[number]

// The ports fetch refuses to connect to (the Fetch standard's "bad ports"), as undici lists them:
// the CLI's HTTP client is fetch, so a base URL on one of them can never be reached.
const FETCH_BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109,
  110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530,
  531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190,
  5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080
])

// A base URL on a port fetch refuses fails at start, as the options Schema fails one it cannot use.
const fetchablePort = Effect.flatMap(Config.option(Config.string("PRECIS_OPENAI_BASE_URL")), (baseUrl) => {
  const url = Option.getOrUndefined(baseUrl)
  const port = url !== undefined && URL.canParse(url) ? Number(new URL(url).port) : 0
  return FETCH_BAD_PORTS.has(port)
    ? Effect.fail(
      new CliError({
        reason: `PRECIS_OPENAI_BASE_URL: port ${port} is one that fetch refuses to connect to (a blocked port): ` +
          "run the server on another port"
      })
    )
    : Effect.void
})

const openAi = Layer.unwrapEffect(
  Effect.map(
    Config.nonEmptyString("PRECIS_OPENAI_MODEL").pipe(
      Effect.mapError(() =>
        new CliError({
          reason: "--provider openai needs a model: set PRECIS_OPENAI_MODEL (e.g. PRECIS_OPENAI_MODEL=gpt-4o-mini); " +
            "PRECIS_OPENAI_BASE_URL and PRECIS_OPENAI_API_KEY are optional"
        })
      ),
      Effect.zipLeft(fetchablePort)
    ),
    // Node's own fetch: the CLI bundle then carries no second HTTP client (undici alone would double its size).
    () => OpenAiProvider.layerConfig().pipe(Layer.provide(FetchHttpClient.layer))
  )
)

/**
 * The `Provider` layer named by `--provider`. `openai` fails with a
 * {@link CliError} when `PRECIS_OPENAI_MODEL` is not set, and with a
 * `ConfigError` naming the `PRECIS_OPENAI_*` variable that makes no sense.
 */
export const provider = (
  name: ProviderName
): Layer.Layer<
  Provider.Provider,
  CliError | ConfigError.ConfigError | OpenAiProvider.InvalidOpenAiOptionsError
> =>
  name === "openai" ? openAi : ExtractiveProvider.layer()

/**
 * The Summarizer over the chosen provider, its options from `PRECIS_SUMMARIZER_*`;
 * a `timeout` given (by `--timeout`) wins over `PRECIS_SUMMARIZER_TIMEOUT`.
 */
export const summarizer = (name: ProviderName, timeout: Option.Option<Duration.Duration> = Option.none()) =>
  Summarizer.layerConfig(
    Option.match(timeout, {
      onNone: () => Summarizer.config,
      onSome: (deadline) => Config.map(Summarizer.config, (options) => ({ ...options, timeout: deadline }))
    })
  ).pipe(Layer.provide(provider(name)))

/**
 * Runs `self` with the Summarizer in context watched, and fails with a
 * {@link CliError} (`FILE: not summarized: the provider fails in a way that
 * will not heal (UnauthorizedError: ...)`) when any summary fell back because
 * the provider fails for good (`Summary.failedPermanently`: refused
 * credentials, an unknown model, a server nobody can reach): a truncation is
 * no summary, and a provider that will not heal is a configuration to fix.
 * The rule `compact` follows (`ProviderUnavailableError`), for the commands
 * that summarize without a store (`summarize`, `condense`).
 */
export const failOnPermanentFallback = (file: string) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | CliError, R | Summarizer.Summarizer> =>
  Effect.gen(function*() {
    const summarizer = yield* Summarizer.Summarizer
    const failed = yield* Ref.make(Option.none<Summary.Escalation>())
    const note = (summary: Summary.Summary) =>
      summary.failedPermanently
        ? Ref.update(failed, Option.orElse(() => Option.fromNullable(summary.escalations.at(-1))))
        : Effect.void
    const watched = Summarizer.Summarizer.of({
      ...summarizer,
      summarizeTurns: (turns, options) => Effect.tap(summarizer.summarizeTurns(turns, options), note),
      summarizeSummaries: (summaries, options) => Effect.tap(summarizer.summarizeSummaries(summaries, options), note)
    })
    const result = yield* Effect.provideService(self, Summarizer.Summarizer, watched)
    const escalation = yield* Ref.get(failed)
    if (Option.isNone(escalation)) return result
    return yield* new CliError({
      reason: `${Escape.line(file)}: not summarized: the provider fails in a way that will not heal ` +
        `(${escalation.value.reason}: ${escalation.value.message})`
    })
  })

export { Db }

/** A store with its followed files (`FollowedFiles`) and its `SqlClient`. */
export type StoreLayer = Layer.Layer<Store.Store | FollowedFiles.FollowedFiles | SqlClient.SqlClient, StoreError.StoreError>

/**
 * The store named by `db`, for the commands that write: migrated when needed
 * and, with `create` (the default: the commands that import), created when
 * missing or empty. Without it (compacting what a store holds) a missing or
 * empty store is refused, so that no stray file becomes a store.
 */
export const store = (db: Db, options: { readonly create?: boolean } = {}): StoreLayer =>
  db.isUrl
    ? PgStore.layer({ url: Redacted.make(db.path), create: options.create })
    : SqliteStore.layer({ filename: db.path, create: options.create })

/** The store named by `db`, read-only at the driver (never created or migrated): for the commands that never write. */
export const readStore = (db: Db): StoreLayer =>
  db.isUrl
    ? PgStore.layer({ url: Redacted.make(db.path), readonly: true })
    : SqliteStore.layer({ filename: db.path, readonly: true })
