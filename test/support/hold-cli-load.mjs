// Preload (`node --import`) for tests of a signal that arrives while the CLI loads: registers
// hold-cli-load-hooks.mjs, which holds the load of the CLI's module at the named pipe
// HOLD_CLI_LOAD_FIFO until the test has written to it and closed it.
import { register } from 'node:module';

register('./hold-cli-load-hooks.mjs', import.meta.url, {
  data: { fifo: process.env.HOLD_CLI_LOAD_FIFO },
});
