/**
 * `precis mcp`: the recall tools over MCP on stdin/stdout, for Claude Code
 * or any MCP client: `search`, `expand`, `describe`, `read` and `context`
 * (the toolkit `ContextTool.WithContext` of `@precis/recall`), served by
 * `McpStdio` (every line answered, or told why not). Read-only: the store is
 * opened read-only, and the session state the `context` tool folds is never
 * saved. The store is opened at the first call that finds it: one that does
 * not exist yet (the Claude Code hooks create it at the first compaction) or
 * does not open (a server that refuses, a file that is no store) is no
 * reason to stop: the call answers why, and the next one looks again. Runs
 * until the client closes stdin.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { ContextTool, McpStdio, McpTools, PrecisToolkit } from "@precis/recall"
import * as Console from "effect/Console"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { storeOf } from "../internal/claudeCode.js"
import { reported } from "../internal/errors.js"
import { exists } from "../internal/input.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { withVerbosity } from "../internal/output.js"
import { version } from "../internal/version.js"

/** What the server tells a client about its tools (sent with the answer to `initialize`). */
const instructions = "precis keeps an agent's past sessions, turn by turn, with summaries of them (a DAG: " +
  "leaf summaries of turns, condensed summaries of summaries). describe a session (its id) to see its summaries; " +
  "search words over turns and summaries; expand a summary id to its children or turns; read a turn cited in " +
  "brackets ([d35f0cc4]) word for word; context gives a session's context within a budget. Read-only."

/**
 * The handlers over the store `db`, opened at the first call that finds it
 * and kept: until then each call fails with why (missing, or the store's
 * error), and the next call tries again.
 */
const opening = (db: Layers.Db) =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const lock = yield* Effect.makeSemaphore(1)
    const handlers = () => ContextTool.layer.pipe(Layer.provide(Layers.readStore(db)))
    let opened: Context.Context<Layer.Layer.Success<ReturnType<typeof handlers>>> | undefined
    const fail = (message: string) => Effect.fail(new PrecisToolkit.RecallError({ message }))
    const open = Effect.gen(function*() {
      if (opened !== undefined) return opened
      if (!db.isUrl && !(yield* exists(db.path))) {
        return yield* fail(
          `no precis store at ${db} yet: it is created when Claude Code first compacts a session with the ` +
            `precis hooks installed (precis install claude-code), or by precis import FILE --db ${db}`
        )
      }
      const child = yield* Scope.fork(scope, ExecutionStrategy.sequential)
      const built = yield* Layer.buildWithScope(handlers(), child).pipe(
        Effect.onError(() => Scope.close(child, Exit.void)),
        Effect.catchAll((error) => fail(error.inStore(`${db}`).message))
      )
      opened = built
      return built
    })
    return lock.withPermits(1)(open)
  })

/** One line for the root page and the README. */
export const summary = "Serve the recall tools (search, expand, describe, read, recent, context) over MCP on stdio"

/** The `mcp` command. */
export const command = Command.make(
  "mcp",
  { db: Opt.agentDb, verbose: Opt.verbose },
  (args) =>
    Effect.gen(function*() {
      const db = new Layers.Db(yield* storeOf(args.db))
      if (!db.isUrl && !(yield* exists(db.path))) yield* Console.error(`precis: no store at ${db} yet: every tool call will say so`)
      const tools = Layer.unwrapScoped(Effect.map(opening(db), (open) => McpTools.layerOpening(ContextTool.WithContext, open)))
      yield* McpStdio.serve(tools, { name: "precis", version, instructions, stdin: NodeStream.stdin, stdout: NodeSink.stdout })
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Serve the recall tools over MCP on stdin and stdout, for Claude Code or any MCP client: search (full-text " +
      "over turns and summaries), expand (a summary's children or turns, paged), describe (a session's summary " +
      "DAG), read (a turn by its cited id), recent (a project's sessions, the most recent first, with their " +
      "outcome; search takes a project too) and context (a session's context within a budget: summaries, " +
      "session-state header, recent turns). " +
      "Read-only. precis install claude-code registers it with Claude Code."
  ),
  reported
)
