// A strict RFC 4180 reader for checking exports: quoted fields, doubled quotes, CRLF records. Throws on
// anything a conforming writer would not produce.
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let index = 0;
  while (index < text.length) {
    if (text[index] === '"' && field === '') {
      index++;
      for (;;) {
        if (index >= text.length) throw new Error('unterminated quoted field');
        if (text[index] === '"') {
          if (text[index + 1] === '"') {
            field += '"';
            index += 2;
            continue;
          }
          index++;
          break;
        }
        field += text[index++];
      }
      if (index < text.length && text[index] !== ',' && text[index] !== '\r') throw new Error(`unexpected ${JSON.stringify(text[index])} after a quoted field`);
      continue;
    }
    const char = text[index]!;
    if (char === ',') {
      record.push(field);
      field = '';
      index++;
    } else if (char === '\r') {
      if (text[index + 1] !== '\n') throw new Error('CR without LF');
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 2;
    } else if (char === '\n' || char === '"') {
      throw new Error(`bare ${JSON.stringify(char)} in an unquoted field`);
    } else {
      field += char;
      index++;
    }
  }
  if (field !== '' || record.length) throw new Error('the last record does not end with CRLF');
  return records;
}

/** Records as objects keyed by the header row. */
export function csvObjects(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map((row) => {
    if (row.length !== header.length) throw new Error(`a record has ${row.length} fields, the header ${header.length}`);
    return Object.fromEntries(header.map((name, column) => [name, row[column]!]));
  });
}

/** JSON Lines: every line one JSON object, the text ending with a newline. */
export function parseJsonLines(text: string): Record<string, unknown>[] {
  if (text === '') return [];
  if (!text.endsWith('\n')) throw new Error('JSON Lines text must end with a newline');
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
