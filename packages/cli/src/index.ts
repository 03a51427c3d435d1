/**
 * @precis/cli: the `precis` command and its file importers.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Cli from "./Cli.js"
/** @since 0.1.0 */
export * as Importer from "./Importer.js"
