import { z } from 'zod';
import { Viewport } from './formats';

export const MAX_ACTIONS = 50;

export const WaitAction = z
  .strictObject({
    type: z.literal('wait'),
    milliseconds: z.int().min(1).max(300000).optional(),
    selector: z.string().min(1).optional(),
  })
  .refine((a) => (a.milliseconds === undefined) !== (a.selector === undefined), {
    message: 'A wait action needs exactly one of milliseconds or selector',
  });

export const ClickAction = z.strictObject({
  type: z.literal('click'),
  selector: z.string().min(1),
  all: z.boolean().optional().describe('Click every element matching the selector'),
});

export const WriteAction = z.strictObject({ type: z.literal('write'), text: z.string().max(100000) });

export const PressAction = z.strictObject({ type: z.literal('press'), key: z.string().min(1) });

export const ScrollAction = z.strictObject({
  type: z.literal('scroll'),
  direction: z.enum(['up', 'down']).default('down'),
  selector: z.string().min(1).optional(),
});

export const ScreenshotAction = z.strictObject({
  type: z.literal('screenshot'),
  fullPage: z.boolean().optional(),
  quality: z.int().min(1).max(100).optional(),
  viewport: Viewport.optional(),
});

export const ScrapeAction = z.strictObject({ type: z.literal('scrape') });

export const ExecuteJavascriptAction = z.strictObject({
  type: z.literal('executeJavascript'),
  script: z.string().min(1).max(100000),
});

export const PdfAction = z.strictObject({
  type: z.literal('pdf'),
  format: z
    .enum(['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid', 'Ledger'])
    .optional(),
  landscape: z.boolean().optional(),
  scale: z.number().min(0.1).max(2).optional(),
});

export const ACTION_TYPES = [
  'wait',
  'click',
  'write',
  'press',
  'scroll',
  'screenshot',
  'scrape',
  'executeJavascript',
  'pdf',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const PageAction = z.discriminatedUnion(
  'type',
  [
    WaitAction,
    ClickAction,
    WriteAction,
    PressAction,
    ScrollAction,
    ScreenshotAction,
    ScrapeAction,
    ExecuteJavascriptAction,
    PdfAction,
  ],
  {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? `Invalid action type: expected one of ${ACTION_TYPES.join(', ')}`
        : undefined,
  },
);
export type PageAction = z.output<typeof PageAction>;
export type PageActionInput = z.input<typeof PageAction>;
