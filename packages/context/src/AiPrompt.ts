/**
 * A context as an `@effect/ai` `Prompt`, in `Layout`'s order (one message per
 * block: the `system` text as a system message, the rest as user and
 * assistant messages, so no provider moves them), with the cache breakpoint
 * marked on the last block that will not change before the next rebuild
 * (`Assembled.breakpoint`). For Anthropic (`@effect/ai-anthropic`) the mark
 * is the message's `cacheControl` option: the request caches everything up
 * to that block, and the next request, which starts with the same blocks,
 * reads it at the cached price. Providers that cache prefixes on their own
 * (OpenAI) ignore the mark and gain from the stable order alone.
 *
 * @example
 * ```ts
 * import { LanguageModel } from "@effect/ai"
 * import { Assembler, AiPrompt } from "@precis/context"
 * import { Effect } from "effect"
 * const reply = Effect.gen(function*() {
 *   const assembled = yield* Effect.flatMap(Assembler.Assembler, (a) => a.assemble("session-1", { budget: 32_000 }))
 *   return yield* LanguageModel.generateText({ prompt: AiPrompt.toPrompt(assembled) })
 * })
 * ```
 * @since 0.1.0
 */
import * as Prompt from "@effect/ai/Prompt"
import * as Layout from "./Layout.js"

/**
 * The provider options that mark a cache breakpoint: Anthropic's ephemeral
 * `cacheControl`, as `@effect/ai-anthropic` reads it from a message.
 *
 * @since 0.1.0
 */
export const cacheBreakpoint = { anthropic: { cacheControl: { type: "ephemeral" } } } as const

/**
 * Options of {@link toPrompt}: `Layout`'s, and whether to mark the cache
 * breakpoint (default true).
 *
 * @since 0.1.0
 */
export interface PromptOptions extends Layout.RenderOptions {
  readonly cache?: boolean | undefined
}

const message = (block: Layout.Block, marked: boolean): Prompt.Message => {
  const options = marked ? cacheBreakpoint : {}
  switch (block.role) {
    case "system":
      return Prompt.makeMessage("system", { content: block.content, options })
    case "user":
      return Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: block.content })], options })
    case "assistant":
      return Prompt.makeMessage("assistant", { content: [Prompt.makePart("text", { text: block.content })], options })
  }
}

/**
 * A context (an `Assembler.Assembled`, or any `Layout.Renderable`) as a
 * Prompt: one message per `Layout.blocks` block, in that order, the block at
 * `breakpoint` (by default the last one that is not volatile) marked with
 * {@link cacheBreakpoint}.
 *
 * @since 0.1.0
 */
export const toPrompt = (
  context: Layout.Renderable & { readonly breakpoint?: number | undefined },
  options: PromptOptions = {}
): Prompt.Prompt => {
  const all = Layout.blocks(context, options)
  const at = options.cache === false ? -1 : context.breakpoint ?? Layout.lastStable(all)
  return Prompt.fromMessages(all.map((block, i) => message(block, i === at)))
}
