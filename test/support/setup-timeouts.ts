// Integration and e2e tests talk to real PostgreSQL and real processes.
jest.setTimeout(60_000);
