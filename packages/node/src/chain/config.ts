/**
 * The chain's section of `user_config.yaml` (`cryptarchia`): its type, the reference defaults and its
 * parser. `cryptarchia.service.bootstrap` is read here; `cryptarchia.network` and
 * `cryptarchia.service.sync` belong to the network and sync services to come and are checked for their
 * key layout; `cryptarchia.leader` is the leader's.
 */
import {
  bool,
  checkLayout,
  hex64,
  type Layout,
  mapping,
  only,
  seconds,
  u64,
} from '@logos-ts/shared/config-fields';

export interface CryptarchiaSection {
  readonly service: {
    readonly bootstrap: {
      /** Seconds. */
      readonly prolonged_bootstrap_period: number;
      readonly force_bootstrap: boolean;
      readonly offline_grace_period: {
        readonly grace_period: number;
        readonly state_recording_interval: number;
      };
    };
  };
  readonly leader: { readonly wallet: { readonly max_tx_fee: bigint; readonly funding_pk: string | null } };
}

export const DEFAULT_CRYPTARCHIA: CryptarchiaSection = {
  service: {
    bootstrap: {
      prolonged_bootstrap_period: 3600,
      force_bootstrap: false,
      offline_grace_period: { grace_period: 1200, state_recording_interval: 60 },
    },
  },
  leader: { wallet: { max_tx_fee: 0xffffffffffffffffn, funding_pk: null } },
};

/** `cryptarchia.network`: the chain's network settings (IBD, orphans, tip polling), read by sync. */
const CRYPTARCHIA_NETWORK: Layout = {
  bootstrap: {
    ibd: {
      peers: true,
      discover_connected_peers: true,
      delay_before_new_download: true,
      tips_fetch_max_attempts: true,
      tips_fetch_min_delay: true,
      tips_fetch_max_delay: true,
      round_delay: true,
    },
  },
  sync: {
    orphan: { max_orphan_cache_size: true, max_rejected_cache_size: true },
    tip_poll: { enabled: true, lag_threshold_blocks: true, max_peers_to_sample: true },
  },
  network: { max_connected_peers_to_try_download: true, max_discovered_peers_to_try_download: true },
};

export function parseCryptarchiaSection(raw: unknown): CryptarchiaSection {
  const D = DEFAULT_CRYPTARCHIA.service.bootstrap;
  const cr = mapping(raw, 'cryptarchia');
  only(cr, ['service', 'network', 'leader'], 'cryptarchia');
  const svc = mapping(cr.service, 'cryptarchia.service');
  only(svc, ['bootstrap', 'sync'], 'cryptarchia.service');
  checkLayout(svc.sync, { block_provider: { batch_size: true } }, 'cryptarchia.service.sync');
  const bs = mapping(svc.bootstrap, 'cryptarchia.service.bootstrap');
  only(
    bs,
    ['prolonged_bootstrap_period', 'force_bootstrap', 'offline_grace_period'],
    'cryptarchia.service.bootstrap',
  );
  const og = mapping(bs.offline_grace_period, 'cryptarchia.service.bootstrap.offline_grace_period');
  only(
    og,
    ['grace_period', 'state_recording_interval'],
    'cryptarchia.service.bootstrap.offline_grace_period',
  );
  checkLayout(cr.network, CRYPTARCHIA_NETWORK, 'cryptarchia.network');
  const leader = mapping(cr.leader, 'cryptarchia.leader');
  only(leader, ['wallet'], 'cryptarchia.leader');
  const lw = mapping(leader.wallet, 'cryptarchia.leader.wallet');
  only(lw, ['max_tx_fee', 'funding_pk'], 'cryptarchia.leader.wallet');
  const funding = lw.funding_pk;
  return {
    service: {
      bootstrap: {
        prolonged_bootstrap_period: seconds(
          bs.prolonged_bootstrap_period,
          D.prolonged_bootstrap_period,
          'cryptarchia.service.bootstrap.prolonged_bootstrap_period',
        ),
        force_bootstrap: bool(
          bs.force_bootstrap,
          D.force_bootstrap,
          'cryptarchia.service.bootstrap.force_bootstrap',
        ),
        offline_grace_period: {
          grace_period: seconds(
            og.grace_period,
            D.offline_grace_period.grace_period,
            'cryptarchia.service.bootstrap.offline_grace_period.grace_period',
          ),
          state_recording_interval: seconds(
            og.state_recording_interval,
            D.offline_grace_period.state_recording_interval,
            'cryptarchia.service.bootstrap.offline_grace_period.state_recording_interval',
          ),
        },
      },
    },
    leader: {
      wallet: {
        max_tx_fee: u64(
          lw.max_tx_fee,
          DEFAULT_CRYPTARCHIA.leader.wallet.max_tx_fee,
          'cryptarchia.leader.wallet.max_tx_fee',
        ),
        funding_pk:
          funding === undefined || funding === null
            ? null
            : hex64(funding, 'cryptarchia.leader.wallet.funding_pk'),
      },
    },
  };
}
