// The kinds a plan must read in an account. A kind with nothing declared in the account, that prune
// leaves alone and that nothing declared refers to, can neither change nor be deleted there: reading
// it would only spend the rate-limit budget of its list (a pull request touching 3 accounts then
// needs 3 lists per kind it uses, not one per kind of the registry). What a wanted kind refers to is
// read (its ids become names), and so are the kinds that refer to a kind that may lose a resource
// (pruned, or declared and replaceable): a channel that prune may delete must be checked against
// the live rules still routing to it. One step, not a closure: a kind read only for that needs
// nothing of its own read. Kinds read with the same list (a profile
// and its templates) come along at no cost.

import type { AccountConfig, DesiredState } from '../../model/account.js';
import type { Kind } from '../../kinds/types.js';
import type { Plan, UnreadKinds } from '../../model/plan.js';

export function neededKinds(desired: Pick<DesiredState, 'root' | 'resources'>, kinds: readonly Kind[]): (account: AccountConfig) => Kind[] {
  const byName = new Map(kinds.map((k) => [k.kind, k]));
  const declared = new Map<string, Set<string>>();
  for (const r of desired.resources) {
    const set = declared.get(r.account) ?? new Set<string>();
    set.add(r.kind);
    declared.set(r.account, set);
  }
  const pruned = kinds.filter((k) => desired.root.prune[k.kind] === true).map((k) => k.kind);
  const referrers = new Map<string, string[]>();
  for (const k of kinds) for (const r of [...(k.references ?? []), ...(k.memberReferences ?? [])]) referrers.set(r.kind, [...(referrers.get(r.kind) ?? []), k.kind]);
  return (account) => {
    // What may change here: the kinds declared in the account and the pruned ones.
    const here = declared.get(account.name) ?? new Set<string>();
    const wanted = new Set<string>([...here, ...pruned]);
    const read = new Set(wanted);
    for (const name of wanted) {
      const kind = byName.get(name);
      if (!kind) continue;
      // Only a pruned kind can lose a resource, and only a declared kind with replaceOn can have one
      // replaced: what refers to those is read for the in-use check of that delete.
      const removable = pruned.includes(name) || (here.has(name) && (kind.compare?.replaceOn ?? []).length > 0);
      // What they refer to (live ids become names), their parents, and what refers to a removable
      // kind. Not further: a kind read only for its names or for what it uses is never compared, so
      // its own references need no names (fetch leaves them).
      for (const next of [...(kind.references ?? []).map((r) => r.kind), ...(kind.memberReferences ?? []).map((r) => r.kind), ...(kind.hierarchy?.parentKind ? [kind.hierarchy?.parentKind] : []), ...(removable ? (referrers.get(kind.kind) ?? []) : [])]) {
        read.add(next);
      }
    }
    const collections = new Set(kinds.filter((k) => read.has(k.kind)).map((k) => k.collection));
    return kinds.filter((k) => collections.has(k.collection));
  };
}

/**
 * For kinds listed per parent (Kind.perParent): the parents a repository declares records under, per
 * account. Only they are read (one request each), so a repository with exceptions for 3 policies
 * reads 3 lists, not one per live policy; the pre-flight counts the same (readGroups).
 */
export function declaredParents(desired: Pick<DesiredState, 'resources'>, kinds: readonly Kind[]): (account: AccountConfig, kind: string) => readonly string[] | undefined {
  const perParent = new Set(kinds.filter((k) => k.perParent).map((k) => k.kind));
  const parents = new Map<string, Set<string>>();
  for (const r of desired.resources) {
    if (!perParent.has(r.kind) || r.parent === undefined) continue;
    const key = JSON.stringify([r.account, r.kind]);
    parents.set(key, (parents.get(key) ?? new Set()).add(r.parent));
  }
  return (account, kind) => (perParent.has(kind) ? [...(parents.get(JSON.stringify([account.name, kind])) ?? [])].sort() : undefined);
}

/** Per account in scope, the kinds `kindsOf` leaves out (accounts with none left out are omitted). */
export function unreadKinds(accounts: readonly AccountConfig[], kinds: readonly Kind[], kindsOf: (account: AccountConfig) => readonly Kind[]): UnreadKinds[] {
  const out: UnreadKinds[] = [];
  for (const account of accounts) {
    const read = new Set(kindsOf(account).map((k) => k.kind));
    const left = kinds.filter((k) => !read.has(k.kind)).map((k) => k.kind);
    if (left.length > 0) out.push({ account: account.name, kinds: left });
  }
  return out;
}

/**
 * What a saved plan needs read to be checked for staleness: the kinds of its changes, their
 * children and what they refer to (neededKinds adds references, parents and shared lists).
 */
export function planNeeds(plan: Pick<Plan, 'changes'>): Pick<DesiredState, 'root' | 'resources'> {
  const resources: DesiredState['resources'] = [];
  for (const c of plan.changes) {
    resources.push({ kind: c.kind, account: c.account, name: c.name, spec: {}, envRefs: {} });
    for (const ref of c.refs ?? []) resources.push({ kind: ref.kind, account: c.account, name: ref.name, spec: {}, envRefs: {} });
  }
  return { root: { file: '', accounts: [], prune: {} }, resources };
}
