/**
 * OpenAssistant message trees (JSONL, one tree per line:
 * `{ message_tree_id, prompt: { message_id, text, role, rank?, replies[] } }`).
 * Each tree becomes a conversation of its own, named by its
 * `message_tree_id` (else by its 1-based position among the file's trees):
 * the prompt, then at each level the reply ranked 0 (else the best-ranked,
 * else the first). Roles `prompter` and `assistant` become `user` and
 * `assistant`; ids are the `message_id`s; the tree id is also the turns'
 * `sessionId`.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { isRecord, type Sink } from "./common.js"
import type { Format } from "./format.js"
import { badLine, type LineReader, lineReader } from "./jsonl.js"

const NODE_SHAPE = "expected message nodes with string \"message_id\", \"text\" and \"role\""

const bestReply = (replies: ReadonlyArray<unknown>): unknown => {
  let best: unknown = undefined
  let bestRank = Infinity
  for (const reply of replies) {
    const rank = isRecord(reply) && typeof reply.rank === "number" ? reply.rank : Infinity
    if (best === undefined || rank < bestRank) {
      best = reply
      bestRank = rank
    }
  }
  return best
}

const State = Schema.Struct({ trees: Schema.NonNegativeInt })

/** A reader of one OpenAssistant trees file; `saved`, what an earlier one's `save` gave, to go on after its last line. */
export const reader = (saved?: unknown): LineReader => {
  let trees = saved === undefined ? 0 : Schema.decodeUnknownSync(State)(saved).trees
  const read = lineReader((value, line, out: Sink) => {
    if (!isRecord(value) || !isRecord(value.prompt)) {
      return badLine(line, "expected a JSON object with a \"prompt\" message tree")
    }
    if (value.message_tree_id !== undefined && typeof value.message_tree_id !== "string") {
      return badLine(line, "\"message_tree_id\" must be a string when present")
    }
    const treeId = value.message_tree_id as string | undefined
    trees++
    out.startConversation(treeId ?? String(trees))
    let node: unknown = value.prompt
    while (node !== undefined) {
      if (
        !isRecord(node) || typeof node.message_id !== "string" || typeof node.text !== "string" ||
        typeof node.role !== "string"
      ) {
        return badLine(line, NODE_SHAPE)
      }
      if (node.created_date !== undefined && typeof node.created_date !== "string") {
        return badLine(line, "\"created_date\" must be a string when present")
      }
      const created = node.created_date as string | undefined
      out.add(line, {
        role: node.role === "prompter" ? "user" : node.role,
        content: node.text,
        id: node.message_id,
        timestamp: created,
        sessionId: treeId,
        metadata: typeof node.rank === "number" ? { rank: node.rank } : {}
      })
      node = Array.isArray(node.replies) && node.replies.length > 0 ? bestReply(node.replies) : undefined
    }
  })
  return { ...read, save: (): typeof State.Encoded => ({ trees }) }
}

/** OpenAssistant trees: a line with a `message_tree_id` or a `prompt` object. */
export const format = {
  name: "oasst",
  title: "OpenAssistant trees",
  lineBased: true,
  lenient: true,
  reader,
  detect: {
    claims: (probe) =>
      probe._tag === "Object"
        ? "message_tree_id" in probe.value || isRecord(probe.value.prompt)
        : probe._tag === "ObjectText" && /"message_tree_id"\s*:/.test(probe.firstLine)
  }
} as const satisfies Format<"oasst">
