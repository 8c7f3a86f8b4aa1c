import type { Command } from 'commander';
import { buildCli } from '../../src/cli/onramp';
import { classify, CliFailure, EXIT, reportError } from '../../src/cli/cli-errors';
import { DomainError, ErrorCode } from '../../src/domain/errors';

/** Every command that runs something (no subcommands of its own), by its full name. */
function leaves(command: Command, prefix = ''): Array<[string, Command]> {
  return command.commands.flatMap((sub) => {
    const name = `${prefix}${sub.name()}`;
    return sub.commands.length === 0 ? [[name, sub] as [string, Command]] : leaves(sub, `${name} `);
  });
}

/** What reportError writes on stderr. */
function stderrOf(run: () => number): { code: number; text: string } {
  let text = '';
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    text += String(chunk);
    return true;
  });
  try {
    return { code: run(), text };
  } finally {
    spy.mockRestore();
  }
}

describe('the onramp command line', () => {
  it('accepts --json on every command', () => {
    const all = leaves(buildCli());
    expect(all.map(([name]) => name)).toEqual(
      expect.arrayContaining(['merchants create', 'treasury', 'ledger check', 'db migrate']),
    );
    const without = all.filter(([, c]) => !c.options.some((o) => o.long === '--json'));
    expect(without.map(([name]) => name)).toEqual([]);
  });

  it('sorts errors into codes and exit codes', () => {
    expect(classify(new DomainError(ErrorCode.NotFound, 'No merchant mer_x'))).toEqual({
      code: 'not_found',
      message: 'No merchant mer_x',
      exitCode: EXIT.failed,
    });
    expect(classify(new CliFailure('configuration_error', 'bad', EXIT.configuration))).toEqual({
      code: 'configuration_error',
      message: 'bad',
      exitCode: 3,
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    // Drivers wrap the socket's error: the cause decides.
    expect(classify(new Error('wrapped', { cause: refused }))).toMatchObject({
      code: 'database_unavailable',
      exitCode: EXIT.database,
    });
    expect(classify(Object.assign(new Error('x'), { code: '28P01' })).exitCode).toBe(4);
    expect(classify(Object.assign(new Error('x'), { code: '42P01' }))).toMatchObject({
      code: 'database_not_migrated',
      exitCode: 4,
    });
    const unreadable = Object.assign(new Error('sealed under key ab12'), {
      name: 'SecretDecryptError',
    });
    expect(classify(unreadable)).toMatchObject({ code: 'secret_unreadable', exitCode: 3 });
    const bug = classify(new TypeError('undefined is not a function'));
    expect(bug).toMatchObject({ code: 'internal_error', exitCode: EXIT.internal });
    expect(bug.stack).toContain('TypeError');
    expect(EXIT).toEqual({
      ok: 0,
      failed: 1,
      usage: 2,
      configuration: 3,
      database: 4,
      internal: 5,
    });
  });

  it('prints a bug in one line, its stack only when debugging', () => {
    const bug = new TypeError('boom');
    const plain = stderrOf(() => reportError(bug, false, false));
    expect(plain.code).toBe(5);
    expect(plain.text).toBe('onramp: unexpected error: boom (run with --debug for the stack)\n');
    const debugged = stderrOf(() => reportError(bug, false, true));
    expect(debugged.text).toContain('    at ');
    const json = stderrOf(() => reportError(bug, true, false));
    expect(JSON.parse(json.text)).toEqual({
      error: { code: 'internal_error', message: 'unexpected error: boom' },
    });
    const jsonDebug = JSON.parse(stderrOf(() => reportError(bug, true, true)).text);
    expect(jsonDebug.error.stack).toContain('TypeError: boom');
    // A user's error never carries a stack, debugging or not.
    const user = stderrOf(() =>
      reportError(new DomainError(ErrorCode.NotFound, 'No key'), false, true),
    );
    expect(user).toEqual({ code: 1, text: 'onramp: No key\n' });
  });
});
