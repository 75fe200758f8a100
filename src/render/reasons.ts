// How the renderings treat a reason: by its code (src/model/reasons.ts), never by its words. A
// failure is shown as one, a warning (something a person should look at even though the change is
// done) stands out, a note is quiet.

import type { ReasonCode } from '../model/reasons.js';
import type { Palette, Paint } from './ansi.js';

export type ReasonTone = 'note' | 'warning' | 'failure';

/** A record, so that a new code cannot reach a rendering without a tone. */
export const REASON_TONE: Readonly<Record<ReasonCode, ReasonTone>> = {
  // A replace deletes before it creates: the reason explains something destructive.
  'replace-because-cannot-update': 'warning',
  'update-because-reference-replaced': 'note',
  'delete-because-not-declared': 'note',
  'delete-because-not-in-parent': 'note',
  'created-after-unknown-outcome': 'note',
  'already-gone': 'note',
  // Two records of one name stay in the service.
  'not-started': 'note',
  'dependency-failed': 'note',
  'dependency-cycle': 'failure',
  'request-failed': 'failure',
  'outcome-unknown': 'failure',
  interrupted: 'failure',
  'replacement-failed': 'failure',
  'missing-value': 'failure',
  'no-longer-live': 'failure',
  'invalid-change': 'failure',
  'change-failed': 'failure',
};

/** The tone of a reason; a reason without a code (never made by postureops) is a note. */
export function reasonTone(code: ReasonCode | undefined): ReasonTone {
  return code === undefined ? 'note' : (REASON_TONE[code] ?? 'note');
}

/** The colour of a reason's message in a terminal. */
export function reasonPaint(code: ReasonCode | undefined, c: Palette): Paint {
  const tone = reasonTone(code);
  return tone === 'failure' ? c.red : tone === 'warning' ? c.yellow : c.dim;
}
