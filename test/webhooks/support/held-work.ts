/** Work that runs until `finish` is called; `started` tells whether it began. */
export function heldWork() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const work = { started: false, finish, run: async () => {} };
  work.run = async () => {
    work.started = true;
    await done;
  };
  return work;
}
