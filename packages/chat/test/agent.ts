/**
 * A small coding agent for the tests: three tools, a loop that calls the model
 * until it stops calling tools, and the chat stack over SQLite with the
 * extractive summarizer.
 */
import * as Chat from "@effect/ai/Chat"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { CompactionOptions } from "@precis/compaction"
import type { ContextError } from "@precis/context"
import type { PrecisToolkit } from "@precis/recall"
import type { Store, StoreError } from "@precis/store"
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { SqliteStore } from "@precis/store-sqlite"
import { ScriptedLanguageModel as Scripted } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as PrecisChat from "../src/PrecisChat.js"

/** Reads a file: `lines` lines of it. */
export const ReadFile = Tool.make("read_file", {
  parameters: { path: Schema.String, lines: Schema.Int },
  success: Schema.String
})

/** Runs a command: its exit code and output. */
export const RunCommand = Tool.make("run_command", {
  parameters: { command: Schema.String, lines: Schema.Int },
  success: Schema.Struct({ exitCode: Schema.Int, output: Schema.String })
})

/** Edits a file. */
export const EditFile = Tool.make("edit_file", {
  parameters: { path: Schema.String, old_string: Schema.String, new_string: Schema.String },
  success: Schema.String
})

/** The agent's toolkit. */
export const AgentTools = Toolkit.make(ReadFile, RunCommand, EditFile)

/** The tools' handlers: deterministic output of the size asked. */
export const AgentToolsLive = AgentTools.toLayer({
  read_file: ({ lines, path }) =>
    Effect.succeed(Array.from({ length: lines }, (_, i) => `${i + 1}\texport const v${i} = "${path}:${i}"`).join("\n")),
  run_command: ({ command, lines }) =>
    Effect.succeed({
      exitCode: lines % 3 === 0 ? 1 : 0,
      output: Array.from({ length: lines }, (_, i) => `${command}: line ${i}${i === lines - 1 && lines % 3 === 0 ? " Error: failed" : ""}`)
        .join("\n")
    }),
  edit_file: ({ path }) => Effect.succeed(`edited ${path}`)
})

/** A tool call of the script, by kind, with an output of `lines` lines. */
export const call = (kind: 0 | 1 | 2, n: number, lines: number): Scripted.ToolCall =>
  kind === 0
    ? { name: "read_file", params: { path: `src/module${n % 7}.ts`, lines } }
    : kind === 1
    ? { name: "run_command", params: { command: `npm test -- module${n % 7}`, lines } }
    : { name: "edit_file", params: { path: `src/module${n % 7}.ts`, old_string: `v${n}`, new_string: `w${n}` } }

/** The agent's toolkit with precis's recall tools. */
export const Tools: Toolkit.Toolkit<Toolkit.MergedTools<[typeof AgentTools, typeof PrecisToolkit.PrecisToolkit]>> =
  PrecisChat.withRecall(AgentTools)

/** A response of the agent's model. */
export type AgentResponse = LanguageModel.GenerateTextResponse<Toolkit.Tools<typeof Tools>>

/**
 * One task of the agent: the prompt, then as many requests as the model calls
 * tools (each with an empty prompt: the tool results are already in the chat),
 * until it answers without a tool call. The responses, in order.
 */
export const task = (
  chat: Chat.Service,
  prompt: string
): Effect.Effect<
  Array<AgentResponse>,
  unknown,
  LanguageModel.LanguageModel | Tool.HandlersFor<Toolkit.Tools<typeof Tools>>
> =>
  Effect.gen(function*() {
    const responses: Array<AgentResponse> = []
    let response = yield* chat.generateText({ prompt, toolkit: Tools })
    responses.push(response)
    while (response.toolCalls.length > 0) {
      response = yield* chat.generateText({ prompt: [], toolkit: Tools })
      responses.push(response)
    }
    return responses
  })

/** The chat options of the tests: a small budget, small leaves. */
export const options: PrecisChat.LayerOptions = {
  budget: 2_500,
  compactionDefaults: { freshTailTurns: 6, leafChunkTokens: 400 }
}

/** The chat stack over the SQLite file `filename` (`:memory:` by default), the store kept in the output. */
export const stack = (
  filename = ":memory:",
  chatOptions: PrecisChat.LayerOptions = options
): Layer.Layer<
  | PrecisChat.PrecisChats
  | Chat.Persistence
  | PrecisChat.RecallHandlers
  | Tool.HandlersFor<typeof AgentTools.tools>
  | Store.Store
  | SqlClient.SqlClient,
  PrecisChat.InvalidChatOptionsError | ContextError.InvalidContextOptionsError | CompactionOptions.InvalidOptionsError | StoreError.StoreError
> =>
  PrecisChat.layer(chatOptions).pipe(
    Layer.provide(ExtractiveProvider.layer()),
    Layer.provideMerge(SqliteStore.layer({ filename })),
    Layer.merge(AgentToolsLive)
  )

/** The chat `chatId` of the stack in context. */
export const chatOf = PrecisChat.getOrCreate
