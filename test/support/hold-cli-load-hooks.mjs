// Module hooks of hold-cli-load.mjs: the first load of the CLI's module (the bundle bin/cli-bundle.js
// builds, or shared/cli/main.ts through tsx) opens the named pipe for reading, which waits for its
// writer (the test), and goes on once the writer has closed it.
import { readFile } from 'node:fs/promises';

/** The CLI's module: the bundle in the cache, or its entry source without one. */
const CLI_MODULE = /\/cli-[^/]*\.mjs$|\/shared\/cli\/main\.ts$/;

let fifo;
let held = false;

export function initialize(data) {
  fifo = data?.fifo;
}

export async function load(url, context, nextLoad) {
  if (fifo && !held && CLI_MODULE.test(url)) {
    held = true;
    await readFile(fifo);
  }
  return nextLoad(url, context);
}
