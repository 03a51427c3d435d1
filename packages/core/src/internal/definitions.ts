/**
 * The names a text defines (a file written or read), for the material's
 * action lines: `Write lib/foo.ex (42 lines; defines: Foo.bar)`.
 *
 * @internal
 */

const DEFINITION =
  /^\s*(?:export\s+(?:default\s+)?)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:abstract\s+)?(?:defmodule|defprotocol|defimpl|defmacrop?|defp|def|defstruct|defguardp?|defdelegate|function\*?|class|interface|enum|struct|trait|fn|func|module|impl)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$.?!]*)/
// Constants and types count only at the top level or when exported.
const TOP_LEVEL = /^(?:export\s+(?:default\s+)?)?(?:const|let|var|type)\s+([A-Za-z_$][\w$]*)/

/**
 * The names `text` defines, in order, deduplicated: modules, functions,
 * classes, interfaces, types and top-level constants, by simple per-language
 * patterns (Elixir, JavaScript/TypeScript, Python, Rust, Go, Ruby).
 *
 * @example
 * ```ts
 * import { Material } from "@precis/core"
 * Material.definitions("defmodule Foo do\n  def bar(x), do: x\nend") // ["Foo", "bar"]
 * ```
 * @internal
 */
export const definitions = (text: string): Array<string> => {
  const names = new Set<string>()
  for (const line of text.split("\n")) {
    const match = DEFINITION.exec(line) ?? TOP_LEVEL.exec(line)
    if (match !== null) names.add(match[1]!)
  }
  return [...names]
}

const MAX_NAMES = 8

/** Names joined by commas, at most eight, then how many more. */
export const nameList = (names: ReadonlyArray<string>): string =>
  names.length <= MAX_NAMES
    ? names.join(", ")
    : `${names.slice(0, MAX_NAMES).join(", ")} +${names.length - MAX_NAMES} more`
