import type { Scope } from '../changes/entity-types.ts';
import type { WriteThroughOptions } from './write-through-options.ts';

/** The change context of a write through `options`' connection, dated now. */
export function writeContext(options: WriteThroughOptions): {
  connectionId: string;
  scope: Scope;
  now: number;
} {
  return {
    connectionId: options.connectionId,
    scope: options.scope,
    now: options.clock.now(),
  };
}
