/**
 * Test runners' output, as the material, the fact check and the extractive
 * provider read it.
 *
 * @internal
 */

// `✓ test/a.test.ts (18 tests) 20ms` (Vitest), `PASS src/a.test.ts (42 tests)` (Jest):
// a file's mark, then its path (a name with an extension), and no word of failure.
const PASSED_FILE = /^\s*(?:✓|✔|PASS)\s+[\w.@/+-]*\.\w+(?![\s\S]*\b(?:[Ff]ail(?:s|ed|ing|ures?)?|[Ss]kipped)\b)/

/**
 * Whether a line is a test runner's report of one file that passed: its count
 * is part of the run's totals, which the runner gives on a line of their own
 * (`Tests  130 passed (130)`), so it is neither a change of state nor a result
 * to keep once the totals are there.
 */
export const isPassedFileLine = (line: string): boolean => PASSED_FILE.test(line)
