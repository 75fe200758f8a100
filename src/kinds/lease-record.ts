// The apply lease as a record of the service: a disabled Webhook integration with a well-known name
// whose URL (under the reserved `.invalid` domain, so it can never deliver anything) carries the
// owner, the expiry and the holder. Any integration collection that takes a Webhook can hold it.

import { isObject } from '../model/json.js';
import { apiPath, request } from './common.js';
import type { LeaseData, LeaseHook, LiveResource } from './types.js';

export const LEASE_NAME = 'postureops-apply-lease';
const LEASE_HOST = 'apply-lease.postureops.invalid';
const LEASE_TYPE = 'Webhook';

function leaseUrl(lease: LeaseData): string {
  const url = new URL(`https://${LEASE_HOST}/`);
  url.searchParams.set('owner', lease.owner);
  url.searchParams.set('expires', String(lease.expiresAt));
  url.searchParams.set('holder', lease.holder);
  return url.toString();
}

function readUrl(value: unknown): LeaseData | undefined {
  if (typeof value !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.hostname !== LEASE_HOST) return undefined;
  const owner = url.searchParams.get('owner');
  const expiresAt = Number(url.searchParams.get('expires'));
  if (!owner || !Number.isFinite(expiresAt)) return undefined;
  return { owner, expiresAt, holder: url.searchParams.get('holder') ?? '' };
}

export function webhookLease(collection: string): LeaseHook {
  const listPath = apiPath(collection);
  const body = (lease: LeaseData) => ({ name: LEASE_NAME, type: LEASE_TYPE, enabled: 0, data: { webhookUrl: leaseUrl(lease) } });
  return {
    createRequest: (lease, ctx) => request(ctx, 'POST', listPath, body(lease)),
    renewRequest: (id, lease, ctx) => request(ctx, 'PATCH', apiPath(collection, id), { data: body(lease).data }),
    read(live: LiveResource): LeaseData | undefined {
      if (live.name !== LEASE_NAME || live.spec.type !== LEASE_TYPE || !isObject(live.spec.data)) return undefined;
      return readUrl(live.spec.data.webhookUrl);
    },
  };
}
