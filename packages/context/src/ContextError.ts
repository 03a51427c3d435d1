/**
 * The error of the context package's options: an `Assembler`'s config, the
 * budget of an assembly, or the options of a `Condenser` pipeline or an
 * `Expansion` that make no sense. One problem per option, named by its path
 * (`forget.decay`, `expand.reserve`).
 *
 * @since 0.1.0
 */
import { OptionError } from "@precis/core"

/**
 * Options that make no sense, every problem found:
 * `invalid context options: lowWater must be a number <= highWater (got 0.9 > 0.8)`.
 *
 * @since 0.1.0
 */
export class InvalidContextOptionsError extends OptionError.InvalidOptions("InvalidContextOptionsError", "context") {}
