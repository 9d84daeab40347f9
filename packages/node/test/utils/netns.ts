/**
 * Linux network namespaces for multi-node tests (root only): one namespace per node, each with its own
 * address on a /24 joined by a bridge in the test's own namespace (which gets .254, so the test reaches
 * every node's API). A partition adds blackhole routes between groups inside the namespaces: packets
 * between them are dropped by the kernel, as on a real network cut, while the test still reaches all.
 */
import { execFileSync } from 'node:child_process';

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export class NetnsLab {
  private readonly cuts: [number, string][] = [];

  private constructor(
    readonly names: readonly string[],
    readonly hosts: readonly string[],
    private readonly bridge: string,
  ) {}

  /** Whether this process may create network namespaces (root and the `ip` command). */
  static available(): boolean {
    if (process.getuid?.() !== 0) return false;
    const probe = `lsprobe${process.pid % 100000}`;
    try {
      ip('netns', 'add', probe);
      ip('netns', 'del', probe);
      return true;
    } catch {
      return false;
    }
  }

  /** `n` namespaces, joined by a bridge; throws if the system refuses. */
  static create(n: number): NetnsLab {
    const tag = `${process.pid % 100000}`;
    const subnet = `10.${200 + (process.pid % 50)}.${Math.floor(Math.random() * 250)}`;
    const bridge = `ls${tag}br`;
    const names = Array.from({ length: n }, (_, i) => `logos-sim-${tag}-${i}`);
    const hosts = names.map((_, i) => `${subnet}.${i + 1}`);
    const lab = new NetnsLab(names, hosts, bridge);
    try {
      ip('link', 'add', bridge, 'type', 'bridge');
      ip('addr', 'add', `${subnet}.254/24`, 'dev', bridge);
      ip('link', 'set', bridge, 'up');
      names.forEach((ns, i) => {
        const veth = `ls${tag}v${i}`;
        ip('netns', 'add', ns);
        ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
        ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
        ip('link', 'set', veth, 'master', bridge);
        ip('link', 'set', veth, 'up');
        ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${hosts[i]}/24`, 'dev', 'eth0');
        ip('netns', 'exec', ns, 'ip', 'link', 'set', 'eth0', 'up');
      });
    } catch (e) {
      lab.close();
      throw e;
    }
    return lab;
  }

  /** The command prefix that runs a program in node i's namespace. */
  prefix(i: number): string[] {
    return ['ip', 'netns', 'exec', this.names[i]!];
  }

  /** Drops every packet between the two groups (node indices). */
  partition(a: readonly number[], b: readonly number[]): void {
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const)
      for (const i of from)
        for (const j of to) {
          ip('netns', 'exec', this.names[i]!, 'ip', 'route', 'add', 'blackhole', `${this.hosts[j]}/32`);
          this.cuts.push([i, this.hosts[j]!]);
        }
  }

  /** Removes every cut. */
  heal(): void {
    for (const [i, host] of this.cuts.splice(0))
      ip('netns', 'exec', this.names[i]!, 'ip', 'route', 'del', 'blackhole', `${host}/32`);
  }

  /** Deletes the namespaces (their veth ends go with them) and the bridge. */
  close(): void {
    for (const ns of this.names) {
      try {
        ip('netns', 'del', ns);
      } catch {
        // not created
      }
    }
    try {
      ip('link', 'del', this.bridge);
    } catch {
      // not created
    }
  }
}
