// Next.js calls register() once when the server starts, before it answers any request: Gatehouse uses
// it to validate its configuration, migrate and (embedded database) seed, then report how to sign in.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startGatehouse } = await import('./lib/server/startup');
  await startGatehouse();
}
