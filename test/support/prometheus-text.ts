/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for tests: every line is a
 * `# HELP`, a `# TYPE`, another comment, blank, or a sample `name{label="value",...} value
 * [timestamp]`; every sample belongs to a family declared with HELP and TYPE before it;
 * histograms have an `le="+Inf"` bucket equal to `_count` and cumulative buckets. Anything
 * else throws, naming the line.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

export type Exposition = Map<string, MetricFamily>;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<string, MetricType[]> = {
  _bucket: ['histogram'],
  _sum: ['histogram', 'summary'],
  _count: ['histogram', 'summary'],
};

/** Numbers as Prometheus reads them (Go's ParseFloat: NaN and Inf in any case; prom-client writes "Nan"). */
function parseValue(text: string, where: string): number {
  if (/^nan$/i.test(text)) return NaN;
  if (/^\+?inf(inity)?$/i.test(text)) return Infinity;
  if (/^-inf(inity)?$/i.test(text)) return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
    throw new Error(`${where}: bad value ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/** Reads `{a="x",b="y"}` starting at `text[0] === '{'`; returns the labels and the rest. */
function parseLabels(text: string, where: string): [Record<string, string>, string] {
  const labels: Record<string, string> = {};
  let i = 1;
  const fail = (why: string): never => {
    throw new Error(`${where}: ${why} in labels`);
  };
  while (true) {
    if (text[i] === '}') return [labels, text.slice(i + 1)];
    const eq = text.indexOf('=', i);
    if (eq < 0) fail('no "="');
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) fail(`bad label name ${JSON.stringify(name)}`);
    if (name in labels) fail(`label ${name} twice`);
    if (text[eq + 1] !== '"') fail('unquoted value');
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j += 1) {
      if (text[j] === '\\') {
        const next = text[j + 1];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else fail(`bad escape \\${next}`);
        j += 1;
      } else if (text[j] === '\n') {
        fail('raw newline');
      } else {
        value += text[j];
      }
    }
    if (j >= text.length) fail('unterminated value');
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i += 1;
    else if (text[i] !== '}') fail(`expected "," or "}" at ${JSON.stringify(text.slice(i))}`);
  }
}

export function parsePrometheusText(text: string): Exposition {
  const families: Exposition = new Map();
  const helps = new Map<string, string>();
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const familyOf = (sample: string): MetricFamily | undefined => {
    const exact = families.get(sample);
    if (exact) return exact;
    for (const [suffix, types] of Object.entries(SUFFIXES)) {
      if (!sample.endsWith(suffix)) continue;
      const family = families.get(sample.slice(0, -suffix.length));
      if (family && types.includes(family.type)) return family;
    }
    return undefined;
  };

  lines.forEach((line, index) => {
    const where = `line ${index + 1} (${JSON.stringify(line.slice(0, 80))})`;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const help = /^# HELP (\S+) ?(.*)$/.exec(line);
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (help) {
        if (!NAME.test(help[1])) throw new Error(`${where}: bad metric name`);
        if (helps.has(help[1])) throw new Error(`${where}: second HELP for ${help[1]}`);
        helps.set(help[1], help[2]);
        const family = families.get(help[1]);
        if (family) family.help = help[2];
      } else if (type) {
        if (!NAME.test(type[1])) throw new Error(`${where}: bad metric name`);
        if (!TYPES.has(type[2] as MetricType)) throw new Error(`${where}: unknown type`);
        if (families.has(type[1])) throw new Error(`${where}: second TYPE for ${type[1]}`);
        families.set(type[1], {
          name: type[1],
          help: helps.get(type[1]) ?? '',
          type: type[2] as MetricType,
          samples: [],
        });
      } else if (/^# (HELP|TYPE)\b/.test(line)) {
        throw new Error(`${where}: malformed ${line.slice(2, 6)} line`);
      }
      return;
    }
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
    if (!name) throw new Error(`${where}: no metric name`);
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) [labels, rest] = parseLabels(rest, where);
    const parts = rest.split(' ');
    if (parts[0] !== '' || parts.length < 2 || parts.length > 3) {
      throw new Error(`${where}: expected "name{labels} value [timestamp]"`);
    }
    const value = parseValue(parts[1], where);
    if (parts[2] !== undefined && !/^-?\d+$/.test(parts[2])) {
      throw new Error(`${where}: bad timestamp`);
    }
    const family = familyOf(name);
    if (!family) throw new Error(`${where}: sample before its TYPE line`);
    family.samples.push({ name, labels, value });
  });

  for (const family of families.values()) {
    if (!helps.has(family.name)) throw new Error(`${family.name} has no HELP line`);
    if (family.type === 'histogram') checkHistogram(family);
  }
  for (const name of helps.keys()) {
    if (!families.has(name)) throw new Error(`${name} has HELP but no TYPE`);
  }
  return families;
}

function seriesKey(labels: Record<string, string>, without: string): string {
  return JSON.stringify(
    Object.entries(labels)
      .filter(([name]) => name !== without)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

function checkHistogram(family: MetricFamily): void {
  const series = new Map<string, { buckets: Array<[number, number]>; count?: number }>();
  const entry = (labels: Record<string, string>) => {
    const key = seriesKey(labels, 'le');
    let found = series.get(key);
    if (!found) series.set(key, (found = { buckets: [] }));
    return found;
  };
  for (const sample of family.samples) {
    if (sample.name === `${family.name}_bucket`) {
      const le = sample.labels.le;
      if (le === undefined) throw new Error(`${family.name}: bucket without le`);
      entry(sample.labels).buckets.push([parseValue(le, family.name), sample.value]);
    } else if (sample.name === `${family.name}_count`) {
      entry(sample.labels).count = sample.value;
    }
  }
  for (const [key, { buckets, count }] of series) {
    const where = `${family.name}${key}`;
    const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i += 1) {
      if (sorted[i][1] < sorted[i - 1][1]) throw new Error(`${where}: buckets not cumulative`);
    }
    const inf = sorted.find(([le]) => le === Infinity);
    if (!inf) throw new Error(`${where}: no le="+Inf" bucket`);
    if (count === undefined || inf[1] !== count) {
      throw new Error(`${where}: +Inf bucket ${inf[1]} differs from _count ${count}`);
    }
  }
}

/**
 * The value of the one sample named `name` whose labels include `labels`; the sum over all of
 * them when several match (e.g. every status code of a route); undefined when none does.
 */
export function sampleValue(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  let total: number | undefined;
  for (const family of exposition.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue;
      if (Object.entries(labels).some(([k, v]) => sample.labels[k] !== v)) continue;
      total = (total ?? 0) + sample.value;
    }
  }
  return total;
}

/** Fetches and parses a `/metrics` URL, checking status and content type. */
export async function scrape(url: string): Promise<Exposition> {
  const response = await fetch(url);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text}`);
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain; version=0.0.4')) {
    throw new Error(`${url} content-type ${type}`);
  }
  return parsePrometheusText(text);
}
