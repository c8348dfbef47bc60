import { ValidationError } from './errors.ts';

/**
 * What every configuration error is about: its message reads `configuration is invalid:
 * POLL_INTERVAL: …`, whichever command (start, simulator, call, the admin commands) or Lambda
 * function refuses a variable or the flag standing for one (README, Configuration).
 */
export const CONFIGURATION = 'configuration';

/**
 * A {@link ValidationError} about one variable or flag of the configuration (`name`, e.g.
 * `BRIDGE_PORT`, `--api`, `POLL_PRODUCT_IDS[1]`): `configuration is invalid: <name>: <message>`.
 * The CLI exits 2 with it. The message must not show a variable's value (env-issues.ts).
 * @example configurationError('BRIDGE_PORT', 'is not a port (1-65535)')
 */
export function configurationError(
  name: string,
  message: string,
  cause?: unknown,
): ValidationError {
  return new ValidationError(CONFIGURATION, [{ path: name, message }], { cause });
}
