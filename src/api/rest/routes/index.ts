import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../../container';
import { healthRoutes } from './health.route';
import { ratesRoutes } from './rates.route';
import { onrampRoutes } from './onramps.route';
import { bankNotificationRoutes } from './bank-notifications.route';
import { depositRoutes } from './deposits.route';
import { merchantRoutes } from './merchant.route';
import { withdrawalRoutes } from './withdrawals.route';
import { sandboxRoutes } from './sandbox.route';
import { webhookEndpointRoutes } from './webhook-endpoints.route';
import { withdrawalAddressRoutes } from './withdrawal-addresses.route';
import { merchantSettingsRoutes } from './merchant-settings.route';
import { reportRoutes } from './reports.route';
import { apiKeyRoutes } from './api-keys.route';
import { resolutionLinkRoutes } from './resolution-links.route';

/**
 * The REST `/v1` routes, in registration order: one list for the gateway and for the OpenAPI
 * document (`npm run openapi`), so a route cannot be served without being documented.
 * Sandbox routes register nothing in production (404 there); bank notifications nothing
 * unless configured.
 */
export const restRoutes = (services: Services, version: string): FastifyPluginAsync[] =>
  [
    healthRoutes(services, version),
    ratesRoutes(services),
    onrampRoutes(services),
    bankNotificationRoutes(services),
    depositRoutes(services),
    resolutionLinkRoutes(services),
    merchantRoutes(services),
    withdrawalRoutes(services),
    webhookEndpointRoutes(services),
    withdrawalAddressRoutes(services),
    merchantSettingsRoutes(services),
    reportRoutes(services),
    sandboxRoutes(services),
    apiKeyRoutes(services),
  ] as FastifyPluginAsync[];
