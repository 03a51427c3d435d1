/**
 * The layers the commands run on: the provider named by `--provider`, the
 * Summarizer over it and the store named by `--db`.
 *
 * @internal
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import { type Provider, Summarizer } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { OpenAiProvider } from "@precis/provider-openai"
import type { Store, StoreError } from "@precis/store"
import { PgStore } from "@precis/store-pg"
import { SqliteStore } from "@precis/store-sqlite"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { CliError } from "./errors.js"

/** The summary providers of `--provider`. */
export const providers = ["extractive", "openai"] as const

/**
 * A value of `--provider`: `extractive` (offline, deterministic, the default)
 * or `openai` (any OpenAI-compatible server, configured by `PRECIS_OPENAI_*`).
 */
export type ProviderName = typeof providers[number]

const openAi = Layer.unwrapEffect(
  Effect.map(
    Config.nonEmptyString("PRECIS_OPENAI_MODEL").pipe(
      Effect.mapError(() =>
        new CliError({
          reason: "--provider openai needs a model: set PRECIS_OPENAI_MODEL (e.g. PRECIS_OPENAI_MODEL=gpt-4o-mini); " +
            "PRECIS_OPENAI_BASE_URL and PRECIS_OPENAI_API_KEY are optional"
        })
      )
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

/** A store with its `SqlClient`, for the CLI's own tables (`followedFiles.ts`). */
export type StoreLayer = Layer.Layer<Store.Store | SqlClient.SqlClient, StoreError.StoreError>

/**
 * The store named by `db`, for the commands that write (created and migrated
 * when needed): a PostgreSQL database for a `postgres://` URL, else a SQLite file.
 */
export const store = (db: string): StoreLayer =>
  PgStore.isUrl(db)
    ? PgStore.layer({ url: Redacted.make(db) })
    : SqliteStore.layer({ filename: db })

/** The store named by `db`, read-only (never migrated): for the commands that never write. */
export const readStore = (db: string): StoreLayer =>
  PgStore.isUrl(db)
    ? PgStore.layer({ url: Redacted.make(db), readonly: true })
    : SqliteStore.layer({ filename: db, readonly: true })
