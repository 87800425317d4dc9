'use server';

import { z } from 'zod';
import { orgAction } from '@/lib/admin/action';
import { addDocumentApp } from '@/lib/apps/documents';

/** Approve ahead of time the app of a Client ID Metadata Document, by its URL (fetched and checked first). */
export const approveDocumentAction = orgAction(
  'apps:manage',
  z.object({ url: z.string().trim().min(1, 'Paste the URL of the metadata document.').max(2000, 'The URL is too long (at most 2,000 characters).') }),
  (admin, { url }, { ip }) => addDocumentApp(admin, url, ip),
);
