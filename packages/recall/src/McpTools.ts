/**
 * A toolkit served by `@effect/ai`'s `McpServer`, with results as MCP
 * clients check them. `McpServer.toolkit` of `@effect/ai` 0.37 sends every
 * object result as `structuredContent`, an array included (`search`'s hits),
 * which the MCP schema refuses (it must be an object: the official SDK's
 * client throws on it), and reports a tool's own failure (`failureMode:
 * "return"`, a `RecallError`) with `isError: false`. {@link register} sends
 * the JSON text always, `structuredContent` only for an object, and
 * `isError: true` for a failure, the tool's or the arguments' (which never
 * reach a handler: their decoding error is the result).
 *
 * @example
 * ```ts
 * import { McpServer } from "@effect/ai"
 * import { NodeSink, NodeStream } from "@effect/platform-node"
 * import { McpTools, PrecisToolkit } from "@precis/recall"
 * import { Layer } from "effect"
 * const Server = McpTools.layer(PrecisToolkit.PrecisToolkit).pipe(
 *   Layer.provide(PrecisToolkit.layer),
 *   Layer.provide(McpServer.layerStdio({ name: "recall", version: "1.0.0", stdin: NodeStream.stdin, stdout: NodeSink.stdout }))
 * ) // Layer.launch(Server) after providing a store
 * ```
 * @since 0.1.0
 */
import * as McpSchema from "@effect/ai/McpSchema"
import * as McpServer from "@effect/ai/McpServer"
import * as Tool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import { SchemaIssue } from "@precis/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as JSONSchema from "effect/JSONSchema"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/** A tool's parameters as the JSON Schema MCP lists (an object schema, definitions inline in `$defs`). */
const inputSchema = (schema: Schema.Schema.Any): McpSchema.Tool["inputSchema"] => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const json = JSONSchema.fromAST(schema.ast, { definitions, topLevelReferenceStrategy: "skip" })
  return Object.keys(definitions).length === 0 ? json : { ...json, $defs: definitions }
}

/** What a failure says: arguments that do not decode in one sentence, else the error's description or message. */
const failureText = (error: unknown): string => {
  if (!Predicate.isRecord(error)) return String(error)
  const cause = error.cause
  if (ParseResult.isParseError(cause)) return `invalid arguments: ${SchemaIssue.sentence(cause, "the arguments")}`
  const what = typeof error.description === "string"
    ? error.description
    : typeof error.message === "string" && error.message.length > 0
    ? error.message
    : JSON.stringify(error)
  return what
}

/** An MCP tool result: the JSON text, the object itself as `structuredContent` (never an array). */
const result = (value: unknown, isError: boolean): McpSchema.CallToolResult =>
  new McpSchema.CallToolResult({
    isError,
    content: [{ type: "text", text: isError ? failureText(value) : JSON.stringify(value) }],
    ...(Predicate.isRecord(value) && !isError ? { structuredContent: value } : {})
  })

/** Registers each tool of `toolkit`, its calls answered by the handlers `handlers` gives at each call. */
const registerWith = <Tools extends Record<string, Tool.Any>, E, R>(
  toolkit: Toolkit.Toolkit<Tools>,
  handlers: Effect.Effect<Toolkit.WithHandler<Tools>, E, R>
): Effect.Effect<void, never, McpServer.McpServer | R> =>
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const context = yield* Effect.context<R>()
    for (const [name, tool] of Object.entries(toolkit.tools)) {
      yield* server.addTool({
        tool: new McpSchema.Tool({
          name,
          description: tool.description,
          inputSchema: inputSchema(tool.parametersSchema),
          annotations: new McpSchema.ToolAnnotations({
            readOnlyHint: Context.get(tool.annotations, Tool.Readonly),
            destructiveHint: Context.get(tool.annotations, Tool.Destructive),
            idempotentHint: Context.get(tool.annotations, Tool.Idempotent),
            openWorldHint: Context.get(tool.annotations, Tool.OpenWorld)
          })
        }),
        handle: (payload) =>
          handlers.pipe(
            Effect.flatMap((built) => built.handle(name as keyof Tools & string, payload as never)),
            Effect.provide(context),
            Effect.match({
              onFailure: (error) => result(error, true),
              onSuccess: (handled) => result(handled.encodedResult, handled.isFailure)
            })
          )
      })
    }
  })

/**
 * Registers each tool of `toolkit` with the `McpServer` in context, its
 * handler taken from the context (`Toolkit.toLayer`'s handlers).
 *
 * @since 0.1.0
 */
export const register = <Tools extends Record<string, Tool.Any>>(
  toolkit: Toolkit.Toolkit<Tools>
): Effect.Effect<void, never, McpServer.McpServer | Tool.HandlersFor<Tools>> =>
  Effect.flatMap(toolkit, (built) => registerWith(toolkit, Effect.succeed(built)))

/**
 * {@link register} as a layer, over the `McpServer` and the handlers it is given.
 *
 * @since 0.1.0
 */
export const layer = <Tools extends Record<string, Tool.Any>>(
  toolkit: Toolkit.Toolkit<Tools>
): Layer.Layer<never, never, McpServer.McpServer | Tool.HandlersFor<Tools>> => Layer.effectDiscard(register(toolkit))

/**
 * The tools of `toolkit` over handlers that `open` gives at each call (a
 * store that may not exist yet, or may not open): when `open` fails, the
 * call's result is its error's message (`isError: true`), and the next
 * call tries again. Cache in `open` what should be opened once.
 *
 * @since 0.1.0
 */
export const layerOpening = <Tools extends Record<string, Tool.Any>, E, R>(
  toolkit: Toolkit.Toolkit<Tools>,
  open: Effect.Effect<Context.Context<Tool.HandlersFor<Tools>>, E, R>
): Layer.Layer<never, never, McpServer.McpServer | R> =>
  Layer.effectDiscard(registerWith(toolkit, Effect.flatMap(open, (handlers) => Effect.provide(toolkit, handlers))))
