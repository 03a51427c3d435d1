/**
 * An MCP server on stdin and stdout that answers every line or says why it
 * cannot: `@effect/ai`'s `McpServer` behind a transport of precis's own.
 * `McpServer.layerStdio` of `@effect/ai` 0.37 stops reading at the first line
 * it cannot parse (an empty line, a line that is no JSON, a string id) and
 * never answers again. Here each line is read on its own: a line that is no
 * JSON, or longer than `maxLineBytes`, is answered with a parse error
 * (-32700), a message that is no request with -32600, params that are no
 * object or do not decode with -32602, an unknown method with -32601, and a
 * notification never; the next line is read. Ids are the client's (a string
 * or an integer), whatever the server uses inside. The server's
 * `instructions` go with the answer to `initialize`. Nothing is logged.
 *
 * @example
 * ```ts
 * import { NodeSink, NodeStream } from "@effect/platform-node"
 * import { McpStdio, McpTools, PrecisToolkit } from "@precis/recall"
 * import { Layer } from "effect"
 * const served = McpStdio.serve(
 *   McpTools.layer(PrecisToolkit.PrecisToolkit).pipe(Layer.provide(PrecisToolkit.layer)),
 *   { name: "recall", version: "1.0.0", stdin: NodeStream.stdin, stdout: NodeSink.stdout }
 * ) // runs until stdin ends, after providing a store
 * ```
 * @since 0.1.0
 */
import * as McpSchema from "@effect/ai/McpSchema"
import * as McpServer from "@effect/ai/McpServer"
import type * as RpcMessage from "@effect/rpc/RpcMessage"
import * as RpcServer from "@effect/rpc/RpcServer"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as Schema from "effect/Schema"
import type * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import * as JsonRpc from "./internal/jsonRpc.js"
import * as Lines from "./internal/lines.js"

/**
 * Where the server reads and writes, and what it says of itself.
 *
 * @since 0.1.0
 */
export interface Options<EIn, RIn, EOut, ROut> {
  readonly name: string
  readonly version: string
  /** How to use the server: sent with the answer to `initialize` (clients may add it to the model's prompt). */
  readonly instructions?: string | undefined
  readonly stdin: Stream.Stream<Uint8Array, EIn, RIn>
  readonly stdout: Sink.Sink<unknown, string, unknown, EOut, ROut>
  /** The longest line read (16 MiB by default); a longer one is answered with a parse error. */
  readonly maxLineBytes?: number | undefined
}

/**
 * The longest line read by default: 16 MiB.
 *
 * @since 0.1.0
 */
export const defaultMaxLineBytes = 16 * 1024 * 1024

const methods: JsonRpc.Methods = {
  requests: new Map(Array.from(McpSchema.ClientRequestRpcs.requests, ([tag, rpc]) => [tag, rpc.payloadSchema as Schema.Schema<unknown, unknown>])),
  notifications: new Set(McpSchema.ClientNotificationRpcs.requests.keys())
}

/** A defect or an error's message on one line. */
const oneLine = (value: unknown): string => {
  const text = Predicate.isRecord(value) && typeof value.message === "string" ? value.message : String(value)
  const line = text.split("\n")[0]!
  return line.length > 300 ? `${line.slice(0, 299)}…` : line
}

type Failure = { readonly code: number; readonly message: string }

/** What a failed request answers: the first failure of its cause (an interruption answers nothing). */
const failureOf = (cause: unknown): Failure | undefined => {
  if (!Predicate.isRecord(cause)) return undefined
  switch (cause._tag) {
    case "Fail": {
      const error = cause.error
      return Predicate.isRecord(error) && typeof error.code === "number" && typeof error.message === "string"
        ? { code: error.code, message: error.message }
        : { code: JsonRpc.ErrorCode.internal, message: `internal error: ${oneLine(error)}` }
    }
    case "Die":
      return { code: JsonRpc.ErrorCode.internal, message: `internal error: ${oneLine(cause.defect)}` }
    case "Sequential":
    case "Parallel":
      return failureOf(cause.left) ?? failureOf(cause.right)
    default:
      return undefined
  }
}

interface Pending {
  readonly id: JsonRpc.Id
  readonly method: string
}

