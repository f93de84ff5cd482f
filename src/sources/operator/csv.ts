// CSV as RFC 4180 writes it: comma-separated, fields in double quotes may hold commas, line
// breaks and doubled quotes; CRLF or LF line ends. Each row keeps the line it starts on, so an
// error can name it.

export interface CsvRow {
  line: number;
  cells: string[];
}

export class CsvError extends Error {}

export function parseCsv(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let cells: string[] = [];
  let cell = "";
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte-order mark is not data
  const endRow = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0] !== "") rows.push({ line: rowLine, cells });
    cells = [];
    cell = "";
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === "\n") line++;
        cell += c;
      }
    } else if (c === '"' && cell === "") quoted = true;
    else if (c === ",") {
      cells.push(cell);
      cell = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRow();
      rowLine = ++line;
    } else if (c === '"') throw new CsvError(`line ${line}: a quote inside an unquoted field`);
    else cell += c;
  }
  if (quoted) throw new CsvError(`line ${rowLine}: a quoted field is not closed`);
  if (cell !== "" || cells.length) endRow();
  return rows;
}
