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

// Whether fetch refuses to connect to the port of `url` (the Fetch standard's "bad ports", 6000 say): asked of
// fetch itself, with a dispatcher that fails at once, so that nothing leaves the machine and no table of the
// ports is kept here (fetch checks the port before it dispatches).
const refusedByFetch = (url: string): Effect.Effect<boolean> =>
  Effect.promise(() => {
    // Node's fetch takes an undici `dispatcher`; this one has only the method fetch calls, to fail.
    const dispatcher = {
      dispatch: () => {
        throw new Error("precis: a probe of the port only")
      }
    }
    const probe = { dispatcher } as unknown as RequestInit
    return fetch(url, probe).then(
      () => false,
      (error: unknown) => error instanceof Error && error.cause instanceof Error && error.cause.message === "bad port"
    )
  })

// A base URL on a port fetch refuses fails at start, as the options Schema fails one it cannot use.
const fetchablePort = Effect.flatMap(Config.option(Config.string("PRECIS_OPENAI_BASE_URL")), (baseUrl) => {
  const url = Option.getOrUndefined(baseUrl)
  if (url === undefined || !URL.canParse(url)) return Effect.void
  return Effect.flatMap(refusedByFetch(url), (refused) =>
    refused
      ? Effect.fail(
        new CliError({
          reason: `PRECIS_OPENAI_BASE_URL: port ${new URL(url).port} is one that fetch refuses to connect to (a blocked port): ` +
            "run the server on another port"
        })
      )
      : Effect.void)
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
