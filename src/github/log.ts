// The Action's job log, the one way out for its lines and annotations. Everything passes the CI-log
// neutraliser (src/model/inert.ts): controls shown escaped, and no line that outside text could make
// a workflow command. @actions/core escapes an annotation's message and properties (`%`, CR, LF, and
// `:` `,` in properties) so they cannot end the command early; the neutraliser first takes out what
// the log viewer would act on (ESC sequences, bidi overrides).

import * as core from '@actions/core';
import { inertLog, inertText } from '../model/inert.js';

function props(p: core.AnnotationProperties | undefined): core.AnnotationProperties | undefined {
  if (!p) return undefined;
  return {
    ...p,
    ...(p.title !== undefined ? { title: inertText(p.title) } : {}),
    ...(p.file !== undefined ? { file: inertText(p.file) } : {}),
  };
}

/** A block of log text (a rendered plan, a line): lines stay lines, none can start a command. */
export function info(text: string): void {
  core.info(inertLog(text));
}

export function warning(message: string, properties?: core.AnnotationProperties): void {
  core.warning(inertLog(message), props(properties));
}

export function error(message: string, properties?: core.AnnotationProperties): void {
  core.error(inertLog(message), props(properties));
}

export function notice(message: string, properties?: core.AnnotationProperties): void {
  core.notice(inertLog(message), props(properties));
}

/** An error annotation and a failed step. */
export function setFailed(message: string): void {
  core.setFailed(inertLog(message));
}

/** A phase of the run folded in the job log (`::group::`); its title is one neutralised line. */
export function group<T>(title: string, phase: () => Promise<T>): Promise<T> {
  return core.group(inertText(title), phase);
}
