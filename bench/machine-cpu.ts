import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';

/** Linux counts /proc/stat and /proc/<pid>/stat times in clock ticks (`getconf CLK_TCK`: 100). */
const TICKS_PER_SECOND = 100;

/** CPU seconds the whole machine has spent since boot, from the first line of /proc/stat. */
export interface MachineCpu {
  /** Running anything: user, nice, system, interrupts (every process, this benchmark's too). */
  busy: number;
  /** Waiting for the hypervisor to run this machine's virtual CPU. */
  steal: number;
  /** Everything, idle included. */
  total: number;
}

/**
 * Reads the machine's CPU counters; zeros where /proc/stat is missing (not Linux). Pure apart
 * from the read.
 * @example const before = await machineCpu(); …; const used = cpuBetween(before, await machineCpu());
 */
export async function machineCpu(): Promise<MachineCpu> {
  const stat = await readFile('/proc/stat', 'utf8').catch(() => '');
  const fields = (stat.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0] = fields;
  const steal = fields[7] ?? 0;
  const busy = user + nice + system + irq + softirq;
  return {
    busy: busy / TICKS_PER_SECOND,
    steal: steal / TICKS_PER_SECOND,
    total: (busy + idle + iowait + steal) / TICKS_PER_SECOND,
  };
}

/** What the machine did between two readings. */
export interface MachineCpuUse {
  /** CPU seconds every process used. */
  busySeconds: number;
  /** Share of all cores busy over the span, 0–1. */
  busyShare: number;
  /** Share of all cores taken by the hypervisor (steal), 0–1. */
  stealShare: number;
  cores: number;
}

/** The machine's CPU use between `before` and `after`. Pure. */
export function cpuBetween(before: MachineCpu, after: MachineCpu): MachineCpuUse {
  const total = Math.max(1e-9, after.total - before.total);
  const busySeconds = after.busy - before.busy;
  return {
    busySeconds,
    busyShare: busySeconds / total,
    stealShare: (after.steal - before.steal) / total,
    cores: availableParallelism(),
  };
}

/** CPU seconds (user + system, all threads) process `pid` has used; 0 once it is gone. */
export async function processCpuSeconds(pid: number): Promise<number> {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/**
 * CPU seconds the main thread of process `pid` has used (its JavaScript, and garbage collection
 * on that thread; not V8's helper threads, LevelDB's or libuv's pool); 0 once it is gone.
 */
export async function mainThreadCpuSeconds(pid: number): Promise<number> {
  return statCpuSeconds(`/proc/${pid}/task/${pid}/stat`);
}

/** User + system seconds of a /proc `stat` file (a process's or a thread's); 0 when unreadable. */
async function statCpuSeconds(path: string): Promise<number> {
  const stat = await readFile(path, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / TICKS_PER_SECOND;
}

/** This process's CPU seconds (all its threads). */
export async function ownCpuSeconds(): Promise<number> {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** What {@link watchCpu} counted over a span: the machine, and each named source. */
export interface CpuSpan<K extends string> {
  machine: MachineCpuUse;
  seconds: Record<K, number>;
}

/**
 * Starts counting CPU over a span: the whole machine's, and each source's (a function giving
 * the CPU seconds something has used so far, e.g. {@link processCpuSeconds} of a pid). The
 * returned function ends the span.
 * @example const span = await watchCpu({ simulator: () => processCpuSeconds(pid) }); …; const { machine, seconds } = await span();
 */
export async function watchCpu<K extends string>(
  sources: Record<K, () => Promise<number>>,
): Promise<() => Promise<CpuSpan<K>>> {
  const names = Object.keys(sources) as K[];
  const read = async () => {
    const seconds = {} as Record<K, number>;
    for (const name of names) seconds[name] = await sources[name]();
    return seconds;
  };
  const before = await read();
  const machineBefore = await machineCpu();
  return async () => {
    const after = await read();
    const machine = cpuBetween(machineBefore, await machineCpu());
    const seconds = {} as Record<K, number>;
    for (const name of names) seconds[name] = after[name] - before[name];
    return { machine, seconds };
  };
}
