// The one order of text postureops sorts by: code units, the same on every machine whatever its
// locale (`localeCompare` is not), so plans, exports and reports come out byte for byte alike.

/** Code-unit order of two texts, for `Array.prototype.sort`. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
