import { z } from 'zod';

const nullableString = z.string().nullable().optional();

const menuItemSchema = z.looseObject({
  name: z.string(),
  id: z.string().optional(),
  description: nullableString,
  calories: z.number().nullable().optional(),
  dietary: z.array(z.string()).optional(),
  identifiers: z.looseObject({ merchantItemId: z.string().optional() }).optional(),
  images: z.array(z.looseObject({ url: z.string(), alt: nullableString })).optional(),
  optionGroups: z.array(z.record(z.string(), z.unknown())).optional(),
  price: z.looseObject({ amount: z.number(), currency: z.string().optional(), formatted: z.string().optional() }).optional(),
  availability: z.looseObject({ inStock: z.boolean(), text: nullableString }).optional(),
  sourceUrl: nullableString,
  url: nullableString,
});

const menuSectionSchema = z.looseObject({
  name: z.string(),
  items: z.array(menuItemSchema),
  id: z.string().optional(),
  description: nullableString,
});

/** `Document.menu`: a restaurant-style menu found on the page. */
export const menuSchema = z
  .looseObject({
    isMenu: z.boolean(),
    confidence: z.number().min(0).max(1).optional(),
    /** ISO 4217 code, only when the page gives it. */
    currency: z.string().optional(),
    merchant: z.looseObject({ name: z.string(), type: z.string().optional() }).optional(),
    sourceUrl: nullableString,
    sections: z.array(menuSectionSchema),
  })
  .meta({ id: 'Menu' });

/** Parsed `Document.menu`. */
export type Menu = z.output<typeof menuSchema>;

/** `Document.product`: product data; only brand/category/description/title/variants are specified, the rest is kept. */
export const productSchema = z
  .looseObject({
    brand: z.string().optional(),
    category: z.string().optional(),
    description: z.string().optional(),
    title: z.string().optional(),
    variants: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .meta({ id: 'Product' });

/** Parsed `Document.product`. */
export type Product = z.output<typeof productSchema>;
