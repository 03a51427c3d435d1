/**
 * Layers and small tools shared by the tests.
 */
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient";
import { type Provider, Summarizer } from "@precis/core";
import { ScriptedProvider } from "@precis/testing";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as CompactionManager from "../src/CompactionManager.js";
import * as CompactionOptions from "../src/CompactionOptions.js";
/** A store over SQLite, with its `SqlClient` exposed to the invariant checker. */
export declare const storeLayer: (filename?: string) => Layer.Layer<SqliteClient.SqliteClient | import("@effect/sql/SqlClient").SqlClient | import("../src/MemoryStore.js").MemoryStore, never, never>;
/** A short reply derived from the request, always shorter than a chunk's material. */
export declare const shortReply: (request: Provider.ChatRequest) => ScriptedProvider.Outcome;
/** The manager's requirements: a store, a Summarizer and a scripted provider. */
export declare const depsLayer: (provider?: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider>, filename?: string) => Layer.Layer<SqliteClient.SqliteClient | import("@effect/sql/SqlClient").SqlClient | Provider.Provider | ScriptedProvider.ScriptedProvider | import("../src/MemoryStore.js").MemoryStore | Summarizer.Summarizer, never, never>;
/** Everything a compaction test needs, over an in-memory (or file) store. */
export declare const managerLayer: (provider?: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider>, options?: CompactionOptions.Options, filename?: string) => Layer.Layer<SqliteClient.SqliteClient | import("@effect/sql/SqlClient").SqlClient | Provider.Provider | ScriptedProvider.ScriptedProvider | import("../src/MemoryStore.js").MemoryStore | Summarizer.Summarizer | CompactionManager.CompactionManager, never, never>;
/** Yields until `condition` holds (everything here is in-process, so a few yields suffice). */
export declare const waitUntil: <E, R>(condition: Effect.Effect<boolean, E, R>) => Effect.Effect<undefined, E, R>;
/** How many requests the scripted provider received. */
export declare const requestCount: Effect.Effect<number, never, ScriptedProvider.ScriptedProvider>;
/**
 * Runs `effect` to its end under the TestClock, advancing the clock past any
 * provider timeout or delay whenever the fiber is stuck waiting on it.
 */
export declare const runPumped: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;
//# sourceMappingURL=helpers.d.ts.map