import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { RandomSource } from '../../shared/clock.ts';
import { receiverPath } from '../support/receiver-path.ts';
import type { DeliveredChange } from './duplicate-ids.ts';

/** How the receiver answers the first attempt of a webhook it chose to fail. */
export type ReceiverFault = '500' | '429' | 'reset' | 'hang';
const FAULTS: readonly ReceiverFault[] = ['500', '429', 'reset', 'hang'];
/** A hung request is dropped after this long (the bridge sees no answer). */
const HANG_MS = 1_500;
/** Requests already on their way when a 429 was sent may still arrive this long after it. */
const IN_FLIGHT_GRACE_MS = 300;

/** One webhook the receiver verified and accepted (answered 2xx). */
export interface AcceptedWebhook extends DeliveredChange {
  /** When the receiver accepted it, epoch ms. */
  acceptedAt: number;
}

/** How often the receiver notes that its event loop runs (see {@link isRetryAfterViolation}). */
const LOOP_TICK_MS = 20;

/**
 * Whether a request handled at `arrived` broke a Retry-After pause: it reached the receiver
 * after the pause's in-flight grace and before its end. When the receiver's own event loop had
 * stalled before handling it (`loopAliveAt`, the last timer it ran, well before `arrived`), the
 * request may have reached its socket any time since then, so that time is when it arrived at
 * the earliest: a request sent before the 429 and read late is not the bridge's violation. When
 * the bridge was seen to have stored the pause (`learnedAt`, see {@link PauseProbe}), a request
 * that arrived before is none either: a starved bridge reads the 429 late and may send what it
 * had due meanwhile (its timers run before its reads). Pure.
 * @example isRetryAfterViolation({ arrived: 1_400, loopAliveAt: 50 }, { pausedFrom: 0, pausedUntil: 2_000 }) // false
 */
export function isRetryAfterViolation(
  request: { arrived: number; loopAliveAt: number },
  pause: { pausedFrom: number; pausedUntil: number; learnedAt?: number },
): boolean {
  const earliest = Math.min(request.arrived, request.loopAliveAt);
  const knownFrom = Math.max(pause.pausedFrom + IN_FLIGHT_GRACE_MS, pause.learnedAt ?? 0);
  return earliest > knownFrom && request.arrived < pause.pausedUntil;
}

/**
 * Until when the bridge has stored its pause of the receiver's endpoint (epoch ms), or
 * undefined when it holds none (or cannot answer: killed, restarting).
 */
export type PauseProbe = () => Promise<number | undefined>;

/** How often a {@link PauseProbe} is asked, from a 429 until the bridge shows it stored. */
const PROBE_EVERY_MS = 20;
/**
 * How long after a pause ends the probe still asks: a bridge that read the 429 late stores a
 * pause that ends as late (its Retry-After counted from its reading).
 */
const PROBE_PAST_PAUSE_MS = 3_000;

/** One request that arrived during a Retry-After pause. */
export interface RetryAfterViolation {
  at: number;
  /** When the 429 was sent and until when it asked the endpoint to wait (epoch ms). */
  pausedFrom: number;
  pausedUntil: number;
  webhookId: string;
}

/**
 * Spells during which the receiver answers each request `answerMs` after it came (a slow
 * endpoint): the first `forMs` of every `everyMs` from its start.
 */
export interface SlowSpells {
  everyMs: number;
  forMs: number;
  answerMs: number;
}

/** A receiver that verifies every signature and fails a share of first attempts. */
export interface ChaosReceiver {
  url: string;
  accepted: AcceptedWebhook[];
  /**
   * Requests that arrived while a Retry-After the receiver asked for was still running, judged
   * with what the bridge was seen to store until now (see isRetryAfterViolation): read it once
   * the run is over.
   */
  retryAfterViolations: number;
  /** When each violation arrived (epoch ms), with the 429 it broke and its webhook id. */
  violations: RetryAfterViolation[];
  /** Requests whose signature did not verify. */
  rejected: number;
  /** 429s whose pause the bridge was seen to store (see {@link ChaosReceiver.probePauses}). */
  pausesLearned: number;
  failures: Record<ReceiverFault, number>;
  /** Requests answered slowly, in a slow spell. */
  slowAnswers: number;
  setSecret(secret: string): void;
  /**
   * From now on, after each 429 asks `probe` until the bridge shows the pause stored: a request
   * that arrived before then, even one judged before the bridge showed it, is no violation (see
   * isRetryAfterViolation). Of a pause it never showed stored, only the in-flight grace spares
   * a request.
   */
  probePauses(probe: PauseProbe): void;
  close(): Promise<void>;
}

/**
 * Starts the receiver on 127.0.0.1. The first attempt of a webhook id fails with probability
 * `failShare` (500, 429 with `Retry-After: retryAfterSeconds`, a connection reset, or a hang
 * that ends in a reset); every later attempt of that id is accepted, so retries converge. In a
 * slow spell (`slow`) a request is answered late, and accepted only if its connection is still
 * open then (a bridge killed meanwhile sends it again, which is no duplicate).
 */
