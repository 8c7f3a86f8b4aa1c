/** What one setting means to an operator; `default` only where the schema has none. */
export interface ConfigFieldDoc {
  text: string;
  default?: string;
}
export interface ConfigSection {
  title: string;
  fields: Record<string, ConfigFieldDoc>;
}
