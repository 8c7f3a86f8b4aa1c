import { parse } from 'csv-parse/sync';
import { csvField, csvNumber, csvRecord, csvText, parseCsv } from '../../src/domain/csv';

/** A seeded generator, so a failing case replays (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('RFC 4180 CSV', () => {
  it('quotes only what needs quoting, doubling quotes, and ends records with CRLF', () => {
    expect(csvRecord(['a', 'b c', null, '1.50'])).toBe('a,b c,,1.50\r\n');
    expect(csvField('Ade, Bola')).toBe('"Ade, Bola"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\ronly')).toBe('"cr\ronly"');
  });

  it('defuses text a spreadsheet would run as a formula, and leaves ours alone', () => {
    expect(csvText('=HYPERLINK("http://x")')).toBe('\'=HYPERLINK("http://x")');
    expect(csvText('+234')).toBe("'+234");
    expect(csvText('-1')).toBe("'-1");
    expect(csvText('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvText('\tcmd')).toBe("'\tcmd");
    expect(csvText('Ada Obi')).toBe('Ada Obi');
    expect(csvText(null)).toBeNull();
    // Amounts are not text: a negative net stays a number.
    expect(csvRecord([csvNumber('-25.000000')])).toBe('-25.000000\r\n');
  });

  it('treats every cell as text unless it is an amount: reasons and account digits included', () => {
    // What a bank or a person can put in a flag or failure reason, a name, an account's digits.
    const cells = ['=HYPERLINK("http://x","y")', '+1', '-2+3', '@A1', '\tx', '\rx', '=1+2'];
    expect(parseCsv(csvRecord(cells))[0]).toEqual(cells.map((c) => `'${c}`));
    // Starting elsewhere: untouched, even with a formula character inside.
    expect(csvRecord(['Ada =Obi', 'Underpaid', '6789', 'a-b'])).toBe(
      'Ada =Obi,Underpaid,6789,a-b\r\n',
    );
    // A negative amount given as text would be defused: amounts go through csvNumber.
    expect(csvRecord(['-1500.00'])).toBe("'-1500.00\r\n");
    expect(csvRecord([csvNumber('-1500.00'), csvNumber('20000.00'), csvNumber(null)])).toBe(
      '-1500.00,20000.00,\r\n',
    );
    // Only exact decimals are numbers: anything else given as an amount is text, defused.
    for (const fake of ['-1+2', '=1', '1e5', '-', '- 1', '1.', '.5', '-0x10']) {
      expect(parseCsv(csvRecord([csvNumber(fake)]))[0][0]).toBe(csvText(fake));
    }
    expect(csvRecord([csvNumber('-1+2')])).toBe("'-1+2\r\n");
  });

  it('parses back, by an independent parser and its own, to the same fields (seeded)', () => {
    const random = seeded(21);
    const alphabet = ['a', 'Z', '0', ',', '"', '\r', '\n', ' ', 'é', '₦', '='];
    for (let run = 0; run < 300; run++) {
      const records = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
        Array.from({ length: 3 }, () =>
          Array.from(
            { length: Math.floor(random() * 8) },
            () => alphabet[Math.floor(random() * alphabet.length)],
          ).join(''),
        ),
      );
      const text = records.map((r) => csvRecord(r)).join('');
      // What is read back is the text as written: defused where it started like a formula.
      const written = records.map((r) => r.map((cell) => csvText(cell)));
      expect(parse(text, { relax_column_count: false })).toEqual(written);
      expect(parseCsv(text)).toEqual(written);
    }
  });
});
