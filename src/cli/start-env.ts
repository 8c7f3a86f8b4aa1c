/**
 * The environment `npm start` gives its children. Local webhook receivers (a laptop's own
 * port) are the norm in the sandbox, so there `WEBHOOK_ALLOW_PRIVATE` defaults to true; in
 * production it keeps the service's default (false: webhook URLs must be public), because a
 * receiver on the operator's private network is the classic server-side request forgery
 * target. Either way an explicit operator value wins. graphql-js skips its development checks
 * (about 8 us of a GraphQL read) under NODE_ENV=production; it reads the variable when loaded,
 * so production sets it for the children. The settings that follow the operator's
 * (`overrides`: the database URL, local chains, the sandbox key file) replace theirs.
 */
export function childEnvironment(
  onrampEnv: string,
  operatorEnv: NodeJS.ProcessEnv,
  overrides: Record<string, string | undefined>,
): NodeJS.ProcessEnv {
  const defaults: Record<string, string> =
    onrampEnv === 'production' ? { NODE_ENV: 'production' } : { WEBHOOK_ALLOW_PRIVATE: 'true' };
  return { ...defaults, ...operatorEnv, ...overrides };
}
