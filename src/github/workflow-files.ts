// Step outputs and the job summary: files the runner reads after the step. Outputs use the
// multiline syntax with a random delimiter, so no value can end its entry early or add another.

import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';

/** `name<<delimiter\nvalue\ndelimiter\n` per output. */
export function formatOutputs(outputs: Record<string, string>, newDelimiter: () => string = () => `ghadelimiter_${randomUUID()}`): string {
  let text = '';
  for (const [name, value] of Object.entries(outputs)) {
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) throw new Error(`invalid output name: ${name}`);
    const delimiter = newDelimiter();
    if (value.includes(delimiter)) throw new Error(`output ${name} contains its delimiter`);
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  return text;
}

export function appendOutputs(path: string, outputs: Record<string, string>): void {
  appendFileSync(path, formatOutputs(outputs), 'utf8');
}

export function appendSummary(path: string, markdown: string): void {
  appendFileSync(path, markdown.endsWith('\n') ? markdown + '\n' : markdown + '\n\n', 'utf8');
}
