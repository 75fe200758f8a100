// The key that signs saved plans (POSTUREOPS_PLAN_KEY, from the environment or the .env the user
// pointed at): read once per command, an unusable one refused before anything is read or sent.

import { EXIT, ExitError, type Io } from './io.js';

export async function planKey(io: Io): Promise<string | undefined> {
  const { planKeyFrom, PlanKeyError } = await import('../src/plan/saved/plan-file.js');
  try {
    return planKeyFrom(io.env);
  } catch (err) {
    if (err instanceof PlanKeyError) throw new ExitError(EXIT.error, err.message);
    throw err;
  }
}

/** How a saved plan's signature is described where it is saved. */
export function signedNote(key: string | undefined): string {
  return key !== undefined ? 'signed with POSTUREOPS_PLAN_KEY' : 'unsigned: POSTUREOPS_PLAN_KEY is not set';
}
