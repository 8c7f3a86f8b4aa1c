import { z } from 'zod';
import { configSchema } from './config';
import { SERVICE_CONFIG_SECTIONS } from './config-docs-service';
import { MONEY_CONFIG_SECTIONS } from './config-docs-money';
import { OBSERVABILITY_CONFIG_SECTIONS } from './config-docs-observability';
import type { ConfigSection } from './config-docs-types';

/** One setting as documented: its schema facts and its meaning. */
interface DocumentedField {
  name: string;
  defaultText: string;
  /** The raw default for .env.example (`NAME=value`), or undefined when unset. */
  defaultValue?: string;
  values: string;
  text: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type JsonSchema = Record<string, any>;

/**
 * Read by `npm start` alone (src/cli/start.ts, src/embedded/anvil.ts, src/cli/node-flags.ts),
 * never by the two processes, so they are not in `configSchema`.
 */
const START_ONLY: DocumentedField[] = [
  {
    name: 'EMBEDDED_PG_PORT',
    defaultText: '`54329`',
    defaultValue: '54329',
    values: 'port',
    text: 'Port of the embedded PostgreSQL.',
  },
  {
    name: 'EMBEDDED_CHAIN_BASE_PORT',
    defaultText: '`8545`',
    defaultValue: '8545',
    values: 'port',
    text: 'Ports of the local chains: BASE on this one, ETHEREUM and POLYGON on the next two.',
  },
  {
    name: 'ANVIL_BINARY',
    defaultText: 'unset',
    values: 'path',
    text: 'An anvil binary for the local chains, where no `@foundry-rs/anvil-<platform>-<arch>` package is installed.',
  },
  {
    name: 'ONRAMP_HEAP_MB',
    defaultText: '`128`',
    defaultValue: '128',
    values: 'integer ≥ 64',
    text: 'The V8 old-generation cap (`--max-old-space-size`) of the two processes `npm start` runs; `npm run gateway`/`jobs` and the image pass `128` themselves.',
  },
];

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A short account of the values a setting accepts, from its JSON Schema (input side). */
function valuesOf(schema: JsonSchema): string {
  const options: JsonSchema[] = schema.anyOf ?? [schema];
  const main = options.find((option) => option.const !== '') ?? schema;
  if (main.enum) return main.enum.map((value: string) => `\`${value}\``).join(', ');
  if (main.format === 'uri') return 'URL';
  if (main.type === 'integer' || main.type === 'number') {
    const lowest = main.exclusiveMinimum !== undefined ? main.exclusiveMinimum + 1 : main.minimum;
    const min = lowest !== undefined && lowest > -MAX_SAFE ? lowest : undefined;
    const max = main.maximum !== undefined && main.maximum < MAX_SAFE ? main.maximum : undefined;
    if (min !== undefined && max !== undefined) return `${min}-${max}`;
    return min !== undefined ? `integer ≥ ${min}` : 'integer';
  }
  if (main.pattern === '^0x[0-9a-fA-F]{40}$') return '0x address';
  return 'text';
}

/** What the documentation is made of; the defaults are the service's, a test passes others. */
export interface ConfigDocsSource {
  schema: z.ZodObject;
  sections: ConfigSection[];
}
/** Every section of docs/configuration.md, in order. */
export const CONFIG_SECTIONS: ConfigSection[] = [
  ...SERVICE_CONFIG_SECTIONS,
  ...OBSERVABILITY_CONFIG_SECTIONS,
  ...MONEY_CONFIG_SECTIONS,
];
const SERVICE: ConfigDocsSource = { schema: configSchema, sections: CONFIG_SECTIONS };

/** Every setting of the schema with its documentation, in the sections' order. */
function documentedSections({
  schema: objectSchema,
  sections: described,
}: ConfigDocsSource): Array<{ title: string; fields: DocumentedField[] }> {
  const json = z.toJSONSchema(objectSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const properties: Record<string, JsonSchema> = json.properties;
  const undocumented = new Set(Object.keys(properties));
  const problems: string[] = [];
  const sections = described.map((section) => ({
    title: section.title,
    fields: Object.entries(section.fields).map(([name, doc]): DocumentedField => {
      const schema = properties[name];
      if (!schema) {
        problems.push(`${name} is documented but not in configSchema`);
        return { name, defaultText: '', values: '', text: doc.text };
      }
      if (!undocumented.delete(name)) problems.push(`${name} is documented twice`);
      const fallback = schema.default as string | number | undefined;
      if (fallback !== undefined && doc.default !== undefined) {
        problems.push(`${name}: the schema's default (${fallback}) is the one documented`);
      }
      return {
        name,
        defaultText: fallback !== undefined ? `\`${fallback}\`` : (doc.default ?? 'unset'),
        defaultValue: fallback !== undefined ? String(fallback) : undefined,
        values: valuesOf(schema),
        text: doc.text,
      };
    }),
  }));
  for (const name of undocumented) {
    problems.push(
      `${name} has no description (src/config-docs-service.ts, -observability.ts or -money.ts)`,
    );
  }
  if (problems.length > 0) throw new Error(`configuration docs:\n  ${problems.join('\n  ')}`);
  return [...sections, { title: '`npm start` only', fields: START_ONLY }];
}

const GENERATED_BY =
  'Generated from the configuration schema (src/config.ts) and src/config-docs-*.ts by ' +
  '`npm run docs:generate`; a test fails when it is edited by hand or stale.';

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** docs/configuration.md: every setting, its default, its values and its meaning. */
export function configurationMarkdown(source: ConfigDocsSource = SERVICE): string {
  const lines = [
    '# Configuration',
    '',
    `<!-- ${GENERATED_BY} -->`,
    '',
    'Everything is read from the environment and validated at start-up; an empty value counts',
    'as unset. A bad value stops the process with one line per problem naming the variable',
    '(exit 78). `ONRAMP_ENV=production` also refuses to start without `ENCRYPTION_KEY`, or while',
    '`BANK_PROVIDERS` lists `sandbox`, `RATE_SOURCES` is `sandbox` or `FX_VENUE` is `sandbox`.',
    "Every `*_BASE_URL` defaults to the provider's live address; point it at the provider's",
    'own sandbox or (as the tests do) at a stand-in. Tests and demos shorten the intervals',
    'through these variables, never through code paths that production does not run.',
    'How each provider behaves: [providers.md](providers.md). [`.env.example`](../.env.example)',
    'lists the same settings with their defaults.',
  ];
  for (const section of documentedSections(source)) {
    lines.push('', `## ${section.title}`, '');
    lines.push('| Variable | Default | Values | Meaning |', '| --- | --- | --- | --- |');
    for (const field of section.fields) {
      const row = [`\`${field.name}\``, field.defaultText, field.values, field.text];
      lines.push(`| ${row.map(cell).join(' | ')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Plain text of a description for a `#` comment: no Markdown links or backticks. */
const plain = (text: string) => text.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1').replace(/`/g, '');

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** .env.example: every setting commented out at its default, so a copy changes nothing. */
export function envExampleText(source: ConfigDocsSource = SERVICE): string {
  const lines = [
    `# ${GENERATED_BY}`,
    '# Every setting of the gateway and the job runner, commented out at its default: uncomment',
    '# what you set. Meanings, values and ranges: docs/configuration.md.',
  ];
  for (const section of documentedSections(source)) {
    lines.push('', `# --- ${plain(section.title)} ---`);
    for (const field of section.fields) {
      lines.push('', ...wrap(plain(field.text), 96).map((line) => `# ${line}`));
      if (field.defaultValue === undefined && field.defaultText !== 'unset') {
        lines.push(`# Default: ${plain(field.defaultText)}`);
      }
      lines.push(`# ${field.name}=${field.defaultValue ?? ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
