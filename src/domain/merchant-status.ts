export enum MerchantStatus {
  ACTIVE = 'ACTIVE',
  FROZEN = 'FROZEN',
}
