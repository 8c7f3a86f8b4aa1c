/**
 * A text[] parameter for raw SQL. Knex expands an array binding into a list of values, so
 * arrays travel as one JSON string: write `any(${TEXT_ARRAY})` and bind `textArray(values)`.
 */
export const TEXT_ARRAY = 'array(select jsonb_array_elements_text(?::jsonb))';

export function textArray(values: readonly string[]): string {
  return JSON.stringify(values);
}
