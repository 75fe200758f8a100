// Colour for terminal renderings: escape codes only when asked for, so goldens and pipes stay plain.

export type Paint = (text: string) => string;

export interface Palette {
  green: Paint;
  yellow: Paint;
  red: Paint;
  cyan: Paint;
  bold: Paint;
  dim: Paint;
}

const wrap =
  (open: number, close: number): Paint =>
  (text) =>
    text === '' ? text : `\u001b[${open}m${text}\u001b[${close}m`;

const plain: Paint = (text) => text;

export function palette(color: boolean): Palette {
  if (!color) return { green: plain, yellow: plain, red: plain, cyan: plain, bold: plain, dim: plain };
  return {
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    red: wrap(31, 39),
    cyan: wrap(36, 39),
    bold: wrap(1, 22),
    dim: wrap(2, 22),
  };
}
