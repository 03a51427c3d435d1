/**
 * Probe facts of `claude-code-spotter-ae4a77f8.jsonl` before its compact
 * boundary (line 1481): a Claude Code session working through the beads epic
 * spotter-4te (end-to-end OpenTelemetry tracing of an Elixir/Phoenix app).
 * Written from the raw transcript; a test checks every needle occurs there.
 *
 * @since 0.1.0
 */
import type { Probe } from "./Probe.js"

// Closed, in either order: "✓ Closed spotter-4te.1", "spotter-4te.1 (closed)", "✅ 4te.1".
const closed = (task: string): Probe["needles"] => [
  new RegExp(`(closed?|✅|done|complete)\\W{0,20}(spotter-)?4te\\.${task}\\b|4te\\.${task}\\b.{0,60}(closed|✅|done|complete)`)
]

/**
 * The probes.
 *
 * @since 0.1.0
 */
export const probes: ReadonlyArray<Probe> = [
  { id: "task-epic", category: "task", description: "the epic to work on is spotter-4te", needles: ["spotter-4te"] },
  {
    id: "task-goal",
    category: "task",
    description: "the epic: end-to-end OpenTelemetry tracing (plugin -> Phoenix -> Ash -> LiveView)",
    needles: [/end-to-end (OpenTelemetry|OTEL|tracing)/, /OpenTelemetry tracing/]
  },
  {
    id: "task-request",
    category: "task",
    description: "the user asked to run bd show / bd ready and start with the first ready task",
    needles: ["first ready task", "bd ready"]
  },
  { id: "state-4te.1-closed", category: "state", description: "spotter-4te.1 (OTEL bootstrap) is closed", needles: closed("1") },
  { id: "state-4te.2-closed", category: "state", description: "spotter-4te.2 (plugin traceparent) is closed", needles: closed("2") },
  { id: "state-4te.3-closed", category: "state", description: "spotter-4te.3 (controller spans) is closed", needles: closed("3") },
  {
    id: "state-next-4te.4",
    category: "issue",
    description: "remaining: spotter-4te.4 (opentelemetry_ash, async enrichment)",
    needles: ["4te.4"]
  },
  { id: "state-next-4te.5", category: "issue", description: "remaining: spotter-4te.5 (LiveView and TerminalChannel)", needles: ["4te.5"] },
  { id: "state-next-4te.6", category: "issue", description: "remaining: spotter-4te.6 (regression tests, docs)", needles: ["4te.6"] },
  {
    id: "state-uncommitted",
    category: "state",
    description: "the task 3 changes are not committed: the pre-commit hook fails even with --no-verify",
    needles: ["--no-verify", "not staged"]
  },
  {
    id: "state-commit-bootstrap",
    category: "state",
    description: "committed: feat: add OTEL dependencies, bootstrap, and safe runtime defaults",
    needles: ["safe runtime defaults"]
  },
  {
    id: "state-commit-plugin",
    category: "state",
    description: "committed: feat: propagate traceparent headers in Claude plugin hook scripts",
    needles: ["propagate traceparent"]
  },
  { id: "state-worktree", category: "state", description: "working in the spotter-worktrees/spotter-4te worktree", needles: ["spotter-worktrees"] },
  {
    id: "test-last",
    category: "test",
    description: "the last test run: 297 tests, 0 failures",
    needles: [/297 tests,? 0 failures/, /297 tests pass/]
  },
  { id: "test-failed-run", category: "test", description: "a test run had 11 failures (with_span given a do block)", needles: ["11 failures"] },
  {
    id: "error-propagators",
    category: "error",
    description: ":opentelemetry.set_text_map_propagators does not exist; propagators set in the app env instead",
    needles: ["set_text_map_propagator", "text_map_propagators"]
  },
  {
    id: "error-batch-processor",
    category: "error",
    description: "the otel_batch_processor config was wrong; traces_exporter used instead",
    needles: ["traces_exporter", "otel_batch_processor"]
  },
  {
    id: "error-with-span-macro",
    category: "error",
    description: "with_span received a do block: rewritten as a macro",
    needles: [/with_span.{0,80}macro|macro.{0,80}with_span/]
  },
  {
    id: "error-require-macro",
    category: "error",
    description: "controllers must require SpotterWeb.OtelTraceHelpers to use the macro",
    needles: [/require (SpotterWeb\.)?OtelTraceHelpers/]
  },
  {
    id: "error-complexity",
    category: "error",
    description: "credo: tool_call too complex (cyclomatic complexity 13); create_tool_call extracted",
    needles: ["cyclomatic complexity", "create_tool_call"]
  },
  { id: "error-implicit-try", category: "error", description: "credo: prefer an implicit try", needles: ["implicit try"] },
  {
    id: "error-dialyzer",
    category: "error",
    description: "dialyzer false positive in get_current_trace_id blocks the pre-commit hook",
    needles: [/dialyzer.{0,80}false positive|false positive.{0,80}dialyzer/, "get_current_trace_id"]
  },
  { id: "error-dialyzerignore", category: "error", description: "a .dialyzerignore file was tried and not recognized", needles: ["dialyzerignore"] },
  { id: "error-format", category: "error", description: "pre-commit: code not formatted; mix format fixed it", needles: ["mix format"] },
  {
    id: "file-otel",
    category: "file",
    description: "created lib/spotter/telemetry/otel.ex (Spotter.Telemetry.Otel)",
    needles: ["telemetry/otel.ex", "Telemetry.Otel"]
  },
  { id: "file-application", category: "file", description: "Otel setup wired into lib/spotter/application.ex", needles: ["application.ex"] },
  { id: "file-runtime-config", category: "file", description: "env overrides in config/runtime.exs", needles: ["runtime.exs"] },
  {
    id: "file-deps",
    category: "file",
    description: "opentelemetry deps added to mix.exs (bandit, phoenix, exporter, ash)",
    needles: ["opentelemetry_bandit", "opentelemetry_phoenix", "opentelemetry_exporter"]
  },
  { id: "file-trace-context-sh", category: "file", description: "created spotter-plugin/scripts/lib/trace_context.sh", needles: ["trace_context.sh"] },
  {
    id: "file-hook-scripts",
    category: "file",
    description: "updated the hook scripts notify-session.sh, tool-call-capture.sh, post-tool-capture.sh",
    needles: ["notify-session.sh", "tool-call-capture.sh", "post-tool-capture.sh"]
  },
  {
    id: "file-trace-helpers",
    category: "file",
    description: "created lib/spotter_web/controllers/otel_trace_helpers.ex (SpotterWeb.OtelTraceHelpers)",
    needles: ["otel_trace_helpers", "OtelTraceHelpers"]
  },
  { id: "file-controllers", category: "file", description: "instrumented hooks_controller.ex and session_hook_controller.ex", needles: ["hooks_controller"] },
  {
    id: "decision-stdout-dev",
    category: "decision",
    description: "dev exports traces to stdout (otel_exporter_stdout); tests export nothing",
    needles: ["otel_exporter_stdout", "stdout exporter"]
  },
  { id: "decision-env-flag", category: "decision", description: "SPOTTER_OTEL_ENABLED toggles tracing at runtime", needles: ["SPOTTER_OTEL_ENABLED"] },
  { id: "decision-traceparent", category: "decision", description: "hook scripts send W3C traceparent headers", needles: ["traceparent"] },
  { id: "decision-trace-header", category: "decision", description: "responses carry an x-spotter-trace-id header", needles: ["x-spotter-trace-id"] },
  { id: "command-test", category: "command", description: "tests run with mix test --seed 0", needles: ["mix test"] },
  { id: "command-credo", category: "command", description: "lint with mix credo --strict", needles: ["credo --strict", "mix credo"] },
  { id: "command-bd", category: "command", description: "tasks claimed and closed with bd update / bd close", needles: ["bd close", "bd update"] },
  { id: "command-deps", category: "command", description: "mix deps.get after adding the dependencies", needles: ["deps.get"] }
]
