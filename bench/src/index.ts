/**
 * @precis/bench: the benchmark sections behind `pnpm bench` and their pure helpers.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AgentLoop from "./AgentLoop.js"
/** @since 0.1.0 */
export * as CompactionCost from "./CompactionCost.js"
/** @since 0.1.0 */
export * as Facts from "./Facts.js"
/** @since 0.1.0 */
export * as FaultLatency from "./FaultLatency.js"
/** @since 0.1.0 */
export * as Fidelity from "./fidelity/Fidelity.js"
/** @since 0.1.0 */
export * as FidelitySessions from "./fidelity/Sessions.js"
/** @since 0.1.0 */
export * as Fleet from "./Fleet.js"
/** @since 0.1.0 */
export * as Inputs from "./Inputs.js"
/** @since 0.1.0 */
export * as Oracle from "./Oracle.js"
/** @since 0.1.0 */
export * as Overhead from "./Overhead.js"
/** @since 0.1.0 */
export * as Probe from "./fidelity/Probe.js"
/** @since 0.1.0 */
export * as ProjectStart from "./ProjectStart.js"
/** @since 0.1.0 */
export * as Results from "./Results.js"
/** @since 0.1.0 */
export * as Retention from "./Retention.js"
/** @since 0.1.0 */
export * as SleepLoop from "./SleepLoop.js"
/** @since 0.1.0 */
export * as Startup from "./Startup.js"
/** @since 0.1.0 */
export * as Stats from "./Stats.js"
/** @since 0.1.0 */
export * as Synthetic from "./Synthetic.js"
/** @since 0.1.0 */
export * as Throughput from "./Throughput.js"
/** @since 0.1.0 */
export * as TokenAccuracy from "./TokenAccuracy.js"