export async function startChaosReceiver(options: {
  failShare: number;
  retryAfterSeconds: number;
  random: RandomSource;
  slow?: SlowSpells;
}): Promise<ChaosReceiver> {
  const startedAt = Date.now();
  const inSlowSpell = (at: number) =>
    options.slow !== undefined && (at - startedAt) % options.slow.everyMs < options.slow.forMs;
  let verifier: Webhook | undefined;
  const seen = new Set<string>();
  let pausedFrom = 0;
  let pausedUntil = 0;
  /** When the bridge was seen to store each pause, by the 429's time (pausedFrom). */
  const learned = new Map<number, number>();
  /** Requests that arrived within a pause: violations or not once the pause is known learned. */
  const inPauses: Array<RetryAfterViolation & { loopAliveAt: number }> = [];
  const violations = () =>
    inPauses
      .filter(({ at, loopAliveAt, pausedFrom: from, pausedUntil: until }) =>
        isRetryAfterViolation(
          { arrived: at, loopAliveAt },
          { pausedFrom: from, pausedUntil: until, learnedAt: learned.get(from) },
        ),
      )
      .map(({ loopAliveAt: _, ...violation }) => violation);
  let probe: PauseProbe | undefined;
  let closed = false;
  /** Every pause the receiver asked for: until when, by the 429's time (pausedFrom). */
  const pauses = new Map<number, number>();
  const unlearned = () => [...pauses].filter(([from]) => !learned.has(from));
  let probing = false;
  /**
   * Asks the probe while a pause is not yet seen stored and not long over. A stored pause that
   * reaches a pause's end shows that one learned too (an earlier 429 whose own pause the bridge
   * stored late, under a later one).
   */
  const watchPauses = async () => {
    if (probing) return;
    probing = true;
    try {
      const waiting = () =>
        unlearned().filter(([, until]) => Date.now() < until + PROBE_PAST_PAUSE_MS);
      while (probe && !closed && waiting().length > 0) {
        const stored = await probe().catch(() => undefined);
        const seenAt = Date.now();
        for (const [from, until] of waiting())
          if (stored !== undefined && stored >= until) {
            learned.set(from, seenAt);
            state.pausesLearned++;
          }
        await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
      }
    } finally {
      probing = false;
    }
  };
  const state = {
    accepted: [] as AcceptedWebhook[],
    rejected: 0,
    pausesLearned: 0,
    failures: { '500': 0, '429': 0, reset: 0, hang: 0 } as Record<ReceiverFault, number>,
    slowAnswers: 0,
  };
  const path = receiverPath('hook');
  // When this process's event loop last ran a timer: a request handled after a longer stall (a
  // loaded machine starving this process) may have reached its socket any time since.
  let loopAliveAt = Date.now();
  const ticker = setInterval(() => {
    loopAliveAt = Date.now();
  }, LOOP_TICK_MS);
  ticker.unref();
  const server: Server = createServer(async (request, response) => {
    if (request.url !== path) {
      response.writeHead(404).end();
      return;
    }
    const arrived = Date.now();
    // Judged once the run is over (see violations): the bridge may show the pause stored later.
    if (arrived >= pausedFrom && arrived < pausedUntil) {
      const webhookId = String(request.headers['webhook-id'] ?? '');
      inPauses.push({ at: arrived, pausedFrom, pausedUntil, webhookId, loopAliveAt });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const header = (name: string) => String(request.headers[name] ?? '');
    let event: {
      type: string;
      subject: string;
      time: string;
      data: { current?: unknown; previous?: unknown };
    };
    try {
      if (!verifier) throw new Error('no secret yet');
      event = verifier.verify(Buffer.concat(chunks).toString('utf8'), {
        'webhook-id': header('webhook-id'),
        'webhook-timestamp': header('webhook-timestamp'),
        'webhook-signature': header('webhook-signature'),
      }) as typeof event;
    } catch {
      state.rejected++;
      response.writeHead(401).end();
      return;
    }
    const id = header('webhook-id');
    const firstAttempt = !seen.has(id);
    seen.add(id);
    if (firstAttempt && options.random() < options.failShare) {
      const fault = FAULTS[Math.floor(options.random() * FAULTS.length)]!;
      state.failures[fault]++;
      if (fault === '500') response.writeHead(500).end('chaos');
      else if (fault === '429') {
        pausedFrom = Date.now();
        pausedUntil = pausedFrom + options.retryAfterSeconds * 1000;
        response.writeHead(429, { 'retry-after': String(options.retryAfterSeconds) }).end();
        pauses.set(pausedFrom, pausedUntil);
        void watchPauses();
      } else if (fault === 'reset') request.socket.destroy();
      else setTimeout(() => request.socket.destroy(), HANG_MS);
      return;
    }
    if (options.slow && inSlowSpell(arrived)) {
      state.slowAnswers++;
      await new Promise((resolve) => setTimeout(resolve, options.slow!.answerMs));
      if (request.socket.destroyed) return;
    }
    state.accepted.push({
      id,
      type: event.type,
      subject: event.subject,
      // An operational event (delivery.failing, …) has neither: its data is what it says.
      content:
        'current' in event.data || 'previous' in event.data
          ? (event.data.current ?? event.data.previous)
          : event.data,
      previous: event.data.previous ?? null,
      time: event.time,
      acceptedAt: Date.now(),
    });
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    get accepted() {
      return state.accepted;
    },
    get retryAfterViolations() {
      return violations().length;
    },
    get violations() {
      return violations();
    },
    get rejected() {
      return state.rejected;
    },
    get pausesLearned() {
      return state.pausesLearned;
    },
    get failures() {
      return state.failures;
    },
    get slowAnswers() {
      return state.slowAnswers;
    },
    setSecret(secret) {
      verifier = new Webhook(secret);
    },
    probePauses(given) {
      probe = given;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        clearInterval(ticker);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
