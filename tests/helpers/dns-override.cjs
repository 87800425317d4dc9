// Preloaded into a test server (NODE_OPTIONS=--require) to stand in for DNS, which tests cannot use:
// GATEHOUSE_TEST_DNS maps a host name to the answers of its successive lookups (the last one repeats),
// each a list of addresses, e.g. {"rebind.test": [["2001:4860::1"], ["127.0.0.1"]]}. Every lookup of
// those names is appended to the file GATEHOUSE_TEST_DNS_LOG, so that a test sees the server resolve
// them. Other names resolve as usual.
const dns = require('node:dns');
const { appendFileSync } = require('node:fs');
const { isIP } = require('node:net');

const table = JSON.parse(process.env.GATEHOUSE_TEST_DNS || '{}');
const calls = new Map();
const original = dns.lookup;

dns.lookup = function lookup(hostname, options, callback) {
  if (typeof options === 'function') [options, callback] = [{}, options];
  if (typeof options === 'number') options = { family: options };
  const answers = table[hostname];
  if (!answers) return original.call(this, hostname, options, callback);
  const index = calls.get(hostname) ?? 0;
  calls.set(hostname, index + 1);
  const addresses = answers[Math.min(index, answers.length - 1)].map((address) => ({ address, family: isIP(address) }));
  if (process.env.GATEHOUSE_TEST_DNS_LOG) {
    appendFileSync(process.env.GATEHOUSE_TEST_DNS_LOG, `${hostname} ${addresses.map((entry) => entry.address).join(',')}\n`);
  }
  process.nextTick(() => (options.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family)));
};
