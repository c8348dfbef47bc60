import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript beside the bin, without types
import { eventsBuildArguments } from '../../bin/events-build-command.js';

describe('the events build command (bin/build-events.js)', () => {
  it("builds tsconfig.events.json into the output directory with TypeScript's compiler in one thread", () => {
    expect(
      eventsBuildArguments('/repo/node_modules/typescript/bin/tsc', '/repo', '/out/events'),
    ).toEqual([
      '/repo/node_modules/typescript/bin/tsc',
      '-p',
      '/repo/tsconfig.events.json',
      '--outDir',
      '/out/events',
      '--singleThreaded',
    ]);
  });
});
