/**
 * Layers shared by the tests: the compaction's (a store, a Summarizer over a
 * scripted provider, the manager) with the Assembler on top.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { CompactionManager, CompactionOptions } from "@precis/compaction"
import type { Provider, Summarizer } from "@precis/core"
import type { Store } from "@precis/store"
import type { ScriptedProvider } from "@precis/testing"
import * as Layer from "effect/Layer"
import { managerLayer } from "../../compaction/test/helpers.js"
import * as Assembler from "../src/Assembler.js"
import type * as AssemblerConfig from "../src/AssemblerConfig.js"
import type { InvalidContextOptionsError } from "../src/ContextError.js"

export { managerLayer, requestCount, runPumped, shortReply, storeLayer } from "../../compaction/test/helpers.js"

/** The Assembler (with `config`) over a manager over an in-memory (or file) store. */
export const assemblerLayer = (
  provider?: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider>,
  options?: CompactionOptions.Options,
  filename?: string,
  config: AssemblerConfig.Config = {}
): Layer.Layer<
  | Assembler.Assembler
  | CompactionManager.CompactionManager
  | Store.Store
  | SqlClient.SqlClient
  | Summarizer.Summarizer
  | Provider.Provider
  | ScriptedProvider.ScriptedProvider,
  CompactionOptions.InvalidOptionsError | InvalidContextOptionsError
> => Assembler.layer(config).pipe(Layer.provideMerge(managerLayer(provider, options, filename)))
