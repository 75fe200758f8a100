// Colour for terminal renderings, through Node's util.styleText: escape codes only when the caller
// asks for them (cmd/io.ts decides from the stream and the environment: validateStream is off), so
// goldens and pipes stay plain.

import { styleText } from 'node:util';

export type Paint = (text: string) => string;

export interface Palette {
  green: Paint;
  yellow: Paint;
  red: Paint;
  cyan: Paint;
  bold: Paint;
  dim: Paint;
}

type Style = Parameters<typeof styleText>[0];

const paint =
  (style: Style): Paint =>
  (text) =>
    text === '' ? text : styleText(style, text, { validateStream: false });

const plain: Paint = (text) => text;

export function palette(color: boolean): Palette {
  if (!color) return { green: plain, yellow: plain, red: plain, cyan: plain, bold: plain, dim: plain };
  return { green: paint('green'), yellow: paint('yellow'), red: paint('red'), cyan: paint('cyan'), bold: paint('bold'), dim: paint('dim') };
}
