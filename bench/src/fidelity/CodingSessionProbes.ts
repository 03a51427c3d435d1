/**
 * Probe facts of `examples/coding-session.jsonl` (the whole session: it has no
 * compact boundary): fixing a PDF 500 and cent rounding in an invoicing API,
 * then adding a CSV export. A test checks every needle occurs in the session.
 *
 * @since 0.1.0
 */
import type { Probe } from "./Probe.js"

/**
 * The probes.
 *
 * @since 0.1.0
 */
export const probes: ReadonlyArray<Probe> = [
  {
    id: "task-pdf-500",
    category: "task",
    description: "bug: GET /invoices/:id/pdf returns 500 for invoices without a discount",
    needles: ["without a discount", /pdf.{0,40}500|500.{0,40}pdf/]
  },
  {
    id: "task-rounding",
    category: "task",
    description: "bug: totals off by one cent (INV-2025-0412)",
    needles: ["INV-2025-0412", /off by (one|a) cent/]
  },
  { id: "task-csv-export", category: "task", description: "feature: GET /invoices/export.csv for a date range", needles: ["export.csv"] },
  {
    id: "task-pr-description",
    category: "task",
    description: "last request: write the PR description and list the manual steps",
    needles: ["PR description", /PR:/]
  },
  {
    id: "error-label",
    category: "error",
    description: "TypeError: cannot read properties of undefined (reading 'label') in pdf.ts:16",
    needles: ["reading 'label'", "pdf.ts:16"]
  },
  { id: "error-plain-invoice", category: "error", description: "the regression test first failed: plainInvoice not imported", needles: ["plainInvoice"] },
  { id: "error-ts2339", category: "error", description: "TS2339: z.string().date() missing in the installed zod", needles: ["TS2339", /\.date\(\)/] },
  { id: "error-zod-version", category: "error", description: "node_modules has zod 3.22.4 while package.json says 3.23.8", needles: ["3.22.4"] },
  { id: "error-range", category: "error", description: "RangeError: Invalid time value in the date refinement", needles: ["Invalid time value", "RangeError"] },
  { id: "error-csv-quotes", category: "error", description: "NEEDS_QUOTES regex escaped twice (no CR/LF in the class)", needles: ["NEEDS_QUOTES"] },
  { id: "error-lint", category: "error", description: "lint: prefer-const and no-useless-escape", needles: ["prefer-const", "no-useless-escape"] },
  {
    id: "error-proxy-cache",
    category: "error",
    description: "a stale CSV came from the dev proxy, which caches GETs for 60 s",
    needles: [/proxy.{0,40}cach|cach.{0,40}proxy/]
  },
  {
    id: "decision-cents",
    category: "decision",
    description: "totals computed in integer cents",
    needles: ["integer cents", /in cents/]
  },
  { id: "decision-half-up", category: "decision", description: "the accounting rule: round half up per line, discount and tax", needles: [/half.up/] },
  { id: "decision-money-helper", category: "decision", description: "reuse the Cents helper of src/domain/money.ts", needles: ["money.ts"] },
  {
    id: "decision-locale",
    category: "decision",
    description: "formatMoney: de-CH grouping for CHF, en-US otherwise (Intl.NumberFormat)",
    needles: ["de-CH", "Intl.NumberFormat"]
  },
  { id: "decision-include-void", category: "decision", description: "void invoices excluded unless ?includeVoid=true", needles: ["includeVoid"] },
  { id: "decision-no-store", category: "decision", description: "the export sends Cache-Control: no-store", needles: ["no-store"] },
  { id: "decision-range-cap", category: "decision", description: "date ranges capped at 366 days", needles: ["366"] },
  { id: "decision-injection", category: "decision", description: "spreadsheet formula injection neutralized", needles: ["injection"] },
  {
    id: "decision-keep-discount-amount",
    category: "decision",
    description: "discountAmount kept as a decimal wrapper for other importers",
    needles: ["discountAmount"]
  },
  { id: "result-0412", category: "test", description: "INV-2025-0412 = 1,275.63 by the rule", needles: ["1,275.63", "1275.63"] },
  { id: "result-0411", category: "test", description: "INV-2025-0411 total 1,240.22", needles: ["1240.22", "1,240.22"] },
  { id: "test-last", category: "test", description: "the last full run: 150 tests pass, typecheck and lint clean", needles: [/150 (tests|passed|passing)/] },
  { id: "test-rounding-change", category: "test", description: "route test expectation changed 79.89 -> 79.90", needles: ["79.90"] },
  { id: "result-q4-export", category: "test", description: "the Q4 export: about 3,116 invoices in 0.41 s", needles: ["0.41"] },
  {
    id: "state-branch",
    category: "state",
    description: "branch fix/pdf-no-discount-and-rounding",
    needles: ["pdf-no-discount-and-rounding"]
  },
  { id: "state-commit-fix", category: "state", description: "commit 8c41d2e: the bug fixes", needles: ["8c41d2e"] },
  { id: "state-commit-feature", category: "state", description: "commit 7d90f13: the CSV export (amended)", needles: ["7d90f13", "51e0c7a"] },
  {
    id: "state-todo-round",
    category: "state",
    description: "to do by hand: delete the manual ROUND line of INV-2025-0412",
    needles: [/ROUND.{0,20}line|line.{0,20}ROUND/]
  },
  { id: "state-todo-npm", category: "state", description: "to do: npm install in a separate PR to sync zod", needles: ["npm install"] },
  { id: "file-totals", category: "file", description: "src/services/totals.ts rewritten", needles: ["totals.ts"] },
  { id: "file-csv", category: "file", description: "new src/services/csvExport.ts and its test", needles: ["csvExport"] },
  { id: "file-export-test", category: "file", description: "new test/routes/invoicesExport.test.ts", needles: ["invoicesExport"] },
  { id: "command-test", category: "command", description: "tests run with vitest run", needles: ["vitest run"] }
]
