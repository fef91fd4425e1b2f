import { z } from 'zod';

const str = z.string().nullable().optional();
const anyObject = z.record(z.string(), z.unknown()).nullable().optional();

/** `Document.branding`: brand identity of the page (all members nullable). Extra members are kept. */
export const brandingSchema = z
  .looseObject({
    colorScheme: z.enum(['light', 'dark']).nullable().optional(),
    colors: z
      .looseObject({
        primary: str,
        secondary: str,
        accent: str,
        background: str,
        textPrimary: str,
        textSecondary: str,
        link: str,
        success: str,
        warning: str,
        error: str,
      })
      .nullable()
      .optional(),
    fonts: z.array(z.looseObject({ family: z.string() })).nullable().optional(),
    typography: z
      .looseObject({
        fontFamilies: z.looseObject({ primary: str, heading: str, code: str }).nullable().optional(),
        fontSizes: z.looseObject({ h1: str, h2: str, h3: str, body: str }).nullable().optional(),
        fontWeights: z
          .looseObject({
            light: z.number().int().nullable().optional(),
            regular: z.number().int().nullable().optional(),
            medium: z.number().int().nullable().optional(),
            bold: z.number().int().nullable().optional(),
          })
          .nullable()
          .optional(),
        lineHeights: z
          .looseObject({ heading: z.union([z.string(), z.number()]).nullable().optional(), body: z.union([z.string(), z.number()]).nullable().optional() })
          .nullable()
          .optional(),
      })
      .nullable()
      .optional(),
    spacing: z
      .looseObject({
        baseUnit: z.number().int().nullable().optional(),
        borderRadius: str,
        margins: anyObject,
        padding: anyObject,
      })
      .nullable()
      .optional(),
    components: z
      .looseObject({
        buttonPrimary: z.looseObject({ background: str, borderRadius: str, textColor: str }).nullable().optional(),
        buttonSecondary: z
          .looseObject({ background: str, borderColor: str, borderRadius: str, textColor: str })
          .nullable()
          .optional(),
        input: anyObject,
      })
      .nullable()
      .optional(),
    images: z.looseObject({ favicon: str, logo: str, ogImage: str }).nullable().optional(),
    logo: str,
    animations: anyObject,
    icons: anyObject,
    layout: anyObject,
    personality: anyObject,
  })
  .meta({ id: 'Branding' });

/** Parsed `Document.branding`. */
export type Branding = z.output<typeof brandingSchema>;
