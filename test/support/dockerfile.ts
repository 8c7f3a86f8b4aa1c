import { readFileSync } from 'node:fs';

/** One instruction of a Dockerfile: its keyword, flags (`--from=build`) and arguments. */
export interface Instruction {
  keyword: string;
  flags: Record<string, string>;
  /** The text after the keyword and flags, continuation lines joined. */
  text: string;
  /** Exec form (`["node", "x.js"]`) parsed; undefined for the shell form. */
  exec?: string[];
}

export interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}

/**
 * The Dockerfile's stages, as far as the image-steps test and the compose check need: comments
 * and blank lines dropped, `\` continuations joined, flags split off, exec forms parsed. Enough
 * for this repository's Dockerfile; a keyword it does not know is refused, so a new one is
 * noticed (taught to the test) rather than skipped.
 */
export function parseDockerfile(path: string): Stage[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue; // a comment inside a continued instruction
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    lines.push(pending + line);
    pending = '';
  }
  const stages: Stage[] = [];
  for (const line of lines) {
    const [keyword, ...rest] = line.split(/\s+/);
    let text = rest.join(' ');
    const flags: Record<string, string> = {};
    for (
      let flag = /^--([a-z-]+)=(\S+)\s*/.exec(text);
      flag;
      flag = /^--([a-z-]+)=(\S+)\s*/.exec(text)
    ) {
      flags[flag[1]] = flag[2];
      text = text.slice(flag[0].length);
    }
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [image, as, name] = text.split(/\s+/);
      if (as?.toUpperCase() !== 'AS' || !name) throw new Error(`a FROM without AS name: ${line}`);
      stages.push({ name, image, instructions: [] });
      continue;
    }
    if (!KNOWN.has(upper)) throw new Error(`the image-steps test does not know ${upper}: ${line}`);
    if (stages.length === 0) throw new Error(`${upper} before FROM`);
    const healthcheckCmd = upper === 'HEALTHCHECK' ? /^(?:--\S+\s+)*CMD\s+(.*)$/.exec(text) : null;
    const execText = healthcheckCmd ? healthcheckCmd[1] : text;
    const exec = execText.startsWith('[') ? (JSON.parse(execText) as string[]) : undefined;
    stages.at(-1)!.instructions.push({ keyword: upper, flags, text, exec });
  }
  return stages;
}

const KNOWN = new Set(['WORKDIR', 'COPY', 'RUN', 'ENV', 'USER', 'EXPOSE', 'HEALTHCHECK', 'CMD']);

/** `ENV A=1 B=2` as pairs (the only ENV form this Dockerfile uses). */
export function envPairs(text: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const pair of text.split(/\s+/)) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`ENV in the key=value form only: ${text}`);
    pairs[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return pairs;
}
