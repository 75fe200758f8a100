// The emulator's data: one scope per account plus the organization-level scope, counters and audit logs.
// Tokens and rate-limit buckets are not data: they live in memory only.

import { loadState, saveState } from './persistence.js';
import type { AuditRecord, ScopeData, StateDocument } from './model.js';

/** Oldest audit records are dropped beyond this many per scope. */
const AUDIT_CAP = 5000;

export function emptyScope(): ScopeData {
  return {
    alertChannels: [],
    cloudAccounts: [],
    containerRegistries: [],
    alertRules: [],
    alertProfiles: [],
    agentAccessTokens: [],
    auditLogs: [],
  };
}

export class Store {
  private readonly doc: StateDocument;
  private readonly statePath?: string;

  private constructor(doc: StateDocument, statePath?: string) {
    this.doc = doc;
    this.statePath = statePath;
  }

  /** Reads `statePath` when given (a missing file starts empty; an unreadable one throws). */
  static open(accounts: readonly string[], statePath?: string): Store {
    const loaded = statePath !== undefined ? loadState(statePath) : undefined;
    const doc: StateDocument = loaded ?? { formatVersion: 1, accounts: {}, org: emptyScope(), counters: { writes: 0 } };
    for (const name of accounts) doc.accounts[name.toLowerCase()] ??= emptyScope();
    return new Store(doc, statePath);
  }

  account(name: string): ScopeData {
    const scope = this.doc.accounts[name.toLowerCase()];
    if (scope === undefined) throw new Error(`emulator: no data for account ${name}`);
    return scope;
  }

  org(): ScopeData {
    return this.doc.org;
  }

  audit(scope: ScopeData, record: AuditRecord): void {
    scope.auditLogs.push(record);
    if (scope.auditLogs.length > AUDIT_CAP) scope.auditLogs.splice(0, scope.auditLogs.length - AUDIT_CAP);
    this.doc.counters.writes += 1;
  }

  /** The failing channels the state file recorded at the last run. */
  failingChannels(): { name: string; since: number }[] {
    return [...(this.doc.failingChannels ?? [])];
  }

  setFailingChannels(list: { name: string; since: number }[]): void {
    this.doc.failingChannels = list.map((f) => ({ ...f }));
  }

  /** Scopes of every account (seeding). */
  accountNames(): string[] {
    return Object.keys(this.doc.accounts);
  }

  writes(): number {
    return this.doc.counters.writes;
  }

  /** Persists everything (atomically) when a state file is configured. */
  save(): void {
    if (this.statePath !== undefined) saveState(this.statePath, this.doc);
  }
}
