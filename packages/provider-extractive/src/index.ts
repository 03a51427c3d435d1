/**
 * @precis/provider-extractive: the embedded, offline, deterministic extractive provider.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as ExtractiveProvider from "./ExtractiveProvider.js"
