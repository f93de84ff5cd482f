// A strict RFC 4180 parser for the export tests: CRLF record separators, quoted cells with
// doubled quotes; a bare CR or LF outside quotes, or a stray quote, is an error.
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let i = 0;
  let quoted = false;
  let cellStart = true;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        if (i < text.length && text[i] !== "," && text[i] !== "\r") throw new Error(`character after closing quote at ${i}`);
        continue;
      }
      cell += c;
      i++;
      continue;
    }
    if (c === '"') {
      if (!cellStart) throw new Error(`quote inside an unquoted cell at ${i}`);
      quoted = true;
      cellStart = false;
      i++;
      continue;
    }
    if (c === ",") {
      row.push(cell);
      cell = "";
      cellStart = true;
      i++;
      continue;
    }
    if (c === "\r") {
      if (text[i + 1] !== "\n") throw new Error(`bare CR at ${i}`);
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      cellStart = true;
      i += 2;
      continue;
    }
    if (c === "\n") throw new Error(`bare LF at ${i}`);
    cell += c;
    cellStart = false;
    i++;
  }
  if (quoted) throw new Error("unterminated quoted cell");
  if (!cellStart || row.length) throw new Error("last record lacks its CRLF");
  return rows;
}
