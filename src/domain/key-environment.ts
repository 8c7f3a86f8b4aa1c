export enum KeyEnvironment {
  Sandbox = 'sandbox',
  Production = 'production',
}
