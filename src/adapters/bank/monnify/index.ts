export { MonnifyProvider, monnifyProviderFromConfig } from './monnify-provider';
export type { MonnifyProviderOptions } from './monnify-provider';
export { MonnifyNotificationAdapter } from './monnify-notifications';
export { MONNIFY_SIGNATURE_HEADER, signMonnifyBody } from './monnify-signature';
export { MonnifyRefusal } from './monnify-api';
