/**
 * One reusable checker of the store's invariants. It reads the tables directly
 * (not through MemoryStore) and returns every violation it finds, as text.
 */
import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
export interface Expectations {
    /** The fresh tail of every run: the newest `freshTailTurns` turns of each session are uncovered. */
    readonly freshTailTurns?: number;
    /** Bounds of every condensed summary's fan-in. */
    readonly minFanIn?: number;
    readonly maxFanIn?: number;
    /** Parentless summaries per depth stay below `minFanIn` (true after a completed compaction). */
    readonly condensedFully?: boolean;
}
/** Every violated invariant, as a readable line; empty when the store is consistent. */
export declare const violations: (expect?: Expectations) => Effect.Effect<Array<string>, unknown, SqlClient.SqlClient>;
//# sourceMappingURL=invariants.d.ts.map