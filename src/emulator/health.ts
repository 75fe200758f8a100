// Channel health (api-facts.md: `state {ok, lastUpdatedTime, lastSuccessfulTime, details}`; issue 35).
// A channel told to fail (`failChannels`, `--fail-channel NAME`, `failChannel()`) answers
// `state.ok: false` with a `details` text, its test fails and its `lastSuccessfulTime` stops moving;
// a healthy channel's test succeeds and moves it. A channel never tested has 0. Healing is leaving the
// name out at the next start (or `healChannel()`): the last success is remembered with the record.

import type { IntegrationRecord } from './model.js';

export interface Failure {
  /** Epoch ms when the channel started failing. */
  since: number;
  /** The text the state's `details.message` and the failed test show. */
  details: string;
}

export const DEFAULT_FAILURE_TEXT = 'Delivery failed: the destination refused the alert';

/** The failing channels, by name (every channel of that name, in every account) or by intgGuid. */
export class ChannelHealth {
  private readonly failing = new Map<string, Failure>();

  fail(name: string, since: number, details = DEFAULT_FAILURE_TEXT): void {
    if (!this.failing.has(name)) this.failing.set(name, { since, details });
  }

  heal(name: string): boolean {
    return this.failing.delete(name);
  }

  of(r: IntegrationRecord): Failure | undefined {
    return this.failing.get(r.intgGuid) ?? this.failing.get(r.name);
  }

  list(): { name: string; since: number }[] {
    return [...this.failing].map(([name, f]) => ({ name, since: f.since }));
  }
}

/** The `state` of an alert channel: healthy or failing, and the times of its tests. */
export function channelState(r: IntegrationRecord, failure: Failure | undefined): Record<string, unknown> {
  return {
    ok: failure === undefined,
    lastUpdatedTime: Math.max(r.createdOrUpdatedTime, r.lastTestTime ?? 0, failure?.since ?? 0),
    lastSuccessfulTime: r.lastSuccessfulTime ?? 0,
    details: failure === undefined ? {} : { message: failure.details },
  };
}
