/**
 * @precis/provider-ai: precis's `Provider` and `TokenEstimator` from `@effect/ai`'s
 * `LanguageModel` and `Tokenizer`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AiProvider from "./AiProvider.js"
/** @since 0.1.0 */
export * as AiTokenEstimator from "./AiTokenEstimator.js"
