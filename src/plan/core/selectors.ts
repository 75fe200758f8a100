// Selectors of `--rotate`, `--target` and the root's `protect`: `[account/]Kind/name`, `*` a glob.
// Accounts and kinds never hold `/`, but names may (`Team A / PagerDuty`): the first one or two
// parts are the account and the kind, the rest is the name, and `*` in the name matches anything.

export interface Selector {
  text: string;
  parts: string[];
}

export function parseSelector(text: string): Selector {
  return { text, parts: text.split('/') };
}

function glob(pattern: string, value: string): boolean {
  const source = pattern
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(value);
}

/** True when the selector names the resource, with or without its account. */
export function selects(selector: Selector, account: string, kind: string, name: string): boolean {
  const [first, second, ...rest] = selector.parts;
  if (second === undefined) return false;
  const withoutAccount = glob(first, kind) && glob([second, ...rest].join('/'), name);
  const withAccount = rest.length > 0 && glob(first, account) && glob(second, kind) && glob(rest.join('/'), name);
  return withoutAccount || withAccount;
}
