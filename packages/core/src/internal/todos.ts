/**
 * Repeated todo lists among a run of turns: the newest kept once.
 *
 * @internal
 */
import * as ToolKind from "../ToolKind.js"
import * as ToolUse from "../ToolUse.js"

/** What an agent's todo list is written as when a later list among the same turns holds all its items. */
export const supersededTodo = "Todo: (updated below)"

/** The key of the `call`th call of the `turn`th turn. */
export const todoKey = (turn: number, call: number): string => `${turn}/${call}`

/**
 * The todo calls among `turns` (by {@link todoKey}) whose every item a later
 * todo call lists again (its marks may differ): the newest list says the
 * same, and more.
 */
export const supersededTodos = (turns: ReadonlyArray<Parameters<typeof ToolUse.calls>[0]>): Set<string> => {
  const lists: Array<{ readonly key: string; readonly items: ReadonlySet<string> }> = []
  turns.forEach((turn, i) =>
    ToolUse.calls(turn).forEach((call, j) => {
      const items = ToolKind.kindOf(call) === "todo" ? ToolKind.todoItems(call.input) : undefined
      if (items !== undefined && items.length > 0) lists.push({ key: todoKey(i, j), items: new Set(items.map((item) => item.text)) })
    })
  )
  const out = new Set<string>()
  lists.forEach(({ items, key }, i) => {
    if (lists.slice(i + 1).some((later) => [...items].every((item) => later.items.has(item)))) out.add(key)
  })
  return out
}
