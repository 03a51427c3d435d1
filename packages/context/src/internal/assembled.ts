/**
 * What the Assembler returns, apart from the service so that the frame
 * that builds it and the service that returns it both import it.
 *
 * @internal
 */
import type { ConversationTurn } from "@precis/core"
import type * as Condenser from "../Condenser.js"
import type * as Layout from "../Layout.js"

/**
 * An assembled context: its blocks as `Layout` lays them out (the `system`
 * text, the `pinned` first request, the summaries, the session-state
 * `header` placed by `statePlacement`, the turns), what it takes as sent
 * (`tokens`: the estimate of `Layout.render` of it, never over the budget),
 * the tokens it shares as a prefix with the previous assembly of the session
 * (`sharedTokens`), the index among `Layout.blocks` of the last block that
 * will not change before the next rebuild (`breakpoint`), whether this
 * assembly rebuilt the context (`rebuilt`: its start changed), and the
 * rebuild's per-stage `report`.
 *
 * @internal
 */
export interface Assembled extends Condenser.Condensed, Layout.Renderable {
  readonly sessionId: string
  readonly system: string
  readonly pinned: ReadonlyArray<ConversationTurn.ConversationTurn>
  /** The session-state header (`""` when off or empty). */
  readonly header: string
  readonly headerTokens: number
  readonly statePlacement: Layout.StatePlacement
  /** Whether the summaries are followed by `Layout.recallNote` (in `render`, `toMessages` and the Prompt). */
  readonly recallNote: boolean
  readonly sharedTokens: number
  readonly breakpoint: number
  readonly rebuilt: boolean
}
