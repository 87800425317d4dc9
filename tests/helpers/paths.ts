export const TEST_DIST_DIR = '.next-test';
