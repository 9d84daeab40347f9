/**
 * The node's block explorer: a page served by the node at /explorer/ that reads the node's HTTP API
 * from the same origin (nothing else is loaded). Views, by the URL's hash: #/ (the latest blocks, live
 * from the block stream), #/block/<id>, #/tx/<hash>, #/channels, #/channel/<id>, #/sdp, #/mempool.
 * Plain browser JavaScript, no build step: the node serves this file as it is.
 */

/** The API's root: the folder above the explorer's (the page may sit behind a proxy's path prefix). */
const API_ROOT = typeof window === 'undefined' ? undefined : new URL('../', window.location.href);
/** Where the credentials typed into the page are kept, for this tab only. */
const CREDENTIALS_KEY = 'logos-explorer-credentials';
/** Rows of the latest-blocks list, and blocks remembered for heights, links and transaction lookups. */
const LATEST_ROWS = 30;
const REMEMBERED_BLOCKS = 2000;
/** Blocks read back by the channels view when it looks for channel operations. */
const CHANNEL_SCAN_BLOCKS = 1000;
/** Pending transactions whose operations the mempool view fetches. */
const MEMPOOL_DETAILS = 50;

const OPCODES = {
  0: 'Transfer',
  16: 'ChannelConfig',
  17: 'ChannelInscribe',
  18: 'ChannelDeposit',
  19: 'ChannelWithdraw',
  20: 'ChannelTransfer',
  32: 'SDPDeclare',
  33: 'SDPWithdraw',
  34: 'SDPActive',
  48: 'LeaderClaim',
  64: 'ClaimPowReward',
};
const CHANNEL_OPS = new Set([16, 17, 18, 19, 20]);
const HEX32 = /^(?:0x)?([0-9a-fA-F]{64})$/;

// ---------- JSON with exact u64 values ----------

/**
 * The API writes u64 values as plain JSON numbers, which may exceed 2^53: integers too large for a
 * double are quoted before parsing, so they come out as their exact decimal text.
 */
export function parseJson(text) {
  return JSON.parse(/\d{16}/.test(text) ? quoteLargeIntegers(text) : text);
}

function quoteLargeIntegers(text) {
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash escapes the next character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j])) j++;
      const token = text.slice(i, j);
      if (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(last, i)}"${token}"`;
        last = j;
      }
      i = j - 1;
    }
  }
  return out + text.slice(last);
}

// ---------- the API ----------

class ApiFailure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function credentials() {
  try {
    return sessionStorage.getItem(CREDENTIALS_KEY) ?? '';
  } catch {
    return '';
  }
}

/** The Authorization header for the stored credentials: `name:password` is Basic, anything else a bearer token. */
function authHeaders() {
  const c = credentials();
  if (c === '') return {};
  if (c.includes(':')) {
    const bytes = new TextEncoder().encode(c);
    return { authorization: `Basic ${btoa(String.fromCharCode(...bytes))}` };
  }
  return { authorization: `Bearer ${c}` };
}

async function request(path, init = {}) {
  const res = await fetch(new URL(path.replace(/^\//, ''), API_ROOT), {
    cache: 'no-store',
    ...init,
    headers: { ...authHeaders(), ...(init.headers ?? {}) },
  });
  if (res.status === 401) askForCredentials();
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    let message = text || res.statusText || 'request failed';
    try {
      message = JSON.parse(text).message ?? message;
    } catch {
      // a plain-text or empty answer
    }
    throw new ApiFailure(res.status, `${res.status}: ${message}`);
  }
  return res;
}

async function api(path, init) {
  return parseJson(await (await request(path, init)).text());
}

async function post(path, body) {
  return api(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Reads an NDJSON answer line by line as it arrives (`onOpen` once it answered); resolves when it ends. */
async function readNdjson(path, onLine, signal, onOpen) {
  const res = await request(path, { signal });
  onOpen?.();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let i = buf.indexOf('\n');
    while (i >= 0) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (line !== '') onLine(parseJson(line));
      i = buf.indexOf('\n');
    }
  }
  if (buf.trim() !== '') onLine(parseJson(buf));
}

// ---------- DOM helpers ----------

/** An element: `attrs` are attributes (`class`, `on<event>` handlers, `data-*`), then its children. */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Number.POSITIVE_INFINITY)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

const $ = (id) => document.getElementById(id);
const short = (hex) =>
  typeof hex === 'string' && hex.length > 16 ? `${hex.slice(0, 8)}…${hex.slice(-6)}` : hex;
const mono = (text, cls = 'mono') => h('span', { class: cls }, text);
const blockLink = (id, text = short(id)) => h('a', { href: `#/block/${id}`, class: 'mono', title: id }, text);
const txLink = (hash, text = short(hash)) =>
  h('a', { href: `#/tx/${hash}`, class: 'mono', title: hash }, text);
