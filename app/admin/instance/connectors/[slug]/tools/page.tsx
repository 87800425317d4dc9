import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { ConnectorError } from '@/lib/connectors/errors';
import { type ConnectorReview, toolsForReview } from '@/lib/connectors/review';
import { EmptyState, PageHeading } from '../../../../components';
import { instancePage } from '../../../../page-access';
import { HeldToolCard } from './held-tool-card';
import { ApproveAllButton } from './review-buttons';
import { ToolsTable } from './tools-table';

export const metadata: Metadata = { title: 'Review tools · Instance admin' };

async function review(slug: string): Promise<ConnectorReview> {
  try {
    return await toolsForReview(slug);
  } catch (error) {
    if (error instanceof ConnectorError) notFound(); // no such connector
    throw error;
  }
}

export default async function ConnectorToolsReviewPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  await instancePage(`/connectors/${encodeURIComponent(slug)}/tools`);
  const connector = await review(slug);
  const held = connector.tools.filter((tool) => tool.status === 'held');
  const others = connector.tools.filter((tool) => tool.status !== 'held');
  const approvable = held.flatMap((tool) => (tool.heldHash ? [{ tool: tool.upstreamName, heldHash: tool.heldHash }] : []));
  return (
    <div className="min-w-0 space-y-6">
      <PageHeading title={`Tools of ${connector.name}`} actions={approvable.length > 1 ? <ApproveAllButton slug={connector.slug} decisions={approvable} /> : undefined}>
        A tool whose definition changed upstream, or that is new, is held — left out of /mcp — until you approve what it says now. Compare it with what was pinned: the text is shown as the upstream
        sent it, with invisible and direction-changing characters written out.
      </PageHeading>
      <section aria-labelledby="held-tools" className="space-y-4">
        <h2 id="held-tools" className="text-lg font-semibold">
          Held for review
        </h2>
        {held.length ? (
          <ul className="space-y-4" aria-label="Held tools">
            {held.map((tool) => (
              <li key={tool.upstreamName}>
                <HeldToolCard slug={connector.slug} tool={tool} problem={connector.problems.find((problem) => problem.name === tool.upstreamName)?.problem ?? null} />
              </li>
            ))}
          </ul>
        ) : (
          <EmptyState>No tool of {connector.name} is held: every tool it lists is offered as pinned.</EmptyState>
        )}
      </section>
      <section aria-labelledby="offered-tools" className="space-y-4">
        <h2 id="offered-tools" className="text-lg font-semibold">
          Offered tools and the scope they need
        </h2>
        {others.length ? (
          <ToolsTable
            slug={connector.slug}
            tools={others.map(({ upstreamName, exposedName, scope, scopeOverride, definitionScope }) => ({ upstreamName, exposedName, scope, scopeOverride, definitionScope }))}
          />
        ) : (
          <EmptyState>{connector.name} offers no tool at the moment: approve a held one, or refresh the connector once its upstream lists some.</EmptyState>
        )}
      </section>
    </div>
  );
}
