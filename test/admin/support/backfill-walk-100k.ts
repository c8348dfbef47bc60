/**
 * A 100,000-customer `backfill --emit` through `change-bridge start` (simulator unthrottled,
 * one receiver, 2 cores shared with other work), as `backfill --json` sampled it each second
 * (bench/backfill-estimate-walk.ts, 2026-12-03): the first 66 s of samples, while the reading
 * ran unpaced (about 800 records a second) and the deliveries at about 90 a second. Every
 * webhook was delivered 391105 ms after the command started (the reading ended
 * at 234 s; the deliveries ran at about 300 a second from 85 s on).
 */

/** Ms after the command started when every webhook of the job was delivered. */
export const WALK_DELIVERED_AT_MS = 391105;

/** The records its first sync had read: the pass's guess of those it reads again. */
export const WALK_RECORDS_AT_FIRST_SYNC = 100_000;

/**
 * One sample each: ms after the command started, the stream's share of the history's time
 * range read, records read, events published, webhooks delivered, webhooks left, events queued,
 * and the seconds left the command showed then (before this release: every webhook left at the
 * rate delivered while reading).
 */
export const WALK_SAMPLES: readonly (readonly [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number | null,
])[] = [
  [6012, 0.0, 0, 0, 0, 0, 0, null],
  [9075, 0.0, 500, 488, 0, 0, 488, null],
  [10713, 0.0, 1000, 979, 80, 0, 899, 6024],
  [12256, 0.0, 2500, 2443, 220, 0, 2223, 2868],
  [13583, 0.0, 3500, 3428, 360, 0, 3068, 2114],
  [14934, 0.0, 5500, 5375, 608, 0, 4767, 1459],
  [16208, 0.0, 7500, 7330, 728, 0, 6602, 1389],
  [18347, 0.0, 8500, 8311, 880, 0, 7431, 1383],
  [20203, 0.0, 9500, 9284, 980, 0, 8304, 1421],
  [21642, 0.229999, 11227, 10981, 1130, 0, 9851, 1357],
  [23156, 0.229999, 11727, 11472, 1428, 0, 10044, 1172],
  [24332, 0.229999, 14227, 13912, 1660, 0, 12252, 1075],
  [26157, 0.229999, 15227, 14892, 1760, 0, 13132, 1112],
  [27616, 0.229999, 16227, 15871, 1870, 0, 14001, 1117],
  [29379, 0.229999, 17227, 16859, 2070, 0, 14789, 1092],
  [31235, 0.229999, 19227, 18814, 2228, 0, 16586, 1093],
  [33525, 0.229999, 20227, 19784, 2430, 0, 17354, 1089],
  [36408, 0.229999, 21227, 20767, 2540, 0, 18227, 1026],
  [38253, 0.229999, 22227, 21752, 2710, 0, 19042, 1025],
  [40304, 0.229999, 23727, 23206, 2840, 0, 20366, 1018],
  [42253, 0.229999, 24227, 23689, 3028, 0, 20661, 1012],
  [44114, 0.229999, 25727, 25162, 3230, 0, 21932, 1044],
  [46096, 0.229999, 27727, 27116, 3310, 0, 23806, 1094],
  [47691, 0.229999, 29227, 28579, 3432, 0, 25147, 1084],
  [49612, 0.229999, 30227, 29557, 3580, 0, 25977, 1063],
  [50710, 0.454999, 31095, 30404, 3700, 0, 26704, 834],
  [51992, 0.454999, 31595, 30894, 3828, 0, 27066, 886],
  [53536, 0.454999, 33095, 32369, 3928, 0, 28441, 948],
  [55118, 0.454999, 34095, 33348, 4110, 0, 29238, 905],
  [56417, 0.454999, 35095, 34328, 4190, 0, 30138, 912],
  [57588, 0.454999, 36595, 35795, 4401, 0, 31394, 885],
  [59108, 0.454999, 38095, 37270, 4608, 0, 32662, 854],
  [60699, 0.454999, 39595, 38747, 4728, 0, 34019, 858],
  [62403, 0.454999, 41595, 40701, 4980, 0, 35721, 820],
  [63688, 0.454999, 42595, 41682, 5110, 0, 36572, 810],
  [65205, 0.454999, 42595, 41682, 5250, 0, 36432, 765],
];
