/**
 * Probe facts of `claude-code-spotter-258c7280.jsonl` before its compact
 * boundary (line 1256): a Claude Code session implementing the beads epic
 * spotter-gqc (source-aware transcript annotations, then a project review page).
 * Written from the raw transcript; a test checks every needle occurs there.
 *
 * @since 0.1.0
 */
import type { Probe } from "./Probe.js"

// Closed, in either order: "✓ Closed spotter-gqc.1", "spotter-gqc.1 (closed)", "✅ gqc.1".
const closed = (task: string): Probe["needles"] => [
  new RegExp(`(closed?|✅|done|complete)\\W{0,20}(spotter-)?gqc\\.${task}\\b|gqc\\.${task}\\b.{0,60}(closed|✅|done|complete)`)
]

/**
 * The probes.
 *
 * @since 0.1.0
 */
export const probes: ReadonlyArray<Probe> = [
  { id: "task-request", category: "task", description: "the user asked: Implement spotter-gqc", needles: ["spotter-gqc"] },
  {
    id: "task-goal",
    category: "task",
    description: "the epic: transcript and terminal annotations with message references",
    needles: [/annotations? with message ref/, "message references"]
  },
  {
    id: "task-new-beads",
    category: "task",
    description: "later the user said new beads were added to the epic: tackle them",
    needles: ["new beads"]
  },
  { id: "state-gqc.1-3-closed", category: "state", description: "spotter-gqc.1, .2, .3 and the epic were closed", needles: closed("[123]") },
  { id: "state-gqc.4-closed", category: "state", description: "spotter-gqc.4 (annotation open/closed state) is closed", needles: closed("4") },
  { id: "state-gqc.5-closed", category: "state", description: "spotter-gqc.5 (project review page) is closed", needles: closed("5") },
  {
    id: "state-gqc.6-in-progress",
    category: "state",
    description: "spotter-gqc.6 (close project review session) is in progress",
    needles: [/gqc\.6.{0,60}in.progress|in.progress.{0,60}gqc\.6/]
  },
  {
    id: "state-gqc.7-left",
    category: "issue",
    description: "spotter-gqc.7 (launch a review conversation with hook-injected context) is left",
    needles: ["gqc.7", "hook-injected"]
  },
  {
    id: "state-gqc.6-work",
    category: "state",
    description: "gqc.6 so far: a close_review_session event and button in project_review_live.ex",
    needles: ["close_review_session", /close (the )?review session/]
  },
  { id: "state-flash", category: "state", description: "gqc.6: flash shown inline (the root layout renders none)", needles: ["Phoenix.Flash", /flash (message|display)/] },
  { id: "state-commit-1", category: "state", description: "commit 99b497c: annotations with message references", needles: ["99b497c"] },
  { id: "state-commit-4", category: "state", description: "commit ceff8c3: annotation open/closed state (gqc.4)", needles: ["ceff8c3"] },
  { id: "state-commit-5", category: "state", description: "commit bb53fb4: project-level review page (gqc.5)", needles: ["bb53fb4"] },
  {
    id: "state-pushed",
    category: "state",
    description: "pushed to origin spotter-gqc (after git push --set-upstream)",
    needles: ["set-upstream", /pushed|git push/]
  },
  {
    id: "state-worktree",
    category: "state",
    description: "working in the spotter-worktrees/spotter-gqc worktree",
    needles: ["spotter-worktrees"]
  },
  { id: "test-last", category: "test", description: "the last full run: 73 tests, 0 failures", needles: ["73 tests"] },
  { id: "test-first-batch", category: "test", description: "after tasks 1-3: 43 tests then 65 tests, 0 failures", needles: ["43 tests", "65 tests"] },
  {
    id: "test-live-view",
    category: "test",
    description: "the 5 ProjectReviewLive tests pass",
    needles: [/5 tests,? 0 failures|all 5 tests pass/]
  },
  {
    id: "file-message-ref",
    category: "file",
    description: "new resource lib/spotter/transcripts/annotation_message_ref.ex (AnnotationMessageRef)",
    needles: ["annotation_message_ref", "AnnotationMessageRef"]
  },
  { id: "file-renderer", category: "file", description: "transcript_renderer.ex changed (messages carry their id)", needles: ["transcript_renderer"] },
  {
    id: "file-js-hook",
    category: "file",
    description: "a TranscriptSelection hook in assets/js/app.js",
    needles: ["TranscriptSelection", "app.js"]
  },
  {
    id: "file-migration-1",
    category: "file",
    description: "migration 20260211203856_add_annotation_message_refs_and_source",
    needles: ["add_annotation_message_refs", "20260211203856"]
  },
  {
    id: "file-migration-state",
    category: "file",
    description: "migration 20260211205820_add_state_to_annotations",
    needles: ["add_state_to_annotations", "20260211205820"]
  },
  {
    id: "file-review-live",
    category: "file",
    description: "new lib/spotter_web/live/project_review_live.ex (ProjectReviewLive) and its test",
    needles: ["project_review_live", "ProjectReviewLive"]
  },
  {
    id: "file-route",
    category: "file",
    description: "route /projects/:project_id/review; a Review button in pane_list_live.ex",
    needles: ["/review", "pane_list_live"]
  },
  { id: "file-session-live", category: "file", description: "session_live.ex saves source-aware annotations", needles: ["session_live"] },
  {
    id: "decision-source",
    category: "decision",
    description: "annotations have a source, :terminal or :transcript",
    needles: [/source.{0,40}:?terminal.{0,20}:?transcript/, "source-aware"]
  },
  {
    id: "decision-state",
    category: "decision",
    description: "annotations have an open/closed state",
    needles: ["open/closed", /state.{0,30}(:open|open).{0,20}(:closed|closed)/]
  },
  {
    id: "error-sqlite-migration",
    category: "error",
    description: "the generated migration used ALTER TABLE modify (not in SQLite): rewritten as a table rewrite",
    needles: ["table rewrite", /ALTER TABLE/]
  },
  { id: "error-stale-build", category: "error", description: "stale build artifacts: mix compile --force", needles: ["--force"] },
  { id: "error-guard", category: "error", description: "credo: length/1 in a guard replaced by [_ | _]", needles: ["[_ | _]"] },
  {
    id: "error-conn-test",
    category: "error",
    description: "undefined function get/2 in the LiveView test: import Phoenix.ConnTest",
    needles: ["Phoenix.ConnTest", "get/2"]
  },
  { id: "error-endpoint-config", category: "error", description: "test config lacked secret_key_base for the endpoint", needles: ["secret_key_base"] },
  { id: "error-lazy-html", category: "error", description: "LiveViewTest needs the lazy_html test dependency", needles: ["lazy_html"] },
  {
    id: "error-sandbox",
    category: "error",
    description: "the LiveView process could not reach the test sandbox: shared mode",
    needles: [/shared, ?self\(\)/, /shared (sandbox|mode)/]
  },
  {
    id: "error-accept-order",
    category: "error",
    description: ":state was in the accept list before the attribute existed",
    needles: ["accept list"]
  },
  { id: "command-codegen", category: "command", description: "migrations generated with mix ash.codegen", needles: ["ash.codegen"] },
  { id: "command-migrate", category: "command", description: "mix ecto.migrate", needles: ["ecto.migrate"] },
  {
    id: "command-compile",
    category: "command",
    description: "mix compile --warnings-as-errors before the tests",
    needles: ["warnings-as-errors"]
  },
  { id: "command-credo", category: "command", description: "mix credo --strict", needles: ["credo"] }
]
