/**
 * Bundled `capability_module` (operator.md §1.1, §1.7; logos-capability-module): the handshake a client
 * or module performs before using another module. `requestModule(module)` grants access to a module
 * name and records it; `notifyCapabilityModule(module)` acknowledges a module's arrival;
 * `capabilities()` lists the grants made so far. Access control itself is the daemon's token check.
 */
import type { Json } from '@logos-ts/shared/json';
import { fail, type ModuleFactory, ok } from '@logos-ts/shared/module-api';

const factory: ModuleFactory = (ctx) => {
  const granted = new Set<string>();
  const known = new Set<string>();
  return {
    name: 'capability_module',
    version: '0.1.0',
    dependencies: [],
    events: ['capabilityGranted'],
    methods: {
      requestModule: (module: Json) => {
        if (typeof module !== 'string' || module === '') return fail('requestModule: expected a module name');
        granted.add(module);
        ctx.emit('capabilityGranted', { module });
        return ok({ granted: true, module });
      },
      notifyCapabilityModule: (module: Json) => {
        if (typeof module !== 'string' || module === '')
          return fail('notifyCapabilityModule: expected a module name');
        known.add(module);
        return true;
      },
      capabilities: () => ok({ granted: [...granted].sort(), notified: [...known].sort() }),
    },
    close: async () => {},
  };
};
export default factory;
