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

export { managerLayer, requestCount, runPumped, shortReply, storeLayer } from "../../compaction/test/helpers.js"

/** The Assembler over a manager over an in-memory (or file) store. */
export const assemblerLayer = (
  provider?: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider>,
  options?: CompactionOptions.Options,
  filename?: string
): Layer.Layer<
  | Assembler.Assembler
  | CompactionManager.CompactionManager
  | Store.Store
  | SqlClient.SqlClient
  | Summarizer.Summarizer
  | Provider.Provider
  | ScriptedProvider.ScriptedProvider,
  CompactionOptions.InvalidOptionsError
> => Assembler.layer.pipe(Layer.provideMerge(managerLayer(provider, options, filename)))
