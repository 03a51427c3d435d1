/**
 * `precis uninstall AGENT`: the command is defined beside
 * `precis install AGENT` (`install.ts`), whose settings files and edits it
 * shares; this module is its entry in the registry.
 *
 * @internal
 */
import { uninstall } from "./install.js"

/** One line for the root page and the README. */
export const summary = "Take out of an agent's settings exactly what precis install added"

/** The `uninstall` command. */
export const command = uninstall
