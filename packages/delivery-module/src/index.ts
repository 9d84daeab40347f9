/**
 * The `delivery_module` of the control tool (operator.md §4, reference `delivery_module` 0.2.1): its
 * factory (the module file's default export) and its method table in the reference's names and argument
 * orders (§4.2). Every method answers a `StdLogosResult` (`collectOpenMetricsText` a plain string); bad
 * arguments answer `success: false` with the reason and change nothing, and no input ends the process.
 */
import type { Json } from '@logos-ts/shared/json';
import {
  guarded,
  type LogosModule,
  type ModuleContext,
  type ModuleFactory,
  type ModuleMethod,
  type StdLogosResult,
} from '@logos-ts/shared/module-api';
import { DeliveryModule } from './delivery-module.ts';

export const MODULE_NAME = 'delivery_module';
/** The reference module version whose calls this module answers. */
export const MODULE_VERSION = '0.2.1';

type Method = (...args: Json[]) => Promise<StdLogosResult | string> | StdLogosResult | string;

export function createDeliveryModule(ctx: ModuleContext): LogosModule {
  const m = new DeliveryModule(ctx);
  const methods: Record<string, [number, Method]> = {
    createNode: [1, (cfg) => m.createNode(cfg)],
    start: [0, () => m.start()],
    stop: [0, () => m.stop()],
    send: [2, (topic, payload) => m.send(topic, payload)],
    subscribe: [1, (topic) => m.subscribe(topic)],
    unsubscribe: [1, (topic) => m.unsubscribe(topic)],
    channelCreate: [3, () => m.channel('ChannelCreate')],
    channelExists: [1, () => m.channel('ChannelExists')],
    channelSend: [2, () => m.channel('ChannelSend')],
    channelClose: [1, () => m.channel('ChannelClose')],
    storeQuery: [3, (query, peer, timeout) => m.storeQuery(query, peer, timeout)],
    getAvailableNodeInfoIDs: [0, () => m.getAvailableNodeInfoIDs()],
    getNodeInfo: [1, (id) => m.getNodeInfo(id)],
    getAvailableConfigs: [0, () => m.getAvailableConfigs()],
    collectOpenMetricsText: [0, () => m.collectOpenMetricsText()],
  };
  const table: Record<string, ModuleMethod> = {};
  for (const [name, [n, f]] of Object.entries(methods)) table[name] = guarded(f, n);
  return {
    name: MODULE_NAME,
    version: MODULE_VERSION,
    dependencies: [],
    methods: table,
    events: [
      'nodeStarted',
      'nodeStopped',
      'messageSent',
      'messagePropagated',
      'messageError',
      'messageReceived',
      'connectionStateChanged',
      'channelMessageReceived',
      'channelMessageSent',
      'channelMessageError',
    ],
    close: () => m.close(),
  };
}

const factory: ModuleFactory = createDeliveryModule;
export default factory;
