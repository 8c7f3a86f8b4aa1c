// Small DOM helpers. Data only ever reaches the page through textContent and attributes, never
// through innerHTML, so merchant-controlled strings (emails, URLs, references) cannot inject markup.

type Attrs = Record<string, string | number | boolean | undefined | null>;
type Child = Node | string | number | null | undefined | false;

/** Creates an element; `class` sets className, booleans toggle the attribute, null/undefined skip. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
}

function append(el: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'number' ? String(child) : child);
  }
}

/** The element with this id; throws when the page markup and the code disagree. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

export function clear(el: Element): void {
  el.replaceChildren();
}

/** Replaces the text of an element (no-op when unchanged, so screen readers are not re-notified). */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

/**
 * A section's messages: one polite role="status" line and one role="alert" line that is hidden
 * while empty. Showing one clears the other.
 */
export class Messages {
  constructor(
    private readonly status: HTMLElement,
    private readonly alert: HTMLElement,
  ) {}

  static of(prefix: string): Messages {
    return new Messages(byId(`${prefix}-status`), byId(`${prefix}-alert`));
  }

  info(text: string): void {
    this.hideError();
    setText(this.status, text);
  }

  error(error: unknown): void {
    setText(this.status, '');
    setText(this.alert, errorMessage(error));
    this.alert.hidden = false;
  }

  clear(): void {
    setText(this.status, '');
    this.hideError();
  }

  private hideError(): void {
    this.alert.hidden = true;
    setText(this.alert, '');
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return 'Something went wrong.';
}

/** Disables a form's submit button while `work` runs, so a double click sends one request. */
export async function busy<T>(button: HTMLButtonElement, work: () => Promise<T>): Promise<T> {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

/**
 * Keeps a tbody's rows in the order of `items`, reusing the row of each key: rows that do not move
 * are left alone (focus inside them survives), rows whose key disappeared are removed.
 */
export function syncRows<T>(
  tbody: HTMLTableSectionElement,
  items: readonly T[],
  key: (item: T) => string,
  keyAttr: string,
  create: (item: T) => HTMLTableRowElement,
  update: (row: HTMLTableRowElement, item: T) => void,
): void {
  const existing = new Map<string, HTMLTableRowElement>();
  for (const row of Array.from(tbody.rows)) {
    const k = row.getAttribute(keyAttr);
    if (k !== null) existing.set(k, row);
    else row.remove();
  }
  let cursor: Element | null = tbody.firstElementChild;
  for (const item of items) {
    const k = key(item);
    let row = existing.get(k);
    if (row) {
      existing.delete(k);
      update(row, item);
    } else {
      row = create(item);
      row.setAttribute(keyAttr, k);
    }
    if (row === cursor) cursor = cursor.nextElementSibling;
    else tbody.insertBefore(row, cursor);
  }
  for (const row of existing.values()) row.remove();
}
