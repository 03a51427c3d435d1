/**
 * `precis uninstall claude-code`: the command is defined beside
 * `precis install claude-code` (`install.ts`), whose settings files and merge
 * rules it shares; this module is its entry in the registry.
 *
 * @internal
 */
import { uninstall } from "./install.js"

/** One line for the root page and the README. */
export const summary = "Take out of Claude Code's settings exactly what precis install added"

/** The `uninstall` command. */
export const command = uninstall
