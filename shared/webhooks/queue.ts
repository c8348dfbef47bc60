import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Clock } from '../clock.ts';
import type { DeliveryMessage } from './messages.ts';

/** Longest `DelaySeconds` SQS accepts: 900 s (15 min). Longer waits re-defer on receipt. */
export const SQS_MAX_DELAY_SECONDS = 900;

/** The dispatch queue as the dispatcher writes to it. */
export interface DeliveryQueue {
  /** Enqueues `message`, invisible for `delaySeconds` (whole seconds, 0 to {@link SQS_MAX_DELAY_SECONDS}). */
  send(message: DeliveryMessage, delaySeconds: number): Promise<void>;
}

/** Whole seconds to wait for `dueAt`, capped at the SQS maximum (a later hop re-defers). */
export function delaySecondsUntil(dueAt: number, nowMs: number): number {
  return Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.ceil((dueAt - nowMs) / 1000)));
}

/** The SQS adapter: one `SendMessage` per message, so each delivery has its own delay. */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(message: DeliveryMessage, delaySeconds: number): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(message),
        DelaySeconds: Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.round(delaySeconds))),
      }),
    );
  }
}

/** One message held by {@link MemoryDeliveryQueue}, shaped like the parts of an SQS record we read. */
export interface QueuedMessage {
  messageId: string;
  body: string;
}

/**
 * An in-memory queue for tests: honours delays on its clock, hands out due messages in
 * order. Envelopes can be put on it too, as the EventBridge rule does on the real queue.
 */
export class MemoryDeliveryQueue implements DeliveryQueue {
  private readonly messages: (QueuedMessage & { visibleAt: number; seq: number })[] = [];
  private seq = 0;

  constructor(private readonly clock: Clock) {}

  async send(message: DeliveryMessage, delaySeconds: number): Promise<void> {
    this.sendRaw(JSON.stringify(message), delaySeconds);
  }

  /** Enqueues any body (an EventBridge envelope, a malformed body in tests). */
  sendRaw(body: string, delaySeconds = 0): void {
    this.seq += 1;
    this.messages.push({
      messageId: `msg-${this.seq}`,
      body,
      visibleAt: this.clock.now() + delaySeconds * 1000,
      seq: this.seq,
    });
  }

  /** Removes and returns up to `max` messages that are visible now, oldest first. */
  receive(max: number): QueuedMessage[] {
    const now = this.clock.now();
    const due = this.messages
      .filter((m) => m.visibleAt <= now)
      .sort((a, b) => a.visibleAt - b.visibleAt || a.seq - b.seq)
      .slice(0, max);
    for (const message of due) this.messages.splice(this.messages.indexOf(message), 1);
    return due.map(({ messageId, body }) => ({ messageId, body }));
  }

  /** Messages waiting, visible or not. */
  get size(): number {
    return this.messages.length;
  }

  /** When the next message becomes visible, or `undefined` when empty. */
  nextVisibleAt(): number | undefined {
    return this.messages.reduce<number | undefined>(
      (min, m) => (min === undefined || m.visibleAt < min ? m.visibleAt : min),
      undefined,
    );
  }
}
