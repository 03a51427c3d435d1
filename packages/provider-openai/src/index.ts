/**
 * @precis/provider-openai: a precis `Provider` for OpenAI-compatible Chat Completions servers.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as OpenAiProvider from "./OpenAiProvider.js"
