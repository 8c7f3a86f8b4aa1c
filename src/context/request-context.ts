import type { Clock } from '../clock';
import type { KeyEnvironment } from '../domain/key-environment';
import type { ApiScope } from '../domain/api-scopes';
import type { AddressMatcher } from '../domain/allowed-ips';

/**
 * A merchant's API key: a secret key (`all`: everything the merchant may do) or a restricted
 * key (its scopes only), possibly held to some client addresses.
 */
export interface SecretKeyPrincipal {
  kind: 'secret_key';
  merchantId: string;
  keyId: string;
  /** What the key may do (`['all']` for a secret key); the transports check it per route/field. */
  scopes: readonly ApiScope[];
  /** The addresses the key may be used from; absent: any address. */
  allowedIps?: AddressMatcher;
}

/** An onramp's client secret: read that onramp and its deposits, subscribe to them; nothing else. */
export interface ClientSecretPrincipal {
  kind: 'client_secret';
  merchantId: string;
  onrampId: string;
  /**
   * When the secret stops working: its onramp stopped taking money (expired, completed or
   * deactivated) plus the grace period. Absent while the onramp can still receive money.
   */
  expiresAt?: Date;
  /**
   * The browser origins the merchant allows it from (settings' `allowed_origins`, read when it
   * authenticated). Absent: none listed.
   */
  allowedOrigins?: readonly string[];
}

/** Who calls the merchant API: a secret key (or the dashboard session opened with one), or a client secret. */
export type Principal = SecretKeyPrincipal | ClientSecretPrincipal;

/** How the principal was established; a dashboard session acts with its secret key's rights. */
export type Authentication = 'api_key' | 'dashboard_session' | 'client_secret';

/**
 * Only the builders below can make a context: the property is keyed by a symbol no other
 * module can name, so a read service that takes a context cannot be handed a bare merchant id
 * or a hand-made object.
 */
const BUILT: unique symbol = Symbol('RequestContext');

interface ContextBase {
  readonly [BUILT]: true;
  /** The deployment's environment: which keys it accepts and whether it is the sandbox. */
  readonly environment: KeyEnvironment;
  readonly clock: Clock;
}

/** A merchant's request (REST, GraphQL over HTTP, a websocket's subscriptions). */
export interface MerchantContext extends ContextBase {
  readonly kind: 'merchant';
  readonly principal: Principal;
  readonly authentication: Authentication;
  readonly merchantId: string;
}

/**
 * An operator's request (the command line, `/admin/graphql`): every merchant, or the one it
 * narrowed to (`--merchant`, `merchantId:`), no onramp limit.
 */
export interface OperatorContext extends ContextBase {
  readonly kind: 'operator';
  /** The person or process acting, as recorded in audit entries. */
  readonly actor: string;
  readonly merchantId: string | null;
}

/** Built once per request by the transport and passed into every read service. */
export type RequestContext = MerchantContext | OperatorContext;

export interface Deployment {
  environment: KeyEnvironment;
  clock: Clock;
}

export function merchantContext(
  principal: Principal,
  deployment: Deployment,
  authentication: Authentication = principal.kind === 'client_secret' ? 'client_secret' : 'api_key',
): MerchantContext {
  return Object.freeze({
    [BUILT]: true as const,
    kind: 'merchant' as const,
    principal,
    authentication,
    merchantId: principal.merchantId,
    environment: deployment.environment,
    clock: deployment.clock,
  });
}

export function operatorContext(
  actor: string,
  deployment: Deployment,
  merchantId: string | null = null,
): OperatorContext {
  return Object.freeze({
    [BUILT]: true as const,
    kind: 'operator' as const,
    actor,
    merchantId,
    environment: deployment.environment,
    clock: deployment.clock,
  });
}

/** The same operator, reading one merchant only (null: every merchant). */
export function narrowedTo(ctx: OperatorContext, merchantId: string | null): OperatorContext {
  return operatorContext(ctx.actor, ctx, merchantId);
}
