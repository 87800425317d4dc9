import { outcomeCategoryLabel, type OutcomeCategory } from '@/lib/audit/call-outcomes';
import { Badge } from '../../components';

const TONE: Record<OutcomeCategory, 'good' | 'warn' | 'bad' | 'neutral'> = {
  ok: 'good',
  refused_scope: 'warn',
  refused_role: 'warn',
  rate_limited: 'warn',
  unauthorized: 'bad',
  forbidden: 'bad',
  connector: 'bad',
  other: 'neutral',
};

/** The outcome as /mcp recorded it, coloured by its category (named for screen readers). */
export function OutcomeBadge({ outcome, category }: { outcome: string; category: OutcomeCategory }) {
  return (
    <span title={outcomeCategoryLabel(category)}>
      <Badge tone={TONE[category]}>{outcome}</Badge>
    </span>
  );
}
