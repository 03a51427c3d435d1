/**
 * `precis show`: a session's summary DAG as a tree, a Mermaid or DOT diagram, or JSON.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Diagram from "../internal/diagram.js"
import { inStore, reported } from "../internal/errors.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { printJson, withVerbosity } from "../internal/output.js"
import * as Render from "../internal/render.js"
import * as Session from "../internal/session.js"

/** What `show` does, in one line (the root page and the README list it). */
export const summary = "Print a session's summary DAG as a tree, a diagram or JSON"

/** The `show` command. */
export const command = Command.make(
  "show",
  { db: Opt.db, session: Opt.storeSession, format: Opt.diagramFormat, json: Opt.json, verbose: Opt.verbose },
  (args) =>
    Effect.gen(function*() {
      yield* Session.requireStore(args.db)
      yield* Effect.gen(function*() {
        const sessionId = yield* Session.resolve(args.db, args.session)
        const dag = yield* Session.dagLines(sessionId)
        if (args.json) return yield* printJson({ session: sessionId, nodes: dag.summaries.map(Render.dagNode) })
        yield* Console.log(
          args.format === "text" ? dag.lines.join("\n") : Diagram.render(args.format, sessionId, dag.summaries)
        )
      }).pipe(Effect.provide(Layers.readStore(args.db)), inStore(args.db))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Print a session's summary DAG as a tree: depth, tier, token estimate, time range and id of each node. " +
      "--format mermaid or dot prints it as a diagram (a Mermaid flowchart for Markdown, a Graphviz digraph). " +
      "--json gives { session, nodes: [{ id, depth, tier, parentId, tokenEstimate, timeRangeStart, " +
      "timeRangeEnd, children }] }."
  ),
  reported
)
