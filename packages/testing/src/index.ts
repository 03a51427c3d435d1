/**
 * @precis/testing: deterministic test services for precis and for code that uses it.
 * The store's behavioural suite, which needs `@effect/vitest`, is the module
 * `@precis/testing/StoreSuite`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Arbitraries from "./Arbitraries.js"
/** @since 0.1.0 */
export * as Fixtures from "./Fixtures.js"
/** @since 0.1.0 */
export * as Logs from "./Logs.js"
/** @since 0.1.0 */
export * as ScriptedProvider from "./ScriptedProvider.js"
/** @since 0.1.0 */
export * as StoreInvariants from "./StoreInvariants.js"
/** @since 0.1.0 */
export * as ScriptedLanguageModel from "./ScriptedLanguageModel.js"
