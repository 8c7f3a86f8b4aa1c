import {
  JsonNumber,
  JsonSyntaxError,
  parseExactJson,
} from '../../src/adapters/bank/monnify/exact-json';
import { monnifyTime, nairaAmount } from '../../src/adapters/bank/monnify/monnify-values';

describe('monnifyTime: the forms in Monnify samples, Lagos time when no zone is given', () => {
  it.each([
    // MN-EVT reserved-account paidOn, and the brief's Monnify format with a 1-digit fraction.
    ['2021-11-17 11:28:42.615', '2021-11-17T10:28:42.615Z'],
    ['2023-06-05 15:12:45.0', '2023-06-05T14:12:45.000Z'],
    // Status answer paidOn and disbursement completedOn: day first, 12-hour clock.
    ['26/02/2020 09:38:13 AM', '2020-02-26T08:38:13.000Z'],
    ['17/11/2021 3:48:10 PM', '2021-11-17T14:48:10.000Z'],
    ['12/01/2021 12:05:00 AM', '2021-01-11T23:05:00.000Z'],
    ['12/01/2021 12:05:00 PM', '2021-01-12T11:05:00.000Z'],
    // With an offset: taken as written (disbursement dateCreated; ISO Z).
    ['2022-11-03T14:13:38.140+0000', '2022-11-03T14:13:38.140Z'],
    ['2026-05-24T10:18:55.000Z', '2026-05-24T10:18:55.000Z'],
    ['2026-05-24T10:18:55+01:00', '2026-05-24T09:18:55.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(monnifyTime(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '31/02/2021 1:00:00 PM',
    '2021-13-01 10:00:00',
    '2021-11-17 24:00:00',
    '17/11/2021 13:48:10 PM',
    '17/11/2021 0:48:10 AM',
    'yesterday',
    '',
    '1637145000',
  ])('gives null for %j', (text) => {
    expect(monnifyTime(text)).toBeNull();
  });

  it('gives null for what is not a string', () => {
    expect(monnifyTime(new JsonNumber('1637145000'))).toBeNull();
    expect(monnifyTime(null)).toBeNull();
    expect(monnifyTime(undefined)).toBeNull();
  });
});

describe('nairaAmount: naira in major units, never through a float', () => {
  it.each([
    [new JsonNumber('3000'), '3000.00'],
    [new JsonNumber('5000.5'), '5000.50'],
    ['5000.5', '5000.50'],
    [' 180000.00 ', '180000.00'],
    [new JsonNumber('100000000000'), '100000000000.00'],
  ])('reads %p as %s', (value, expected) => {
    expect(nairaAmount(value)).toBe(expected);
  });

  it.each([
    new JsonNumber('5000.505'),
    new JsonNumber('5000.0000000000001'),
    new JsonNumber('1e3'),
    new JsonNumber('-1'),
    new JsonNumber('0'),
    new JsonNumber('100000000000.01'),
    '5,000',
    '',
    null,
    true,
  ])('refuses %p', (value) => {
    expect(nairaAmount(value)).toBeNull();
  });
});

describe('parseExactJson', () => {
  it('keeps numbers as written and reads everything else like JSON.parse', () => {
    const text = '{"a":5000.505,"b":[1e3,-0.5,"x\\u00e9\\n"],"c":{"d":null,"e":true,"f":false}}';
    const parsed = parseExactJson(text) as Record<string, unknown>;
    expect(parsed.a).toEqual(new JsonNumber('5000.505'));
    expect(parsed.b).toEqual([new JsonNumber('1e3'), new JsonNumber('-0.5'), 'xé\n']);
    expect({ ...(parsed.c as object) }).toEqual({ d: null, e: true, f: false });
  });

  it.each([
    '',
    '{',
    '{"a":1,}',
    '[1 2]',
    '{"a":01}',
    '{"a":.5}',
    '{"a":"\u0001"}',
    '{"a":"\\x"}',
    "{'a':1}",
    '{"a":1}{}',
    '{"a":1,"a":2}',
    'NaN',
    `${'['.repeat(40)}${']'.repeat(40)}`,
  ])('refuses %j', (text) => {
    expect(() => parseExactJson(text)).toThrow(JsonSyntaxError);
  });
});
