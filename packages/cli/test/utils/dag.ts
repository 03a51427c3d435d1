/**
 * Summary records for the tests of what renders the DAG (the text tree, the diagrams).
 */
import type { SummaryRecord } from "@precis/core"
import { Fixtures } from "@precis/testing"

/** A depth-0 summary of five minutes, with a parent when given. */
export const leaf = (id: string, parentId?: string): SummaryRecord.SummaryRecord =>
  Fixtures.summary({
    id,
    depth: 0,
    content: `leaf ${id}`,
    tier: "normal",
    tokenEstimate: 10,
    timeRangeStart: "2025-01-01T00:00:00Z",
    timeRangeEnd: "2025-01-01T00:05:00Z",
    ...(parentId === undefined ? {} : { parentId })
  })
