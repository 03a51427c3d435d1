/**
 * What of an agent's reasoning (its `[thinking]` text) a summary reads: the
 * lines of a plan and the sentences that carry a decision or a cause. The rest
 * ("Let me check the test helper.", "Now I have a clear picture.") is the
 * agent talking to itself.
 *
 * @internal
 */

/** The mark importers put in front of reasoning text. */
export const THINKING = "[thinking]"

// A decision, a choice between ways, or the cause of a problem.
const DECISION =
  /\b(?:decid\w*|decision|instead(?: of)?|rather than|cho(?:se|ose|osing)|go(?:ing)? with|approach|the plan is|root cause|caused by|because|trade-?off|better to|simpler to|(?:I'll|we'll|should|will) use|the (?:fix|cause|issue|problem|bug|reason|culprit) (?:is|was)|(?:is|was) (?:failing|broken) because)\b/i
// A line of a plan: a numbered or bulleted item.
const PLAN_ITEM = /^\s*(?:\d{1,2}[.)]|[-*•])\s+\S/
const SENTENCE_END = /(?<=[.!?])\s+(?=[A-Z`*"'(])/

/**
 * The lines and sentences of reasoning `text` (without its mark) that carry a
 * decision or belong to a plan, in order; sentences kept from one line are
 * joined by ` … `. `""` when none does.
 */
export const decisions = (text: string): string => {
  const kept: Array<string> = []
  for (const line of text.split("\n")) {
    if (line.trim().length === 0) continue
    if (PLAN_ITEM.test(line)) {
      kept.push(line.trimEnd())
      continue
    }
    const sentences = line.trim().split(SENTENCE_END).filter((s) => DECISION.test(s))
    if (sentences.length > 0) kept.push(sentences.join(" … "))
  }
  return kept.join("\n")
}

/**
 * A turn's text with its reasoning cut to {@link decisions}: a text that opens
 * with the mark keeps the mark and what carries a decision, or nothing.
 */
export const keepDecisions = (content: string): string => {
  if (!content.startsWith(THINKING)) return content
  const kept = decisions(content.slice(THINKING.length))
  return kept.length === 0 ? "" : `${THINKING} ${kept}`
}
