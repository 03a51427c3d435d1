/**
 * The CLI's version, for `--version` and for what `precis mcp` tells its clients.
 *
 * @internal
 */
export const version = "0.1.0"
