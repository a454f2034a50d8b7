import { selectAll } from 'css-select';
import type { AnyNode, Element } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { ServiceError, type Document, type FormatObject } from '@wds/contracts';

type AttributesFormat = Extract<FormatObject, { type: 'attributes' }>;

/** Values kept per selector: a page with more matches is cut (a guard against pathological pages). */
export const MAX_ATTRIBUTE_VALUES = 1000;

/**
 * The `attributes` format: for each `{selector, attribute}`, the attribute's value on every element
 * the CSS selector matches, in document order (elements without it are skipped). An invalid selector
 * is the caller's error (400) naming it.
 */
export function extractAttributes(
  html: string,
  format: AttributesFormat,
): NonNullable<Document['attributes']> {
  const dom = parseDocument(html);
  return format.selectors.map(({ selector, attribute }) => {
    let elements;
    try {
      elements = selectAll<AnyNode, Element>(selector, dom);
    } catch (err) {
      throw new ServiceError('BAD_REQUEST', `Invalid CSS selector '${selector}': ${(err as Error).message}`, {
        field: 'formats',
      });
    }
    const values: string[] = [];
    for (const el of elements) {
      const value = el.attribs?.[attribute] ?? el.attribs?.[attribute.toLowerCase()];
      if (value === undefined) continue;
      values.push(value);
      if (values.length >= MAX_ATTRIBUTE_VALUES) break;
    }
    return { selector, attribute, values };
  });
}
