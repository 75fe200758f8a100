// `--rotate` selectors: `[account/]Kind/name`, where `*` matches within one part.

export interface Selector {
  text: string;
  pattern: RegExp;
}

export function parseSelector(text: string): Selector {
  const source = text
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  return { text, pattern: new RegExp(`^${source}$`) };
}

/** True when the selector names the resource, with or without its account. */
export function selects(selector: Selector, account: string, kind: string, name: string): boolean {
  return selector.pattern.test(`${account}/${kind}/${name}`) || selector.pattern.test(`${kind}/${name}`);
}