/** The transport: lines from `stdin` to the server, its answers as lines to `output`; `closed` once stdin ended and all is answered. */
const protocol = <EIn, RIn>(
  options: Options<EIn, RIn, unknown, unknown>,
  output: Mailbox.Mailbox<string>,
  closed: Deferred.Deferred<void>
) =>
  RpcServer.Protocol.make((writeRequest) =>
    Effect.gen(function*() {
      const pending = new Map<string, Pending>()
      let next = 0
      let ended = false
      const checkClosed = Effect.suspend(() => ended && pending.size === 0 ? Deferred.succeed(closed, undefined) : Effect.void)
      const request = (tag: string, id: string, payload: unknown) =>
        writeRequest(0, { _tag: "Request", id, tag, payload, headers: [] })
      const handle = (message: JsonRpc.Message): Effect.Effect<void> => {
        switch (message._tag) {
          case "Refused":
            return output.offer(JsonRpc.errorLine(message.id, message.code, message.message))
          case "Ignored":
            return Effect.void
          case "Notification": {
            if (message.method !== "notifications/cancelled") return request(message.method, "", message.params)
            const cancelled = Predicate.isRecord(message.params) ? message.params.requestId : undefined
            const inner = [...pending].find(([, at]) => at.id === cancelled)?.[0]
            return inner === undefined ? Effect.void : request(message.method, "", { ...message.params as object, requestId: inner })
          }
          case "Request": {
            const inner = String(++next)
            pending.set(inner, { id: message.id, method: message.method })
            return request(message.method, inner, message.params)
          }
        }
      }
      const maxBytes = options.maxLineBytes ?? defaultMaxLineBytes
      yield* Lines.frames(options.stdin, maxBytes).pipe(
        Stream.runForEach((frame) => handle(JsonRpc.read(frame, methods, maxBytes))),
        Effect.ignore,
        Effect.zipRight(Effect.suspend(() => {
          ended = true
          return checkClosed
        })),
        Effect.forkScoped
      )
      const answer = (response: RpcMessage.ResponseExitEncoded): Effect.Effect<void> => {
        const at = pending.get(response.requestId)
        if (at === undefined) return Effect.void
        pending.delete(response.requestId)
        const exit = response.exit
        const line = exit._tag === "Success"
          ? JsonRpc.resultLine(
            at.id,
            at.method === "initialize" && options.instructions !== undefined && Predicate.isRecord(exit.value)
              ? { ...exit.value, instructions: options.instructions }
              : exit.value
          )
          : Option.match(Option.fromNullable(failureOf(exit.cause)), {
            onNone: () => undefined,
            onSome: (failure) => JsonRpc.errorLine(at.id, failure.code, failure.message)
          })
        return Effect.zipRight(line === undefined ? Effect.void : output.offer(line), checkClosed)
      }
      return {
        disconnects: yield* Mailbox.make<number>(),
        send: (_clientId: number, response: RpcMessage.FromServerEncoded) => {
          // The server's notifications to the client go through here too, as requests without an id.
          const sent = response as RpcMessage.FromServerEncoded | RpcMessage.RequestEncoded
          switch (sent._tag) {
            case "Exit":
              return answer(sent)
            case "Defect":
              return output.offer(JsonRpc.errorLine(null, JsonRpc.ErrorCode.internal, `internal error: ${oneLine(sent.defect)}`))
            case "Request":
              return sent.id === "" || sent.id === undefined
                ? output.offer(JsonRpc.notificationLine(sent.tag, sent.payload))
                : Effect.void
            default:
              return Effect.void
          }
        },
        end: () => Effect.void,
        clientIds: Effect.succeed(new Set([0])),
        initialMessage: Effect.succeedNone,
        supportsAck: false,
        supportsTransferables: false,
        supportsSpanPropagation: false
      }
    })
  )

/**
 * Serves `tools` (a layer over the `McpServer`, as `McpTools.layer` makes)
 * on `options.stdin` and `options.stdout`, until stdin ends and every
 * request read is answered.
 *
 * @since 0.1.0
 */
export const serve = <E, R, EIn, RIn, EOut, ROut>(
  tools: Layer.Layer<never, E, R>,
  options: Options<EIn, RIn, EOut, ROut>
): Effect.Effect<void, E, Exclude<R, McpServer.McpServer | McpSchema.McpServerClient> | RIn | ROut> =>
  Effect.gen(function*() {
    const closed = yield* Deferred.make<void>()
    const output = yield* Mailbox.make<string>()
    const writer = yield* Mailbox.toStream(output).pipe(Stream.run(options.stdout), Effect.ignore, Effect.fork)
    const transport = yield* protocol(options, output, closed)
    yield* Layer.build(
      tools.pipe(
        Layer.provide(McpServer.layer({ name: options.name, version: options.version })),
        Layer.provide(Layer.succeed(RpcServer.Protocol, transport))
      )
    )
    yield* Deferred.await(closed)
    yield* output.end
    yield* Fiber.join(writer)
  }).pipe(
    Effect.scoped,
    // The default loggers write to stdout, which is the client's.
    Effect.provide(Layer.mergeAll(Logger.remove(Logger.defaultLogger), Logger.remove(Logger.prettyLoggerDefault)))
  )
