// Node 20 lacks ES2024 Promise.withResolvers, which libp2p calls. Every entry point imports this module
// first (`import '@logos-ts/shared/polyfills'`), and child processes get it as `--import` (runtime.ts).
// Plain JavaScript, also from source: worker threads inherit a process's `--import` flags but not its
// TypeScript loader, and a worker that cannot load it dies at start-up (snarkjs' curve threads do).
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
