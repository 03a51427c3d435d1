/**
 * The vitest projects of the precis monorepo: one per package, and the bench.
 * `vitest.config.ts` reads this list (vitest 3.2 deprecates workspace files,
 * but the layout keeps this one as the single place that names the projects).
 */
export default ["packages/*", "bench"]
