/**
 * An `@effect/ai` coding agent whose chat is precis's: three tools (read a
 * file, run a command, edit a file), a scripted model that reads, tests,
 * fixes and tests again for each task, 500 model turns. The chat comes from
 * `Chat.Persistence`, provided by `PrecisChat.layer`: every message is stored
 * as turns and each request sends the assembled context within the budget.
 * Every 50 turns it prints the tokens sent in those 50 requests and the part
 * of them that repeats the previous request's start (what a prompt cache
 * bills at a fraction), the largest request, and so far the times the start
 * changed and the compactions. Offline (extractive
 * summarizer), in memory. Run with `pnpm example:agent`.
 */
import { Tool, Toolkit } from "@effect/ai"
import { PrecisChat } from "@precis/chat"
import { type Assembler, Layout } from "@precis/context"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { TokenEstimator, Transcript } from "@precis/core"
import { DagStore, TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import { ScriptedLanguageModel as Model } from "@precis/testing"
import { Console, Effect, Layer, Option, Schema } from "effect"

const budget = 16_000
const turns = 500

const ReadFile = Tool.make("read_file", { parameters: { path: Schema.String }, success: Schema.String })
const RunCommand = Tool.make("run_command", {
  parameters: { command: Schema.String },
  success: Schema.Struct({ exitCode: Schema.Int, output: Schema.String })
})
const EditFile = Tool.make("edit_file", {
  parameters: { path: Schema.String, old_string: Schema.String, new_string: Schema.String },
  success: Schema.String
})
const AgentTools = Toolkit.make(ReadFile, RunCommand, EditFile)

// A repository of 40 modules; the tests of a module fail until it has been edited.
const edited = new Set<string>()
const moduleOf = (text: string) => /module\d+/.exec(text)?.[0] ?? "module0"
const ToolsLive = AgentTools.toLayer({
  read_file: ({ path }) =>
    Effect.succeed(Array.from({ length: 120 }, (_, i) => `${i + 1}\texport const ${moduleOf(path)}_${i} = compute(${i})`).join("\n")),
  run_command: ({ command }) =>
    Effect.succeed(
      edited.has(moduleOf(command))
        ? { exitCode: 0, output: `${Array.from({ length: 30 }, (_, i) => `  ✓ ${moduleOf(command)} case ${i}`).join("\n")}\n30 passed` }
        : {
          exitCode: 1,
          output: `${Array.from({ length: 40 }, (_, i) => `  ✓ ${moduleOf(command)} case ${i}`).join("\n")}\n` +
            `  ✗ ${moduleOf(command)} case 40\nTypeError: cannot read 'id' of undefined (src/${moduleOf(command)}.ts:41)`
        }
    ),
  edit_file: ({ path }) => Effect.sync(() => edited.add(moduleOf(path))).pipe(Effect.as(`edited ${path}`))
})

// What the model does for task t: read, test, fix, test again, report.
const script = (tasks: number) =>
  Array.from({ length: tasks }, (_, t) => {
    const module = `module${t % 40}`
    return [
      Model.toolCalls([{ name: "read_file", params: { path: `src/${module}.ts` } }], `Reading src/${module}.ts.`),
      Model.toolCalls([{ name: "run_command", params: { command: `npm test -- ${module}` } }]),
      Model.toolCalls(
        [{ name: "edit_file", params: { path: `src/${module}.ts`, old_string: "user.id", new_string: "user?.id" } }],
        "The test reads user.id before the user is loaded; guarding it."
      ),
      Model.toolCalls([{ name: "run_command", params: { command: `npm test -- ${module}` } }]),
      Model.text(`Task ${t} done: src/${module}.ts guards user?.id, its 30 tests pass.`)
    ]
  }).flat()

// The one layer that gives the agent precis, over a summarizer and a store.
const ChatLive = PrecisChat.layer({ budget }).pipe(
  Layer.provide(ExtractiveProvider.layer()),
  Layer.provideMerge(SqliteStore.layer({ filename: ":memory:" }))
)

const Tools = PrecisChat.withRecall(AgentTools)

const program = Effect.gen(function*() {
  const chat = yield* Effect.flatMap(PrecisChat.PrecisChats, (chats) => chats.getOrCreate("agent"))
  const dag = yield* DagStore.DagStore
  let turn = 0
  let compactions = 0
  let summaries = 0
  let sent = 0
  let shared = 0
  let largest = 0
  let prefixChanges = 0
  let previous: Assembler.Assembled | undefined
  const window = { sent: 0, shared: 0 }
  const row = (...cells: ReadonlyArray<string | number>) =>
    Console.log(cells.map((cell, i) => String(cell).padStart([5, 12, 22, 9, 15, 12][i]!)).join(" |"))
  yield* row("turn", "tokens sent", "shared with previous", "largest", "prefix changes", "compactions")
  for (let task = 0; turn < turns; task++) {
    let prompt: string | ReadonlyArray<never> = `Task ${task}: the tests of src/module${task % 40}.ts fail; fix them.`
    let response
    do {
      response = yield* chat.generateText({ prompt, toolkit: Tools })
      prompt = []
      turn++
      const request = Option.getOrThrow(yield* chat.lastRequest)
      const now = (yield* dag.summaries("agent")).length
      if (now > summaries) compactions++
      summaries = now
      sent += request.tokens
      shared += request.sharedTokens
      largest = Math.max(largest, request.tokens)
      if (previous !== undefined && !Layout.render(request).startsWith(Layout.renderStable(previous))) prefixChanges++
      previous = request
      window.sent += request.tokens
      window.shared += request.sharedTokens
      if (turn % 50 === 0) {
        const share = `${window.shared} (${(100 * window.shared / window.sent).toFixed(1)}%)`
        yield* row(turn, window.sent, share, largest, prefixChanges, compactions)
        window.sent = 0
        window.shared = 0
      }
    } while (response.toolCalls.length > 0 && turn < turns)
  }
  const stored = yield* Effect.flatMap(TurnStore.TurnStore, (store) => store.turns("agent"))
  const whole = TokenEstimator.approximate.estimate(stored.map(Transcript.formatTurn).join("\n"))
  yield* Console.log(
    `${turn} turns (${stored.length} stored turns, ${whole} tokens as a transcript): ${sent} tokens sent, ${shared} (${(100 * shared / sent).toFixed(1)}%) of them a prefix shared with ` +
      `the previous request, largest request ${largest} of a ${budget}-token budget, the prefix changed ` +
      `${prefixChanges} times, ${compactions} compactions, ${summaries} summaries`
  )
})

program.pipe(
  Effect.provide(Layer.mergeAll(ChatLive, ToolsLive, Model.layer(script(Math.ceil(turns / 5))))),
  Effect.runPromise
)
