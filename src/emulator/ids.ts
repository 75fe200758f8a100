// Server-assigned identifiers.

import { randomBytes, randomUUID } from 'node:crypto';

const hex = (bytes: number): string => randomBytes(bytes).toString('hex').toUpperCase();

/** `<ACCOUNT upper, non-alphanumerics as _>_<32 upper hex>`, e.g. `PROD_0F3A…`. */
export function newIntgGuid(account: string): string {
  return `${account.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${hex(16)}`;
}

export const newMcGuid = (): string => randomUUID();

/** Agent access tokens: 56 hexadecimal characters. */
export const newAgentToken = (): string => hex(28);

/** Bearer tokens: opaque to clients. */
export const newBearerToken = (): string => `_${randomBytes(32).toString('hex')}`;

export const newKeyId = (): string => `EMULATOR_${hex(16)}`;
export const newSecret = (): string => `_${randomBytes(16).toString('hex')}`;

/** Result sets of paged searches (in nextPage URLs). */
export const newResultSetId = (): string => randomBytes(12).toString('hex');

/** Server tokens of agentless scanner integrations: 64 hexadecimal characters. */
export const newServerToken = (): string => randomBytes(32).toString('hex');
