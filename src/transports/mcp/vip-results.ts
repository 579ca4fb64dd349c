import * as z from 'zod';
import type { VipEntry } from '../../core/vips/vip-store.ts';
import { SENDER_TEXT } from './output-shapes.ts';

/** Addresses and bare domains, as add_vip and remove_vip take them. */
export const VIP_LISTS = {
  emails: z.array(z.string().max(254)).max(100).optional(),
  domains: z.array(z.string().max(253)).max(100).optional(),
};

// An address's words are its owner's, whoever put it on the list: marked like every address (decision 0017).
export const GROUPED = z.object({ emails: z.array(SENDER_TEXT), domains: z.array(z.string()) });

/** Entries as the VIP tools answer them: addresses and domains apart. */
export const grouped = (entries: readonly VipEntry[]) => ({
  emails: entries.filter((e) => e.kind === 'email').map((e) => e.value),
  domains: entries.filter((e) => e.kind === 'domain').map((e) => e.value),
});
