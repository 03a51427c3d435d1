/**
 * The compaction stack over a SQLite file in a fresh temp directory, with a
 * given provider: what the compaction, agent-loop and throughput sections run.
 */
import { CompactionManager, type CompactionOptions } from "@precis/compaction"
import { type Provider, Provider as ProviderModule, Summarizer } from "@precis/core"
import { Store, type StoreError } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** A fresh temporary directory. */
export const tempDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "precis-bench-"))

/** The store (SQLite at `filename`) and CompactionManager over the Summarizer and `provider`. */
export const layer = (
  filename: string,
  provider: Layer.Layer<ProviderModule.Provider>,
  options: CompactionOptions.Options = {}
): Layer.Layer<
  CompactionManager.CompactionManager | Store.Store,
  StoreError.StoreError | CompactionOptions.InvalidOptionsError
> =>
  CompactionManager.layer(options).pipe(
    Layer.provideMerge(SqliteStore.layer({ filename })),
    Layer.provide(Summarizer.layer()),
    Layer.provide(provider)
  )

const asLayer = (provider: Layer.Layer<ProviderModule.Provider> | Provider.Service): Layer.Layer<ProviderModule.Provider> =>
  Layer.isLayer(provider) ? provider as Layer.Layer<ProviderModule.Provider> : Layer.succeed(ProviderModule.Provider, provider as Provider.Service)

/** Runs `program` against the stack on a fresh SQLite file, then removes the directory. */
export const runWithStack = <A, E>(
  provider: Layer.Layer<ProviderModule.Provider> | Provider.Service,
  options: CompactionOptions.Options,
  program: Effect.Effect<A, E, CompactionManager.CompactionManager | Store.Store>
): Promise<A> => {
  const dir = tempDir()
  return Effect.runPromise(
    program.pipe(Effect.provide(layer(path.join(dir, "bench.db"), asLayer(provider), options)))
  ).finally(() => fs.rmSync(dir, { recursive: true, force: true }))
}