const channelLink = (id, text = short(id)) =>
  h('a', { href: `#/channel/${id}`, class: 'mono', title: id }, text);
const opName = (opcode) => OPCODES[opcode] ?? `opcode ${opcode}`;
const scroll = (table) => h('div', { class: 'scroll' }, table);

function table(head, rows, attrs = {}) {
  return scroll(
    h(
      'table',
      attrs,
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head.map((x) => h('th', {}, x)),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}

/** A two-column table of named values; `fields` are [label, value, data-field name?]. */
function fieldTable(fields) {
  return h(
    'table',
    { class: 'fields' },
    h(
      'tbody',
      {},
      fields.map(([label, v, name]) => h('tr', {}, h('th', {}, label), h('td', { 'data-field': name }, v))),
    ),
  );
}

function hexOfBytes(bytes) {
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The UTF-8 text of some bytes when it is printable text, else undefined. */
function printable(bytes) {
  if (bytes.length === 0) return undefined;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    return /[\u0000-\u0008\u000e-\u001f\u007f]/.test(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

function bytesOfHex(hex) {
  const clean = hex.replace(/^0x/, '');
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) return undefined;
  const out = [];
  for (let i = 0; i < clean.length; i += 2) out.push(Number.parseInt(clean.slice(i, i + 2), 16));
  return out;
}

/** Bytes shown as hex, with their text when they are printable. */
function bytesView(bytes) {
  const text = printable(bytes);
  return h(
    'span',
    {},
    mono(`0x${hexOfBytes(bytes)}`, 'mono wrap'),
    h('span', { class: 'muted' }, ` (${bytes.length} bytes)`),
    text === undefined ? null : h('div', { class: 'text' }, text),
  );
}

const isByteArray = (v) =>
  Array.isArray(v) && v.length > 0 && v.every((x) => Number.isInteger(x) && x >= 0 && x < 256);

/** Any JSON value of the API as the page shows it; ids under known names become links. */
function value(v, key = '') {
  if (v === null) return h('span', { class: 'muted' }, 'null');
  if (Array.isArray(v)) {
    if (v.length === 0) return h('span', { class: 'muted' }, '[]');
    if (isByteArray(v) && v.length > 2) return bytesView(v);
    return h(
      'ol',
      { class: 'items', start: 0 },
      v.map((x) => h('li', {}, value(x, key))),
    );
  }
  if (typeof v === 'object') {
    const entries = Object.entries(v);
    if (entries.length === 0) return h('span', { class: 'muted' }, '{}');
    return h(
      'table',
      { class: 'fields nested' },
      h(
        'tbody',
        {},
        entries.map(([k, x]) => h('tr', {}, h('th', {}, k), h('td', {}, value(x, k)))),
      ),
    );
  }
  if (typeof v === 'string') {
    const m = HEX32.exec(v);
    if (m) {
      if (key === 'tx_hash' || key === 'hash') return txLink(m[1], m[1]);
      if (key === 'channel_id' || key === 'channel') return channelLink(m[1], m[1]);
      if (key === 'parent_block' || key === 'block' || key === 'tip') return blockLink(m[1], m[1]);
    }
    if (key === 'inscription') {
      const bytes = bytesOfHex(v);
      if (bytes) return bytesView(bytes);
    }
    return mono(v, 'mono wrap');
  }
  return mono(String(v), 'num');
}

function errorBox(e) {
  return h('p', { class: 'error' }, e instanceof Error ? e.message : String(e));
}

// ---------- what the page knows of the chain ----------

/** Blocks seen (from the list, the stream or a block page): id → {id, parent, slot, height?, txs, txHashes}. */
const blocks = new Map();
/** The latest-blocks list: ids, highest slot first. */
const latest = [];
let info; // the last /cryptarchia/info
let timeInfo; // /time/info, for the slots' times
let shownHeight = -1; // the tip height the header shows
let streamShownAt = 0; // when the block stream last set it

function remember(block) {
  const hd = block.header;
  let b = blocks.get(hd.id);
  if (!b) {
    b = { id: hd.id, parent: hd.parent_block, slot: hd.slot, height: undefined };
    blocks.set(hd.id, b);
  }
  b.txs = block.transactions.length;
  b.txHashes = block.transactions.map((t) => t.mantle_tx.hash);
  if (blocks.size > REMEMBERED_BLOCKS) {
    const keep = new Set(latest);
    for (const id of blocks.keys()) {
      if (blocks.size <= REMEMBERED_BLOCKS) break;
      if (!keep.has(id)) blocks.delete(id);
    }
  }
  return b;
}

/** Sets a block's height and derives those of its parents and children the page knows. */
function setHeight(id, height) {
  const todo = [[id, Number(height)]];
  while (todo.length > 0) {
    const [bid, ht] = todo.pop();
    const b = blocks.get(bid);
    if (!b || b.height === ht) continue;
    b.height = ht;
    updateRow(b);
    if (ht > 0) todo.push([b.parent, ht - 1]);
    for (const c of blocks.values()) if (c.parent === bid) todo.push([c.id, ht + 1]);
  }
}

/** A block's height from its parent's, when the page knows it. */
function deriveHeight(b) {
  const p = blocks.get(b.parent);
  if (b.height === undefined && p?.height !== undefined) setHeight(b.id, p.height + 1);
}

/** The wall-clock time of a slot, from the slot clock. */
function slotTime(slot) {
  if (!timeInfo) return undefined;
  return new Date(Number(timeInfo.genesis_time_unix_ms) + Number(slot) * Number(timeInfo.slot_duration_ms));
}

function age(slot) {
  const t = slotTime(slot);
  if (!t) return '';
  const s = Math.max(0, Math.round((Date.now() - t.getTime()) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return t.toISOString().slice(0, 16).replace('T', ' ');
}

// ---------- the header: tip, LIB, phase, peers ----------

async function refreshInfo() {
  try {
    info = await api('/cryptarchia/info');
  } catch (e) {
    $('phase').textContent = e instanceof ApiFailure ? `refused (${e.status})` : 'unreachable';
    return;
  }
  const ci = info.cryptarchia_info;
  $('phase').textContent = `${ci.state} · ${info.phase}`;
  $('phase').className = ci.state === 'Online' ? 'ok' : 'warn';
  if (blocks.has(ci.tip)) setHeight(ci.tip, ci.height);
  // An answer older than what the stream just showed does not take the header back.
  if (Number(ci.height) >= shownHeight || Date.now() - streamShownAt > 3000)
    showHead(ci.tip, ci.slot, ci.height, ci.lib, ci.lib_slot);
}

function showHead(tipId, tipSlot, height, libId, libSlot) {
  shownHeight = Number(height);
  const tip = $('tip');
  tip.textContent = `#${height} · slot ${tipSlot}`;
  tip.href = `#/block/${tipId}`;
  tip.title = tipId;
  const lib = $('lib');
  lib.textContent = `slot ${libSlot} · ${short(libId)}`;
  lib.href = `#/block/${libId}`;
  lib.title = libId;
}

async function refreshPeers() {
  try {
    const n = await api('/network/info');
    $('peers').textContent = `${n.n_peers} (${n.n_connections} connections)`;
    $('peers').title = n.peer_id;
  } catch (e) {
    $('peers').textContent = e instanceof ApiFailure ? `refused (${e.status})` : 'unreachable';
  }
}

let infoTimer;
/** Asks for the chain info soon (at most once per quarter of a second, however many blocks arrive). */
function refreshInfoSoon() {
  if (infoTimer !== undefined) return;
  infoTimer = setTimeout(() => {
    infoTimer = undefined;
    void refreshInfo();
  }, 250);
}

// ---------- the latest blocks, live ----------

let latestBody; // the <tbody> of the list while the home view shows it
const rows = new Map(); // id → <tr> of that list

function blockRow(b, fresh) {
  const tr = h(
    'tr',
    { 'data-block-id': b.id, class: fresh ? 'new' : undefined },
    h('td', { class: 'num', 'data-col': 'height' }, b.height ?? '…'),
    h('td', { class: 'num' }, String(b.slot)),
    h('td', {}, blockLink(b.id)),
    h('td', { class: 'num', 'data-col': 'txs' }, String(b.txs)),
    h('td', { class: 'muted', 'data-col': 'age' }, age(b.slot)),
    h('td', {}, b.side ? h('span', { class: 'badge' }, 'side branch') : null),
  );
  rows.set(b.id, tr);
  return tr;
}

function updateRow(b) {
  const tr = rows.get(b.id);
  if (!tr) return;
  tr.querySelector('[data-col="height"]').textContent = b.height ?? '…';
  tr.lastElementChild.replaceChildren(b.side ? h('span', { class: 'badge' }, 'side branch') : '');
}

/** Puts a block into the list at its place (highest slot first) without redrawing the other rows. */
function addLatest(b, fresh) {
  if (latest.includes(b.id)) return;
  let i = 0;
  while (i < latest.length && BigInt(blocks.get(latest[i]).slot) >= BigInt(b.slot)) i++;
  if (i >= LATEST_ROWS) return;
  latest.splice(i, 0, b.id);
  if (latestBody) {
    const row = blockRow(b, fresh);
    latestBody.insertBefore(row, latestBody.children[i] ?? null);
  }
  while (latest.length > LATEST_ROWS) {
    const gone = latest.pop();
    rows.get(gone)?.remove();
    rows.delete(gone);
  }
}

function onBlockLine(line) {
  const b = remember(line.block);
  // A processed block that did not become the tip landed on a side branch; when the tip switches to
  // that branch, its blocks are the canonical ones.
  b.side = line.tip !== b.id;
  for (let c = blocks.get(line.tip), n = 0; c?.side && n < LATEST_ROWS; c = blocks.get(c.parent), n++) {
    c.side = false;
    updateRow(c);
  }
  deriveHeight(b);
  addLatest(b, true);
  // The header follows the stream at once when the tip's height is known; the chain info follows.
  const tipHeight = blocks.get(line.tip)?.height;
  if (tipHeight !== undefined) {
    showHead(line.tip, line.tip_slot, tipHeight, line.lib, line.lib_slot);
    streamShownAt = Date.now();
  }
  refreshInfoSoon();
}

let streamStarted = false;
/** Follows the block stream for as long as the page is open, reconnecting after a failure. */
async function followBlocks() {
  if (streamStarted) return;
  streamStarted = true;
  const live = $('live');
  let wait = 1000;
  let first = true;
  for (;;) {
    live.textContent = 'connecting…';
    live.className = 'muted';
    let opened = 0;
    try {
      await readNdjson('/cryptarchia/events/blocks/stream', onBlockLine, undefined, () => {
        opened = Date.now();
        live.textContent = 'live';
        live.className = 'ok';
        // Blocks that came while the stream was down are read back from storage.
        if (!first) void loadLatest().catch(() => {});
        first = false;
      });
      live.textContent = 'reconnecting…';
    } catch (e) {
      live.textContent = !(e instanceof ApiFailure)
        ? 'offline, retrying'
        : e.status === 401
          ? 'needs credentials'
          : `refused (${e.status}), retrying`;
      live.className = 'warn';
    }
    if (opened > 0 && Date.now() - opened > 10_000) wait = 1000;
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, 30_000);
  }
}

/** The latest blocks as stored, for the list's first rows. */
async function loadLatest() {
  const lines = [];
  await readNdjson(`/cryptarchia/blocks_range?blocks_limit=${LATEST_ROWS}`, (l) => lines.push(l));
  for (const l of lines) remember(l.block).side = false; // the canonical chain's
  if (info && blocks.has(info.cryptarchia_info.tip))
    setHeight(info.cryptarchia_info.tip, info.cryptarchia_info.height);
  for (const l of lines) {
    const b = blocks.get(l.block.header.id);
    deriveHeight(b);
    addLatest(b, false);
  }
}

async function viewHome(main) {
  main.append(h('h1', {}, 'Latest blocks'));
  const tbody = h('tbody', { id: 'latest' });
  rows.clear();
  main.append(
    scroll(
      h(
        'table',
        { class: 'list' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Height', 'Slot', 'Block', 'Txs', 'Time', ''].map((x) => h('th', {}, x)),
          ),
        ),
        tbody,
      ),
    ),
  );
  for (const id of latest) tbody.append(blockRow(blocks.get(id), false));
  latestBody = tbody;
}

// ---------- a block ----------

function txSection(tx, i) {
  const t = tx.mantle_tx;
  return h(
    'section',
    { class: 'tx', 'data-tx': t.hash },
    h('h3', {}, `#${i} `, txLink(t.hash, t.hash)),
    t.ops.length === 0 ? h('p', { class: 'muted' }, 'no operations') : null,
    t.ops.map((op, j) =>
      h(
        'div',
        { class: 'op' },
        h('h4', {}, `op ${j}: `, h('span', { class: 'opname', 'data-op': op.opcode }, opName(op.opcode))),
        value(op.payload),
        h(
          'p',
          { class: 'muted small' },
          'proof: ',
          tx.ops_proofs[j] === undefined ? 'none' : Object.keys(tx.ops_proofs[j] ?? {}).join(', ') || 'none',
        ),
      ),
    ),
  );
}

/** A block's height: known to the page, or counted back from the tip when the block is canonical. */
async function heightOf(b) {
  if (b.height !== undefined) return b.height;
  try {
    const ci = (await api('/cryptarchia/info')).cryptarchia_info;
    const ids = await api(`/cryptarchia/headers?from=${ci.tip}&to=${b.id}`);
    if (ids[ids.length - 1] === b.id) {
      setHeight(b.id, Number(ci.height) - (ids.length - 1));
      return b.height;
    }
  } catch {
    // unknown: shown as such
  }
  return undefined;
}

async function viewBlock(main, id, alive) {
  main.append(h('h1', {}, 'Block'));
  const [block, events] = await Promise.all([
    api(`/cryptarchia/blocks/${id}`).catch((e) => e),
    api(`/cryptarchia/blocks/${id}/events`).catch((e) => e),
  ]);
  if (block instanceof ApiFailure && block.status === 404) {
    main.append(h('p', {}, 'No block ', mono(id, 'mono wrap'), ' is stored on this node.'));
    return;
  }
  if (block instanceof Error) throw block;
  const b = remember(block);
  deriveHeight(b);
  const height = await heightOf(b);
  if (!alive()) return;
  const hd = block.header;
  const pol = hd.proof_of_leadership;
  const children = [...blocks.values()].filter((c) => c.parent === hd.id);
  const t = slotTime(hd.slot);
  main.append(
    fieldTable([
      ['Id', mono(hd.id, 'mono wrap'), 'id'],
      ['Height', height === undefined ? h('span', { class: 'muted' }, 'unknown') : String(height), 'height'],
      ['Slot', `${hd.slot}${t ? ` (${t.toISOString().replace('T', ' ').slice(0, 19)} UTC)` : ''}`, 'slot'],
      ['Parent', blockLink(hd.parent_block, hd.parent_block), 'parent'],
      ['Children seen', children.length === 0 ? '—' : children.map((c) => blockLink(c.id)), 'children'],
      ['Transactions', String(block.transactions.length), 'tx-count'],
      ['Uncles', String(block.uncle_headers.length), 'uncle-count'],
      ['Body root', mono(hd.body_root, 'mono wrap'), 'body-root'],
      ['Leader key', mono(pol.leader_key, 'mono wrap'), 'leader-key'],
      ['Voucher commitment', mono(pol.voucher_cm, 'mono wrap'), 'voucher-cm'],
      ['Entropy contribution', mono(pol.entropy_contribution, 'mono wrap'), 'entropy'],
      ['Leadership proof', mono(pol.proof, 'mono wrap small'), 'proof'],
    ]),
  );

  main.append(h('h2', {}, `Uncles (${block.uncle_headers.length})`));
  if (block.uncle_headers.length > 0)
    main.append(
      table(
        ['Id', 'Slot', 'Parent', 'Signature'],
        block.uncle_headers.map((u) =>
          h(
            'tr',
            {},
            h('td', {}, blockLink(u.header.id)),
            h('td', { class: 'num' }, String(u.header.slot)),
            h('td', {}, blockLink(u.header.parent_block)),
            h('td', {}, mono(short(u.signature))),
          ),
        ),
      ),
    );

  main.append(h('h2', {}, `Transactions (${block.transactions.length})`));
  const txs = h('div', { id: 'transactions' });
  block.transactions.forEach((tx, i) => {
    txs.append(txSection(tx, i));
  });
  main.append(txs);

  main.append(h('h2', {}, 'Ledger events'));
  if (events instanceof Error) main.append(errorBox(events));
  else if (events.length === 0) main.append(h('p', { class: 'muted', id: 'events' }, 'none'));
  else
    main.append(
      h(
        'ol',
        { class: 'events', id: 'events' },
        events.map((e) => {
          const [kind, body] = Object.entries(e)[0] ?? ['?', null];
          const [what, fields] =
            kind === 'Header' ? (Object.entries(body ?? {})[0] ?? ['?', null]) : [kind, body];
          return h(
            'li',
            {},
            h('strong', {}, `${kind}: ${kind === 'Tx' ? eventKind(body) : what}`),
            value(fields),
          );
        }),
      ),
    );
}

function eventKind(txEvent) {
  return Object.keys(txEvent?.payload ?? {})[0] ?? '?';
}

// ---------- a transaction ----------

async function viewTx(main, hash, alive) {
  main.append(h('h1', {}, 'Transaction'));
  let tx;
  try {
    tx = await api(`/cryptarchia/transaction/${hash}`);
  } catch (e) {
    if (!(e instanceof ApiFailure) || e.status !== 404) throw e;
    // Not a transaction: perhaps a block id.
    const block = await api(`/cryptarchia/blocks/${hash}`).catch(() => undefined);
    if (block && alive()) {
      window.location.replace(`#/block/${hash}`);
      return;
    }
    main.append(
      h('p', {}, 'No transaction ', mono(hash, 'mono wrap'), ' is pending or in the canonical chain.'),
    );
    return;
  }
  const status = await txStatus(hash);
  if (!alive()) return;
  const seenIn = [...blocks.values()].filter((b) => b.txHashes?.includes(hash));
  const inBlock = seenIn.find((b) => !b.side) ?? seenIn[0];
  main.append(
    fieldTable([
      ['Hash', mono(hash, 'mono wrap'), 'hash'],
      ['Status', status, 'status'],
      [
        'Block',
        status === 'pending'
          ? '—'
          : inBlock
            ? blockLink(inBlock.id, inBlock.id)
            : h('span', { class: 'muted' }, 'not among the blocks this page has seen'),
        'block',
      ],
      ['Operations', String(tx.mantle_tx.ops.length), 'op-count'],
    ]),
  );
  main.append(txSection(tx, 0));
}

/** `pending` (in the mempool) or `included` (in the canonical chain, as the API found it). */
async function txStatus(hash) {
  try {
    const [s] = await post('/mantle/status', [hash]);
    return s === 'Pending' ? 'pending' : 'included';
  } catch {
    // refused (e.g. credentials asked for state-changing routes): the mempool's view tells
    const view = await api('/mempool/view').catch(() => []);
    return view.includes(hash) ? 'pending' : 'included';
  }
}

// ---------- the mempool ----------

async function viewMempool(main, alive) {
  main.append(h('h1', {}, 'Mempool'));
  const [metrics, view] = await Promise.all([api('/mantle/metrics'), api('/mempool/view')]);
  if (!alive()) return;
  const last = Number(metrics.last_item_timestamp);
  main.append(
    fieldTable([
      ['Pending', String(metrics.pending_items), 'pending'],
      ['Includable on the tip', String(view.length), 'includable'],
      [
        'Latest addition',
        last > 0 ? new Date(last).toISOString().replace('T', ' ').slice(0, 19) : '—',
        'last',
      ],
    ]),
  );
  main.append(h('p', {}, h('button', { type: 'button', onclick: () => void route() }, 'Refresh')));
  if (view.length === 0) {
    main.append(h('p', { class: 'muted' }, 'No pending transaction can be included on the tip.'));
    return;
  }
  const body = h('tbody', {});
  main.append(h('h2', {}, 'Includable transactions, in arrival order'));
  main.append(
    scroll(
      h(
        'table',
        { class: 'list' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Hash'), h('th', {}, 'Operations'))),
        body,
      ),
    ),
  );
  const cells = view.map((hash) => {
    const ops = h('td', { class: 'muted' }, '…');
    body.append(h('tr', {}, h('td', {}, txLink(hash)), ops));
    return ops;
  });
  await Promise.all(
    view.slice(0, MEMPOOL_DETAILS).map(async (hash, i) => {
      try {
        const tx = await api(`/cryptarchia/transaction/${hash}`);
        cells[i].textContent = tx.mantle_tx.ops.map((o) => opName(o.opcode)).join(', ') || 'none';
        cells[i].className = '';
      } catch (e) {
        cells[i].textContent = e instanceof ApiFailure && e.status === 404 ? 'gone' : String(e.message);
      }
    }),
  );
  for (const c of cells.slice(MEMPOOL_DETAILS)) c.textContent = '';
}

// ---------- SDP ----------

async function viewSdp(main, alive) {
  main.append(h('h1', {}, 'SDP declarations'));
  const decls = await api('/mantle/sdp/declarations');
  if (!alive()) return;
  const entries = Object.entries(decls);
  main.append(h('p', { class: 'muted' }, `${entries.length} declaration(s) at the tip.`));
  if (entries.length === 0) return;
  main.append(
    table(
      [
        'Declaration',
        'Service',
        'Provider',
        'Locators',
        'Created',
        'Active',
        'Withdraw at',
        'Nonce',
        'ZK id',
        'Note',
      ],
      entries.map(([id, d]) =>
        h(
          'tr',
          { 'data-declaration': id },
          h('td', { title: id }, mono(short(id))),
          h('td', {}, d.service_type),
          h('td', { title: d.provider_id }, mono(short(d.provider_id))),
          h(
            'td',
            {},
            d.locators.map((l) => h('div', { class: 'mono wrap' }, l)),
          ),
          h('td', { class: 'num' }, String(d.created)),
          h('td', { class: 'num' }, String(d.active)),
          h('td', { class: 'num' }, d.withdraw_at === null ? '—' : String(d.withdraw_at)),
          h('td', { class: 'num' }, String(d.nonce)),
          h('td', { title: d.zk_id }, mono(short(d.zk_id))),
          h('td', { title: d.service_note_id }, mono(short(d.service_note_id))),
        ),
      ),
      { class: 'list' },
    ),
  );
}

// ---------- channels ----------

/**
 * Channel operations of the latest blocks. The API has no list of channels: the page reads the last
 * blocks back and keeps the channel operations it finds, kept for half a minute.
 */
let channelScan; // {at, promise}

function scanChannels(progress) {
  if (channelScan && Date.now() - channelScan.at < 30_000) return channelScan.promise;
  const found = new Map(); // channel id → [{block, slot, tx, op, opcode, payload}], newest first
  let read = 0;
  const promise = readNdjson(`/cryptarchia/blocks_range?blocks_limit=${CHANNEL_SCAN_BLOCKS}`, (line) => {
    read++;
    if (read % 100 === 0) progress?.(read);
    const block = line.block;
    remember(block);
    for (const tx of block.transactions) {
      tx.mantle_tx.ops.forEach((op, j) => {
        if (!CHANNEL_OPS.has(op.opcode)) return;
        const id = op.payload.channel_id ?? op.payload.channel;
        if (!found.has(id)) found.set(id, []);
        found.get(id).push({
          block: block.header.id,
          slot: block.header.slot,
          tx: tx.mantle_tx.hash,
          op: j,
          opcode: op.opcode,
          payload: op.payload,
        });
      });
    }
  }).then(
    () => ({ channels: found, blocks: read }),
    (e) => {
      channelScan = undefined;
      throw e;
    },
  );
  channelScan = { at: Date.now(), promise };
  return promise;
}

async function viewChannels(main, alive) {
  main.append(h('h1', {}, 'Channels'));
  const note = h(
    'p',
    { class: 'muted' },
    `Reading the last ${CHANNEL_SCAN_BLOCKS} blocks for channel operations…`,
  );
  main.append(note);
  const { channels, blocks: read } = await scanChannels((n) => {
    note.textContent = `Reading the last ${CHANNEL_SCAN_BLOCKS} blocks for channel operations… ${n}`;
  });
  if (!alive()) return;
  note.textContent = `Channels with operations in the last ${read} blocks of the canonical chain.`;
  if (channels.size === 0) {
    main.append(h('p', {}, 'None.'));
    return;
  }
  main.append(
    table(
      ['Channel', 'Messages', 'Operations', 'Latest slot'],
      [...channels].map(([id, ops]) =>
        h(
          'tr',
          { 'data-channel': id },
          h('td', {}, channelLink(id)),
          h('td', { class: 'num' }, String(ops.filter((o) => o.opcode === 17).length)),
          h('td', { class: 'num' }, String(ops.length)),
          h('td', { class: 'num' }, String(ops[0].slot)),
        ),
      ),
      { class: 'list' },
    ),
  );
}

async function viewChannel(main, id, alive) {
  main.append(h('h1', {}, 'Channel'));
  main.append(fieldTable([['Id', mono(id, 'mono wrap'), 'id']]));
  main.append(h('h2', {}, 'State at the tip'));
  try {
    const state = await api(`/channel/${id}`);
    if (!alive()) return;
    main.append(value(state));
  } catch (e) {
    if (!alive()) return;
    main.append(
      e instanceof ApiFailure && e.status === 404
        ? h('p', { class: 'muted' }, 'No such channel at the tip.')
        : errorBox(e),
    );
  }
  main.append(h('h2', {}, 'Messages and operations'));
  const note = h('p', { class: 'muted' }, `Reading the last ${CHANNEL_SCAN_BLOCKS} blocks…`);
  main.append(note);
  const { channels, blocks: read } = await scanChannels();
  if (!alive()) return;
  const ops = channels.get(id) ?? [];
  note.textContent = `${ops.length} operation(s) in the last ${read} blocks, newest first.`;
  for (const o of ops)
    main.append(
      h(
        'section',
        { class: 'op' },
        h(
          'h4',
          {},
          h('span', { class: 'opname' }, opName(o.opcode)),
          ` · slot ${o.slot} · block `,
          blockLink(o.block),
          ' · tx ',
          txLink(o.tx),
        ),
        value(o.payload),
      ),
    );
}

// ---------- routing ----------

let generation = 0;

async function route() {
  generation++;
  const mine = generation;
  const alive = () => mine === generation;
  latestBody = undefined;
  const main = $('view');
  main.replaceChildren();
  const path = window.location.hash.replace(/^#/, '') || '/';
  const parts = path.split('/').filter(Boolean);
  for (const a of document.querySelectorAll('nav a'))
    a.classList.toggle('current', a.getAttribute('href') === `#/${parts[0] ?? ''}`);
  try {
    const id = parts[1] && HEX32.exec(parts[1])?.[1]?.toLowerCase();
    if (parts.length === 0) await viewHome(main);
    else if (parts[0] === 'block' && id) await viewBlock(main, id, alive);
    else if (parts[0] === 'tx' && id) await viewTx(main, id, alive);
    else if (parts[0] === 'mempool') await viewMempool(main, alive);
    else if (parts[0] === 'sdp') await viewSdp(main, alive);
    else if (parts[0] === 'channels') await viewChannels(main, alive);
    else if (parts[0] === 'channel' && id) await viewChannel(main, id, alive);
    else main.append(h('h1', {}, 'Not found'), h('p', {}, 'No such page: ', mono(path)));
  } catch (e) {
    if (alive()) main.append(errorBox(e));
  }
}

function askForCredentials() {
  const form = $('auth');
  if (!form.hidden) return;
  $('auth-message').textContent = credentials()
    ? 'The API refused the credentials given.'
    : 'The API asks for credentials.';
  form.hidden = false;
}

function setUp() {
  $('search').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q = $('search-input').value.trim();
    const m = HEX32.exec(q);
    if (m) window.location.hash = `#/tx/${m[1].toLowerCase()}`;
    else $('search-input').setCustomValidity('64 hexadecimal digits');
    $('search-input').reportValidity();
  });
  $('search-input').addEventListener('input', () => $('search-input').setCustomValidity(''));
  $('auth').addEventListener('submit', (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(CREDENTIALS_KEY, $('auth-input').value.trim());
    $('auth-input').value = '';
    $('auth').hidden = true;
    void start();
  });
  $('auth-clear').addEventListener('click', () => {
    sessionStorage.removeItem(CREDENTIALS_KEY);
    $('auth-input').value = '';
  });
  window.addEventListener('hashchange', () => void route());
  // The times in the list move on.
  setInterval(() => {
    for (const [id, tr] of rows) {
      const b = blocks.get(id);
      if (b) tr.querySelector('[data-col="age"]').textContent = age(b.slot);
    }
  }, 5000);
  setInterval(() => void refreshInfo(), 5000);
  setInterval(() => void refreshPeers(), 10_000);
}

async function start() {
  void route();
  timeInfo ??= await api('/time/info').catch(() => undefined);
  await Promise.all([refreshInfo(), refreshPeers()]);
  void followBlocks();
  await loadLatest().catch((e) => {
    latestBody?.closest('.scroll')?.before(errorBox(e));
  });
}

// In the page; imported elsewhere (the tests, under Node), the module only defines its functions.
if (typeof document !== 'undefined') {
  setUp();
  void start();
}
