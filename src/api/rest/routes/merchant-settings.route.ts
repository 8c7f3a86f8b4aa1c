import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../container';
import { requireSecretKey } from '../../../merchants';
import { errorResponses, refTo } from '../schemas';
import { MerchantSettingsPatchBody, MerchantSettingsResponse } from '../withdrawal-address.schemas';

/** The merchant's own settings: keys with `all` only (no `scopes` in the route config). */
export const merchantSettingsRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/merchant/settings',
      {
        schema: {
          operationId: 'getMerchantSettings',
          summary: "The merchant's settings, as they apply",
          tags: ['merchant'],
          response: { 200: refTo(MerchantSettingsResponse), ...errorResponses(403) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        return services.merchantSettings.get(request.em, merchantId);
      },
    );

    app.patch(
      '/v1/merchant/settings',
      {
        schema: {
          operationId: 'updateMerchantSettings',
          summary:
            'Change the settings named in the body (a change sends merchant.settings_updated)',
          tags: ['merchant'],
          body: MerchantSettingsPatchBody,
          response: { 200: refTo(MerchantSettingsResponse), ...errorResponses(403, 413) },
        },
      },
      async (request) => {
        const { merchantId, keyId } = requireSecretKey(request.principal!);
        return services.merchantSettings.update(request.em, { merchantId, keyId }, request.body);
      },
    );
  };
