/**
 * `precis mcp`: the recall tools over MCP on stdin/stdout, for Claude Code
 * or any MCP client: `search`, `expand`, `describe` and `context` (the
 * toolkit `ContextTool.WithContext` of `@precis/recall`), served by
 * `@effect/ai`'s `McpServer` (the tools registered by `McpTools`). Read-only: the store is opened read-only, and
 * the session state the `context` tool folds is never saved. A store that
 * does not exist yet (the Claude Code hooks create it at the first
 * compaction) is no reason to stop: every tool call then answers that it is
 * missing and how to make it. Runs until the client closes stdin.
 *
 * @internal
 */
import * as McpServer from "@effect/ai/McpServer"
import * as Command from "@effect/cli/Command"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { ContextTool, McpTools, PrecisToolkit } from "@precis/recall"
import type { StoreError } from "@precis/store"
import type * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { storeOf } from "../internal/claudeCode.js"
import { type CliError, inStore } from "../internal/errors.js"
import { exists } from "../internal/input.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { withVerbosity } from "../internal/output.js"
import { version } from "../internal/version.js"

/** What `mcp` fails with: each is printed as one line. */
export type Failure =
  | CliError
  | ConfigError.ConfigError
  | StoreError.StoreError

/** The handlers over the store `db`, opened read-only (the context tool's Assembler is read-only too). */
const handlers = (db: Layers.Db) => ContextTool.layer.pipe(Layer.provide(Layers.readStore(db)))

/** Handlers that answer every call with what is missing. */
const missingStore = (db: Layers.Db) => {
  const missing = () =>
    Effect.fail(
      new PrecisToolkit.RecallError({
        message: `no precis store at ${db} yet: it is created when Claude Code first compacts a session with the ` +
          "precis hooks installed (precis install claude-code), or by precis import FILE --db " + db
      })
    )
  return ContextTool.WithContext.toLayer({
    search: missing,
    expand: missing,
    describe: missing,
    read: missing,
    recent: missing,
    context: missing
  })
}

/** One line for the root page and the README. */
export const summary = "Serve the recall tools (search, expand, describe, read, recent, context) over MCP on stdio"

/** The `mcp` command. */
export const command = Command.make(
  "mcp",
  { db: Opt.agentDb, verbose: Opt.verbose },
  (args) =>
    Effect.gen(function*() {
      const db = new Layers.Db(yield* storeOf(args.db))
      const present = db.isUrl || (yield* exists(db.path))
      if (!present) yield* Console.error(`precis: no store at ${db} yet: every tool call will say so`)
      const server = McpTools.layer(ContextTool.WithContext).pipe(
        Layer.provide(present ? handlers(db) : missingStore(db)),
        Layer.provide(McpServer.layerStdio({ name: "precis", version, stdin: NodeStream.stdin, stdout: NodeSink.stdout }))
      )
      yield* Layer.launch(server).pipe(inStore(db))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Serve the recall tools over MCP on stdin and stdout, for Claude Code or any MCP client: search (full-text " +
      "over turns and summaries), expand (a summary's children or turns, paged), describe (a session's summary " +
      "DAG), read (a turn by its cited id), recent (a project's sessions, the most recent first, with their " +
      "outcome; search takes a project too) and context (a session's context within a budget: summaries, " +
      "session-state header, recent turns). " +
      "Read-only. precis install claude-code registers it with Claude Code."
  )
)
