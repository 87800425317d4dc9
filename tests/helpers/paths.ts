// Overridable so that two checkouts' test runs (or two people's) do not build into the same folder.
export const TEST_DIST_DIR = process.env.GATEHOUSE_TEST_DIST_DIR || '.next-test';
