/**
 * @precis/cli: the `precis` command.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Cli from "./Cli.js"
