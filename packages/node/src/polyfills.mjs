// Node 20 lacks ES2024 Promise.withResolvers, which libp2p calls. Loaded before anything else with
// `node --import ./src/polyfills.mjs`. Plain JavaScript so that worker threads (which do not inherit
// the TypeScript loader) can load it too.
if (typeof Promise.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers() {
      let resolve;
      let reject;
      const promise = new Promise((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}
