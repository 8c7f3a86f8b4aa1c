import type { EntityManager } from '@mikro-orm/postgresql';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  database: 'ok' | 'down';
}

/** Reachability of what the process depends on. The database is the one that matters. */
export class HealthService {
  async check(em: EntityManager, timeoutMs = 2000): Promise<HealthReport> {
    const probe = em.getConnection().execute('select 1 as ok');
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('health check timed out')), timeoutMs).unref(),
    );
    try {
      await Promise.race([probe, timeout]);
      return { status: 'ok', database: 'ok' };
    } catch {
      probe.catch(() => undefined);
      return { status: 'unavailable', database: 'down' };
    }
  }
}
