import type { Metadata } from 'next';
import Link from 'next/link';
import { linkClass, PageHeading } from '../../../components';
import { instancePage } from '../../../page-access';
import { AddConnectorForm } from './add-connector-form';

export const metadata: Metadata = { title: 'Add a connector · Instance admin' };

export default async function NewConnectorPage() {
  await instancePage('/connectors/new');
  return (
    <div className="space-y-6">
      <PageHeading title="Add a connector">
        An MCP server reached over Streamable HTTP. Test the connection to see the tools it offers; adding it pins them, and it is offered to no organization until you choose on its settings page.{' '}
        <Link href="/admin/instance/connectors" className={linkClass}>
          Back to connectors
        </Link>
      </PageHeading>
      <AddConnectorForm />
    </div>
  );
}
