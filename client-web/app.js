// app.js — the browser client: sign in (resuming after a reload with the
// token kept in sessionStorage), the lobby, and one's games.  The words of
// every announcement are the server's ("say", from the rule set's wording
// table in common/ruleset.c): the page never words an event itself.
import { Net } from './net.js';
import { Board, fenPieces } from './board.js';
import { RecordView } from './record.js';
import { WatchView } from './watch.js';
import { Hands } from './hands.js';
import { announce, awayDeadline, awayText, botMark, ending, fmtClock, localStamp, RULESET_ABOUT, said, side, speak, speakText, tagsText, timeText, who, words } from './words.js';

// The rule sets where a player asks "any?" (common/ruleset.c: pawn_info
// PAWN_INFO_ASK; test_rulesets checks this line against it).
const ASKS_ANY = new Set(['english', 'insurance', 'gollon', 'berkeley_any', 'crazykrieg']);

const $ = (id) => document.getElementById(id);
// A view newly shown from its top (on a phone, a lobby scrolled far down
// would leave the board out of sight above), the focus on its heading: the
// control that had it is hidden with the view it was in, and a keyboard or
// a screen reader would be left at the top of the page, not told where it is.
const VIEWS = ['login', 'lobby', 'game', 'watch', 'record'];
// The browser's Back (the page newcomer probe: it left the site): a game,
// a seat watched or a record is one step of the tab's history over the
// lobby, and Back takes it as the view's own button does (Lobby, Leave);
// a view left by its button takes the step back itself.  `step`: the tab
// stands on such a step of ours; `stepping`: our own history.back()
// calls whose popstate is yet to come (they are asynchronous: a view
// shown meanwhile pushes its step once they are done, not on top of an
// entry about to be left).  A step reloaded is made this page's base: the
// entry behind it belongs to the document before the reload, and a step
// back to it loaded the page again (CI: a reload right after a seat left
// was aborted by it).
const BACK = { game: 'btn-lobby', watch: 'btn-unwatch', record: 'btn-record-back' };
if (history.state?.krieg) history.replaceState(null, '');
let step = false, stepping = 0;
const shownView = () => VIEWS.find((s) => !$(s).hidden);
const stepFor = (id) => {
  if (BACK[id] && !step && stepping === 0) { history.pushState({ krieg: id }, ''); step = true; }
  else if (!BACK[id] && step) { step = false; stepping++; history.back(); }
};
const show = (id) => {
  const was = shownView();
  if ($(id).hidden) scrollTo(0, 0);
  VIEWS.forEach((s) => { $(s).hidden = s !== id; });
  if (was !== undefined && was !== id) $(id).querySelector('h2').focus({ preventScroll: true });
  stepFor(id);
};
addEventListener('popstate', () => {
  if (stepping > 0) {
    if (--stepping === 0) stepFor(shownView());
    return;
  }
  // the user's Back (or Forward): the entry they stand on now
  step = Boolean(history.state?.krieg);
  const shown = shownView();
  if (BACK[shown] && !step) $(BACK[shown]).click();
});
// The status line: a line's parts (strings, and users' words and names in
// their own elements: words.js said, who).
const status = (...parts) => { $('status').replaceChildren(...parts); };
// What a user or the club told this one (a tell, a message, a notice, a
// game's news): said in the status line and kept in the log, newest first,
// the last LOG_KEPT of them (the status line says only the latest).
const LOG_KEPT = 50;
function note(...parts) {
  status(...parts);
  const li = document.createElement('li');
  const at = document.createElement('time');
  at.textContent = `${new Date().toTimeString().slice(0, 5)} `;
  li.append(at, ...parts.map((x) => (typeof x === 'string' ? x : x.cloneNode(true))));
  $('log').prepend(li);
  while ($('log').children.length > LOG_KEPT) $('log').lastElementChild.remove();
  $('log-box').hidden = false;
}
const TITLE = document.title;

// A field's limit is the server's, in bytes of UTF-8 (PROTOCOL.md: a chat's
// text 1..200 bytes, a tournament's name 1..64...), but its maxlength counts
// UTF-16 code units: 150 Cyrillic letters (300 bytes) passed a maxlength of
// 200 and were refused once sent; an emoji counts 2 and takes 4.  maxlength
// stays (a text within the bytes is within the code units too, and it stops
// ASCII text at the limit as it did); every field that has one is also
// measured in bytes as it is typed, and one too long is invalid: the
// browser's validation of the form then sends nothing and says how many
// bytes too long it is (no form is novalidate).  What is measured
// is what is sent: the text trimmed (every such field's is).  A value set by
// the page's code (a field cleared once sent, a session's forms emptied) is
// measured again too, and leaves no stale error.
const utf8 = new TextEncoder();
function fitBytes(field) {
  const over = utf8.encode(field.value.trim()).length - field.maxLength;
  field.setCustomValidity(over > 0
    ? `${over} byte${over === 1 ? '' : 's'} too long: at most ${field.maxLength} bytes (a letter outside ASCII takes 2 to 4)` : '');
}
for (const field of document.querySelectorAll('input[maxlength], textarea[maxlength]')) {
  const value = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field), 'value');
  Object.defineProperty(field, 'value', {
    configurable: true,
    get() { return value.get.call(this); },
    set(v) { value.set.call(this, v); fitBytes(this); },
  });
  field.addEventListener('input', () => fitBytes(field));
  fitBytes(field);
}

const state = { game: null, color: null, clock: null, toMove: null, ticked: 0, rules: null,
  drawOffer: null, adjournOffer: null, away: null, hands: new Hands(), welcome: null, flagged: new Map(),
  lostIfAway: false };   // lostIfAway: a game lost by staying away (a clock's, or against a bot: enterGame)
const board = new Board($('board'), tryMove, { label: 'your board', help: 'board-help' });
let promoPending = null;
// One's colour in each of one's games seen (a login's game_states, a
// game_start): to word an offer in a game not on screen.
const myColors = new Map();
// A correspondence game's (days a move): never lost by staying away.
const byDays = (g) => !!(g.time && g.time.days);

const net = new Net(onEvent, lost);
const records = new RecordView(net, show, status, toLobby);
const watch = new WatchView(net, show, status, toLobby, note);
window.krieg = { net, state, board, watch, records };   // for the browser tests
// A game here goes on (one's own, shown or not, or the seat watched): a
// silence of QUIET_MS is asked about (net.js alive).
net.live = () => (state.game !== null && state.toMove !== null) || (watch.game !== null && watch.toMove !== null);

// What a greeting offers, taken at every connection: the club's message of
// the day, the rule sets (a greeting without its list offers none; a
// choice made stays if still offered).  A page whose first connection was
// refused (server_full) came back through reconnect() with no rule set to
// seek in (the second browser probe).
function greeted(g) {
  if (typeof g.motd === 'string' && g.motd) { $('motd').textContent = g.motd; $('motd').hidden = false; }
  const sets = (Array.isArray(g.rulesets) ? g.rulesets : []).filter((r) => typeof r === 'string');
  for (const id of ['rules', 'standings-rules']) {
    const sel = $(id), was = sel.value;
    sel.replaceChildren(...sets.map((r) => {
      const o = new Option(r, r);
      if (RULESET_ABOUT[r]) o.title = RULESET_ABOUT[r];
      return o;
    }));
    if (sets.includes(was)) sel.value = was;
  }
  // the rule sets in a line each, and the one chosen beside the list
  $('rulesets-about').replaceChildren(...sets.filter((r) => RULESET_ABOUT[r]).map((r) => {
    const li = document.createElement('li');
    li.textContent = aboutLine(r);
    return li;
  }));
  aboutRules();
}
const aboutLine = (r) => (RULESET_ABOUT[r] ? `${r}: ${RULESET_ABOUT[r]}` : '');
const aboutRules = () => { $('rules-about').textContent = aboutLine($('rules').value); };
$('rules').addEventListener('change', aboutRules);

// This session's keys forgotten (the token refused, the session ended): the seat is watch.js's.
const forgetSession = () => {
  ['krieg.token', 'krieg.follows'].forEach((k) => sessionStorage.removeItem(k));
  watch.forget();
};
// The status line of the game shown.
const playingLine = () => `signed in as ${state.user}, playing game ${state.game}`;

async function start() {
  const g = await net.open();
  greeted(g);
  await net.call('hello', { version: g.protocol });
  const token = sessionStorage.getItem('krieg.token');
  if (token) {
    const seat = watch.kept();   // read before anything resets it
    const r = await net.call('resume', { token });
    if (r.ok) {
      await refollow();
      signedIn(r);
      // the seat watched before the reload taken again (a spectator's
      // reload landed in the lobby: the browser probe); a refusal (the
      // game over meanwhile) is said, and the page stays where it is
      if (seat && !(await watch.open(seat.game, seat.seat)).ok) watch.forget();
      return;
    }
    if (lostAgain(r)) return;
    forgetSession();
  }
  status('connected');
  show('login');
}

// A lost connection is made again, as krieg does: after 1, 2, 4 ... 10 s,
// and at once when the browser says the network is back (`online`) or the
// page is shown again (a phone's tab brought back): the phone probe's
// network came back 26 s before a 30 s wait ended, half the abandonment
// grace gone.  The session is resumed with its token, and the view shown
// taken up again (one's game, the seat watched, the lobby).  Not after the server ended
// the session (a kick, a disabled account): its reason, said when it came,
// stays in the status line (the close follows it at once).
// A dead path (net.js alive: the server silent past its ping) is said as
// such, as krieg says it.
const RETRY_MAX_MS = 10000;
let ended = false, stopping = false, retry = 1000, retryTimer = null;
// A request answered by the connection's loss (net.js), not by the server:
// the session is not refused, only unreached; lost() tries again with it.
// (A dead path found while `resume` waited signed the player out: a guest
// for good.)
const lostAgain = (r) => !r.ok && r.error && r.error.code === 'disconnected';
function lost(e, said) {
  if (ended) return;
  const why = e && e.silent ? ` (no answer from the server for ${Math.round(e.silentMs / 1000)} s; the network may be down)` : '';
  // the server's reason, when it said one before it closed (server_full)
  if (said) {
    status(said.code === 'server_full' ? 'the server refused the connection: ' : 'the server closed the connection: ',
      said.message, ` — trying again in ${retry / 1000} s…`);
  }
  else if (stopping) status(`the server stopped (a restart?) — reconnecting in ${retry / 1000} s…`);
  else status(`connection lost${why} — reconnecting in ${retry / 1000} s…`);
  retryTimer = setTimeout(reconnect, retry);
  retry = Math.min(retry * 2, RETRY_MAX_MS);
}
// A wait for the next attempt cut short: the network is said to be back.
function reconnectNow() {
  if (retryTimer === null) return;
  clearTimeout(retryTimer);
  reconnect();
}
window.addEventListener('online', reconnectNow);
document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') reconnectNow(); });
// A try whose answer the connection's loss gave (net.js: it may or may not
// have reached the server): {game, plies, text}, said once the game is read
// again (the phone probe: the field kept a try played, nothing said which).
// plies: one's own last move's when it was sent (a move heard after it,
// its answer lost, is this try's: a review).
let lostTry = null;
// A try sent: its answer, refused, said; lost with the connection, kept for
// the reconnection to say (the status line says the loss meanwhile); else
// the text it answered cleared.
async function sendTry(fields, text) {
  const game = state.game, plies = state.ownPly;
  const r = await net.call('move', { game, ...fields });
  if (lostAgain(r)) lostTry = { game, plies, text };
  else if (!r.ok) refused(r);
  else clearSent(text);
}
// What became of the lost try, from the game read again (the view shown
// the game's: else it is forgotten, as at a sign-out: clearSession).
function lostTryWords(shown) {
  const t = lostTry;
  lostTry = null;
  if (!t || shown !== 'game' || t.game !== state.game) return '';
  if (state.ownPly > t.plies) { clearSent(t.text); return `; your try ${t.text}, sent as the connection dropped, was played`; }
  if (state.toMove === state.color) return `; your try ${t.text}, sent as the connection dropped, was not played: it is still your move`;
  return '';
}
async function reconnect() {
  retryTimer = null;
  status('reconnecting…');
  const shown = shownView();
  const { game } = state, seat = { game: watch.game, role: watch.seat };
  try { await net.open(); } catch { return; }   // closed again: lost() tries later
  retry = 1000;
  stopping = false;
  greeted(net.greeting);
  if (lostAgain(await net.call('hello', { version: net.greeting.protocol }))) return;
  const token = sessionStorage.getItem('krieg.token');
  const r = token ? await net.call('resume', { token }) : { ok: false };
  if (lostAgain(r)) return;
  if (!r.ok) {
    sessionStorage.removeItem('krieg.token');
    // The session is gone: whoever signs in next (another account, maybe)
    // must find nothing of this one's, shown or hidden.
    clearSession();
    status('reconnected: sign in again');
    show('login');
    return;
  }
  if (r.token) sessionStorage.setItem('krieg.token', r.token);
  // what waited is said again by this login's welcome, if anything waits;
  // what ended is told once (PROTOCOL.md, Presence): kept
  state.welcome = state.welcome && Array.isArray(state.welcome.ended) ? { ended: state.welcome.ended } : null;
  showWelcome();
  // the login pushes those that still stand: listed again, not said again
  // (a review: each reconnection noted every standing challenge; challengesSaid)
  clearChallenges();
  await refollow();
  await net.call('ping');  // a barrier: the login's events are in
  if (shown === 'watch' && seat.game !== null) await watch.open(seat.game, seat.role);
  else if (shown === 'game' && game !== null) await openGame(game);
  else if (shown === 'record') show('record');
  else { state.game = null; toLobby(); }
  status(`reconnected as ${r.user}${lostTryWords(shown)}`);
}

function signedIn(r) {
  if (r.token) sessionStorage.setItem('krieg.token', r.token);
  if (state.user !== undefined && state.user !== r.user) clearSession();   // another account
  $('password').value = '';
  state.user = r.user;
  $('me').textContent = `— ${r.user}`;
  // a game already shown (its game_state came before this answer: a
  // reload) keeps its words (the browser probe: "signed in as X" alone)
  status(state.game ? playingLine() : `signed in as ${r.user}`);
  if (!state.game) toLobby();
}

// Everything of one account's, forgotten and taken off the page (also from
// the sections hidden): its game, the seat it watched (an umpire's chair
// holds the true board), its challenges, the seeks and lists it was shown,
// the profile it looked up, its follows, half-written forms, the promotion
// chooser and the clocks.  The next sign-in starts from nothing.
const waitingSaid = new Set();   // games the welcome's note named (the welcome's handler)
const challengesSaid = new Set();   // challenges said once a session (the challenge's handler)
function clearSession() {
  lostTry = null;
  waitingSaid.clear();
  challengesSaid.clear();
  Object.assign(state, { game: null, color: null, opponent: null, clock: null, toMove: null, rules: null,
    timed: false, adjourned: false, paused: false, drawOffer: null, adjournOffer: null, away: null, user: undefined,
    welcome: null });
  state.hands.reset();
  state.flagged.clear();
  clearChallenges();
  myColors.clear();
  closePromo();
  board.sel = null;
  board.pieces = new Map();
  board.ghosts = new Map();
  board.render();
  watch.clear();
  records.clear();
  follows.clear();
  keepFollows();
  ['announcements', 'game-title', 'turn', 'hands', 'possible', 'clock-white', 'clock-black',
    'challenges', 'seeks', 'who', 'profile', 'profile-games', 'standings', 'tournament', 'messages', 'live', 'history', 'me',
    'welcome', 'log', 'status', 'offer', 'away', 'heard']
    .forEach((id) => $(id).replaceChildren());
  $('profile').hidden = true;
  $('possible').hidden = true;
  $('welcome-box').hidden = true;
  $('log-box').hidden = true;
  ['move', 'say-text', 'challenge-user', 'message-user', 'message-text', 'pair-white', 'pair-black',
    'pair-tournament', 'pair-round', 'tournament-name', 'user', 'invite']
    .forEach((id) => { $(id).value = ''; });
  // and what the connection received for it (a probe: the last account's
  // login reply, token included, and its tells stayed in net.frames)
  net.frames.length = 0;
  document.body.classList.remove('staff');
  document.title = TITLE;
}

function toLobby() {
  document.title = TITLE;
  show('lobby');
  refreshSeeks();
  refreshLive();
  refreshWho();
  refreshHistory();
  refreshMessages();
}

// Log in or register (with an invite code where the club asks for one).
// A password an admin set (a new account, a reset) must be replaced before the login counts: the
// server answers without a token until `passwd` (PROTOCOL.md, Accounts).
async function auth(type) {
  const f = { user: $('user').value, password: $('password').value };
  if (type === 'register' && $('invite').value.trim()) f.invite = $('invite').value.trim();
  let r = await net.call(type, f);
  // a refused login marks the fields it was about (the keyboard probe: said,
  // but the fields not marked invalid), until they are typed in again
  const code = r.ok ? null : r.error.code;
  const bad = { user: ['auth_failed', 'user_exists', 'bad_name'].includes(code),
    password: ['auth_failed', 'weak_password'].includes(code) };
  for (const id of ['user', 'password']) {
    if (bad[id]) $(id).setAttribute('aria-invalid', 'true'); else $(id).removeAttribute('aria-invalid');
  }
  if (!r.ok) return status(r.error.message);
  if (r.must_change_password && !r.token) {
    const chosen = prompt('An admin set this password: choose your own (8 characters or more)');
    if (!chosen) return status('not signed in: choose your own password to go on');
    r = await net.call('passwd', { old: f.password, new: chosen });
    if (!r.ok) return status(r.error.message);
  }
  signedIn(r);
}
$('login-form').addEventListener('submit', (e) => { e.preventDefault(); auth('login'); });
for (const id of ['user', 'password']) $(id).addEventListener('input', () => $(id).removeAttribute('aria-invalid'));
$('btn-register').addEventListener('click', () => auth('register'));
$('btn-guest').addEventListener('click', async () => {
  const r = await net.call('guest');
  if (r.ok) signedIn(r); else status(r.error.message);
});

// `label`: its name for a screen reader where the rows' buttons would be
// alike ("Accept", "Rematch"): the text and what it is about (the a11y
// probe: a list of buttons all named "Accept" told nothing apart).
const button = (text, f, data = {}, label = null) => {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  if (label) b.setAttribute('aria-label', label);
  Object.assign(b.dataset, data);
  b.addEventListener('click', f);
  return b;
};

// The message form made ready for a message to `user`.
const messageTo = (user) => () => { $('message-user').value = user; $('message-text').focus(); };

// A button's work done once the user says yes.
const confirmed = (what, f) => () => { if (confirm(`${what}?`)) f(); };

// The lobby's lists: list `id` emptied, then one item a row, its words and
// its buttons made by row(x) ([text, ...buttons]; the text a string, or a
// line's parts: users' words and names in their own elements).
function fill(id, items, row) {
  const lis = (Array.isArray(items) ? items : []).map((x) => {
    const li = document.createElement('li');
    const [text, ...buttons] = row(x);
    li.append(...[text].flat(), ...buttons);
    return li;
  });
  $(id).replaceChildren(...lis);
  return lis;
}

// A seek's terms say whether it is rated and whom it is for (its rating
// range): a guest, or a player outside the range, is refused it.
const range = (o) => (o.rating_min !== undefined && o.rating_max !== undefined ? `, ratings ${o.rating_min}–${o.rating_max}`
  : o.rating_min !== undefined ? `, ratings ${o.rating_min} and up`
    : o.rating_max !== undefined ? `, ratings up to ${o.rating_max}` : '');
// An offer taken (its game_start opens the game), or the refusal said.
const acceptOffer = async (offer) => {
  const r = await net.call('accept', { offer });
  if (!r.ok) status(r.error.message);
  return r;
};
// The seeks and challenges open (every page of a long list): another's
// to accept, one's own to cancel (a correspondence seek or challenge
// stays open while one is away, so the page must be able to withdraw it).
async function refreshSeeks() {
  const r = await net.callAll('seeks', {}, 'offers');
  fill('seeks', r.offers, (o) => [`${o.user}${o.bot ? ' (a bot)' : ''}${o.to ? ` to ${o.to}` : ''}: ${o.rules} ${timeText(o.time)} ${o.color}`
    + `${o.rated ? ', rated' : ''}${range(o)} `,
    o.user !== state.user ? button('Accept', () => acceptOffer(o.offer), { offer: o.offer }, `Accept ${o.user}'s seek, offer ${o.offer}`)
      : button('Cancel', async () => {
        const c = await net.call('cancel', { offer: o.offer });
        status(c.ok ? `offer ${o.offer} cancelled` : c.error.message);
        refreshSeeks();
      }, { cancel: o.offer }, `Cancel your offer ${o.offer}`)]);
}
$('btn-refresh').addEventListener('click', refreshSeeks);

// Mute or unmute a user (their words and challenges; kept by the server).
async function setMute(user, on) {
  const r = await net.call(on ? 'mute' : 'unmute', { user });
  status(r.ok ? `${on ? 'muted' : 'unmuted'} ${user}` : r.error.message);
  return r.ok;
}

// Who is online (every page), bots marked; "Challenge" fills in the name.
async function refreshWho() {
  const m = await net.call('mutes'), f = await net.call('follow');
  const muted = new Set(m.ok ? m.muted.map((x) => x.toLowerCase()) : []);
  const followed = new Set(f.ok ? f.following.map((x) => x.toLowerCase()) : []);
  const r = await net.callAll('who', {}, 'users');
  const isStaff = (u) => u.role === 'umpire' || u.role === 'admin';
  const staff = (u) => (isStaff(u) ? ` (${u.role})` : '');   // whom to ask
  // An umpire's or admin's tools (pairing, the chair) shown to them only;
  // the role as the list says now (an admin may change it at any time).
  if (r.ok) document.body.classList.toggle('staff', r.users.some((u) => u.name === state.user && isStaff(u)));
  fill('who', r.users, (u) => [`${u.name}${u.bot ? ' (a bot)' : ''}${staff(u)}, ${u.games} game${u.games === 1 ? '' : 's'} `,
    button('Profile', () => showProfile(u.name), { profile: u.name }, `Profile of ${u.name}`),
    ...(u.name !== state.user ? [button('Challenge', () => {
      // the name filled in, and the focus where the challenge is sent from
      $('challenge-user').value = u.name;
      $('btn-challenge').focus();
      status(`challenge ${u.name}: the terms are the seek form's; press Challenge`);
    }, { who: u.name }, `Challenge ${u.name}`),
      button('Message', messageTo(u.name), { message: u.name }, `Message ${u.name}`),
      followButton(u.name, followed.has(u.name.toLowerCase())),
      button(muted.has(u.name.toLowerCase()) ? 'Unmute' : 'Mute', async () => {
        if (await setMute(u.name, !muted.has(u.name.toLowerCase()))) refreshWho();
      }, { mute: u.name }, `${muted.has(u.name.toLowerCase()) ? 'Unmute' : 'Mute'} ${u.name}`)] : [])]);
}

// Follow or unfollow a player: one button, as the follow list says.
// The server keeps a connection's follows with it: the page keeps them too
// (in sessionStorage, as the token), to ask again after a reconnection or
// a reload.
const follows = new Set(JSON.parse(sessionStorage.getItem('krieg.follows') || '[]'));
const keepFollows = () => sessionStorage.setItem('krieg.follows', JSON.stringify([...follows]));
// A registered account's follows are kept by the server (`kept`): the page
// takes its list; a guest's are asked for again.
const refollow = async () => {
  const r = await net.call('follow');
  if (!r.ok) return;
  if (r.kept) { follows.clear(); r.following.forEach((u) => follows.add(u.toLowerCase())); keepFollows(); return; }
  for (const user of follows) await net.call('follow', { user });
};
const followButton = (user, following) => button(following ? 'Unfollow' : 'Follow', async () => {
  const r = await net.call(following ? 'unfollow' : 'follow', { user });
  if (r.ok && following) follows.delete(user.toLowerCase());
  if (r.ok && !following) follows.add(r.user.toLowerCase());
  keepFollows();
  status(!r.ok ? r.error.message : following ? `no longer following ${user}`
    : `following ${r.user}: their next game opens here when you are in the lobby, and their coming and going is said`);
  refreshWho();
}, following ? { unfollow: user } : { follow: user }, `${following ? 'Unfollow' : 'Follow'} ${user}`);

// What the club knows of a player: the record from their side, ratings.
async function showProfile(user) {
  const r = await net.call('profile', { user });
  if (!r.ok) { status(r.error.message); return; }
  const { won, lost, drawn, aborted } = r.record;
  const what = r.guest ? ' (a guest)' : r.bot ? ' (a bot)' : '';
  const ratings = Object.entries(r.ratings || {}).map(([pool, x]) => `${pool} ${x.rating}${x.provisional ? '?' : ''}`);
  $('profile').textContent = `${r.name}${what}: ${r.role}, since ${localStamp(r.registered * 1000).slice(0, 10)}, `
    + `${r.online ? 'online' : 'offline'}${r.games ? `, in ${r.games} live game${r.games === 1 ? '' : 's'}` : ''}; `
    + `${won} won, ${lost} lost, ${drawn} drawn, ${aborted} aborted; `
    + `${ratings.length ? `rated ${ratings.join(', ')}` : 'not rated yet'}`;
  $('profile').hidden = false;
  // and their last finished games, each to read back (every finished game is public)
  const h = await net.call('history', { user, limit: 20 });
  fill('profile-games', h.ok ? h.games : [], gameRow);
}

// The club table of the chosen rule set's pool (every page).
$('btn-standings').addEventListener('click', async () => {
  const r = await net.callAll('standings', { rules: $('standings-rules').value }, 'standings');
  if (!r.ok) { status(r.error.message); return; }
  fill('standings', r.standings, (x) => [`${x.name}${x.bot === true ? ' (bot)' : ''} ${x.rating}${x.provisional ? '?' : ''} (${x.games} game${x.games === 1 ? '' : 's'}) `,
    button('Profile', () => showProfile(x.name), { profile: x.name }, `Profile of ${x.name}`)]);
  if (!r.standings.length) status(`nobody is rated in the ${r.pool} pool yet`);
});
// A tournament's score table (the games a director paired with its name), every page.
$('tournament-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await net.callAll('tournament', { name: $('tournament-name').value.trim() }, 'players');
  if (!r.ok) { status(r.error.message); return; }
  // the tie-breaks beside the points (the TD probe: names broke ties)
  const rows = fill('tournament', r.players, (x) => [`${x.name}${x.bot === true ? ' (bot)' : ''} ${x.points} `
    + `(Buchholz ${x.buchholz ?? 0}, Sonneborn-Berger ${x.sonneborn_berger ?? 0}) `
    + `(+${x.won} =${x.drawn} -${x.lost}${x.playing ? `, ${x.playing} playing` : ''}`
    + `${x.aborted ? `, ${x.aborted} aborted` : ''}) `,
  button('Profile', () => showProfile(x.name), { profile: x.name }, `Profile of ${x.name}`)]);
  // each row numbered by its rank, shared by players equal on all three
  rows.forEach((li, i) => { if (Number.isSafeInteger(r.players[i].rank)) li.value = r.players[i].rank; });
  if (!r.players.length) status(`nobody was paired in ${r.tournament}`);
});
$('btn-who').addEventListener('click', refreshWho);

// Messages left for this user (kept by the server until deleted), oldest first.
const sent = (m) => localStamp(m.sent * 1000);
async function refreshMessages() {
  const r = await net.callAll('messages', {}, 'messages');
  if (!r.ok) return;
  fill('messages', r.messages, (m) => [[who(m.from), `, ${sent(m)}: "`, said(m.text), '" '],
    button('Reply', messageTo(m.from), { reply: m.message }, `Reply to ${m.from}`),
    button('Delete', async () => {
      const d = await net.call('message_delete', { message: m.message });
      if (!d.ok) status(d.error.message);
      refreshMessages();
    }, { deleteMessage: m.message }, `Delete the message of ${m.from}, ${sent(m)}`)]);
}
$('btn-messages').addEventListener('click', refreshMessages);
$('btn-messages-clear').addEventListener('click', confirmed('Delete all your messages', async () => {
  const r = await net.call('message_delete');
  status(r.ok ? `deleted ${r.deleted} message${r.deleted === 1 ? '' : 's'}` : r.error.message);
  refreshMessages();
}));
$('message-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const user = $('message-user').value.trim(), text = $('message-text').value.trim();
  const r = await net.call('message', { user, text });
  if (!r.ok) { status(r.error.message); return; }
  status(`message left for ${user}`);
  if ($('message-text').value.trim() === text) $('message-text').value = '';
});

// What waited at login (`welcome`, PROTOCOL.md "Presence"): the games
// where it is one's move, the draw offers standing, the games that ended
// meanwhile; and the games flagged (`game_flagged`: their record failed
// its check, and they are not played on).  Listed in the lobby until the
// next login's welcome says otherwise.
const list = (x) => (Array.isArray(x) ? x.filter((e) => e !== null && typeof e === 'object') : []);
const playButton = (game) => button('Play', () => openGame(game), { play: game }, `Play game ${game}`);
function showWelcome() {
  const w = state.welcome || {};
  const rows = [
    ...list(w.your_move).map((x) => [[`Game ${x.game} against `, who(x.opponent), ': your move'
      + `${Number.isFinite(x.left) ? ` (${fmtClock(x.left)} left)` : ''}${x.adjourned ? ' (adjourned: resume it to play on)' : ''}`
      + `${x.paused === true ? ' (paused by the umpire: no move until the unpause)' : ''} `],
    playButton(x.game)]),
    ...list(w.draw_offers).map((x) => [`Game ${x.game}: ${x.by === myColors.get(x.game) ? 'your draw offer stands'
      : `${side(x.by, 'your opponent')} offers a draw`} `, playButton(x.game)]),
    ...list(w.ended).map((x) => [[`Game ${x.game} against `, who(x.opponent), ` ended: ${ending(x.result, x.reason)}, you played ${x.color} `],
      button('Record', () => records.open(x.game, 'umpire'), { record: x.game, view: 'umpire' }, `Record of game ${x.game}`)]),
    // (the server's reason is a sentence of its own: "its record failed its check when ...")
    ...[...state.flagged].map(([game, reason]) => [[`Game ${game} is flagged, not played on: `,
      ...(reason ? [said(reason)] : ['its record failed its check'])]]),
  ];
  fill('welcome', rows, (row) => row);
  $('welcome-box').hidden = !rows.length;
}

// Signed out: the token forgotten by the server and the tab, and nothing
// of the account's left on the page; the sign-in form again.
async function signOut() {
  // Live games go on without this tab: a guest's (it cannot come back), a
  // clock's and one against a bot are lost after the server's grace
  // (PROTOCOL.md, Presence); said first (the browser probe signed out of
  // a game against a bot, and lost it, unwarned).
  const mine = await net.callAll('games', {}, 'games');
  // a correspondence game is never abandoned (PROTOCOL.md, Presence; a
  // guest's neither): not counted (the correspondence probe: warned of its 2)
  // (an untimed game counted: against a bot it is lost too, and the list does not say who is one)
  const atRisk = (g) => g.live === true && !byDays(g);
  const live = mine.ok && Array.isArray(mine.games) ? mine.games.filter(atRisk).length : 0;
  if (live && !confirm(`Sign out? Your ${live} live game${live === 1 ? '' : 's'} go${live === 1 ? 'es' : ''} on: `
    + 'one with a clock, against a bot, or any of a guest\'s is lost by abandonment unless you come back '
    + 'within the server\'s grace (a minute by default).')) return;
  const r = await net.call('logout');
  clearSession();
  sessionStorage.clear();
  show('login');
  // Offline, the server never heard it: the session stands until it expires
  // or the password changes (a page cannot end it without the server).
  status(r.ok ? 'signed out' : 'signed out of this page, but the server could not be told (offline): '
    + 'the session stays valid until it expires or your password changes');
}
$('btn-logout').addEventListener('click', signOut);

// Challenges arrive pushed (`challenge`), and leave by `challenge_cancelled`.
// Each one's item kept by its offer (never looked up by an element id made
// from the wire: an offer "user" would find the page's own #challenge-user).
const challengeItems = new Map();
function clearChallenges() {
  challengeItems.clear();
  $('challenges').replaceChildren();
}
function dropChallenge(offer) {
  challengeItems.get(offer)?.remove();
  challengeItems.delete(offer);
}
function addChallenge(ev) {
  if (ev.to !== undefined && ev.user === state.user) return;   // my own, to someone else
  const li = document.createElement('li');
  const asks = ev.rematch ? `asks for a rematch of game ${ev.rematch}` : 'challenges you';
  li.append(who(ev.user), `${ev.bot ? ' (a bot)' : ''} ${asks}: ${ev.rules} ${timeText(ev.time)}, `, who(ev.user),
    ` plays ${ev.color}${ev.rated ? ', rated' : ''} `);
  // Answered, it goes; refused, the refusal is said and it stays while it
  // stands (its withdrawal, challenge_cancelled, takes it away).
  const gone = (r) => { if (r.ok || r.error.code === 'no_such_offer') dropChallenge(ev.offer); };
  li.append(button('Accept', async () => gone(await acceptOffer(ev.offer)), { accept: ev.offer }, `Accept ${ev.user}'s challenge`),
    button('Decline', async () => {
      const r = await net.call('decline', { offer: ev.offer });
      if (!r.ok) status(r.error.message);
      gone(r);
    }, { decline: ev.offer }, `Decline ${ev.user}'s challenge`));
  dropChallenge(ev.offer);
  challengeItems.set(ev.offer, li);
  $('challenges').appendChild(li);
}
// The terms of the seek form, for a seek or a challenge: the time control
// chosen (a clock, days a move, or none: no "time").
function terms() {
  const t = { rules: $('rules').value, color: $('color').value };
  // rated games are registered accounts' (the server says so to a guest):
  // the page had no way to ask for one (the browser probe)
  if ($('rated').checked) t.rated = true;
  if ($('tc').value === 'clock') t.time = { base: +$('base').value * 60, inc: +$('inc').value };
  if ($('tc').value === 'days') t.time = { days: +$('days').value };
  return t;
}
// A field of another time control is hidden and disabled: a bad value left
// in it no longer holds the form back, silently (the correspondence probe:
// "Seek a game" did nothing for an increment of 1.2 under "days a move").
const tcShown = () => {
  for (const [id, on] of [['base', 'clock'], ['inc', 'clock'], ['days', 'days']]) {
    $(id).parentElement.hidden = $(id).disabled = $('tc').value !== on;
  }
};
$('tc').addEventListener('change', tcShown);
tcShown();

// A tournament director (umpire or admin) starts a game between two players
// online, on the seek form's terms; the colours are the fields'.
$('pair-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  if (!$('seek-form').reportValidity()) return;   // its terms, as a challenge's
  const { color, ...t } = terms();
  // the tournament and round, when given, name the game's PGN Event and Round
  const tournament = $('pair-tournament').value.trim();
  const round = $('pair-round').value.trim();
  const r = await net.call('pair', { white: $('pair-white').value.trim(), black: $('pair-black').value.trim(), ...t,
    ...(tournament && { tournament }), ...(round && { round }) });
  status(r.ok ? `paired: game ${r.game}` : r.error.message);
  // the new game among Live games and its players' counts in Online (the
  // page probe: both stale after a pairing)
  if (r.ok) { refreshLive(); refreshWho(); }
});
// A director's public note to every live game of a tournament (of one
// round, when given): the director probe ran an evening from the page,
// which could speak to one board at a time only.
$('tnote-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const round = $('tnote-round').value.trim();
  const text = $('tnote-text').value.trim();
  const r = await net.call('tournament_note', { tournament: $('tnote-tournament').value.trim(), text, ...(round && { round }) });
  if (!r.ok) { status(r.error.message); return; }
  status(`note sent to game${r.games.length === 1 ? '' : 's'} ${r.games.join(', ')}`);
  if ($('tnote-text').value.trim() === text) $('tnote-text').value = '';
});
$('challenge-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  // its terms are the seek form's, checked as a seek's are (the
  // correspondence probe: Days 0 sent, the server's wire words shown)
  if (!$('seek-form').reportValidity()) return;
  const r = await net.call('challenge', { user: $('challenge-user').value.trim(), ...terms() });
  status(r.ok ? `challenge sent (offer ${r.offer})` : r.error.message);
  if (r.ok) refreshSeeks();   // listed at once, as one's seek is
});

// How many watch a game (`live`, a game's view): ", 2 watching", or nothing.
const watching = (g) => (g.spectators > 0 ? `, ${g.spectators} watching` : '');

// Live games: watch any; the umpire's chair for umpires and admins (shown
// to them only; the server refuses anyone else, and the page says why).
async function refreshLive() {
  const r = await net.callAll('live', {}, 'games');
  const chair = (g) => {
    const b = button('Umpire', () => watch.open(g.game, 'umpire'), { umpire: g.game }, `Umpire game ${g.game}`);
    b.classList.add('staff-only');
    return b;
  };
  fill('live', r.games, (g) => [`Game ${g.game}: ${g.white}${botMark(g, 'white')} – ${g.black}${botMark(g, 'black')} (${g.rules}${g.rated ? ', rated' : ''}${tagsText(g)}), `
    + `move ${Math.floor(g.ply / 2) + 1}, ${g.to_move} to move${g.paused === true ? ' (paused by the umpire)' : g.adjourned === true ? ' (adjourned)' : ''}${watching(g)} `,
    ...(g.white !== state.user && g.black !== state.user
      ? [button('Watch', () => watch.open(g.game, 'spectator'), { watch: g.game }, `Watch game ${g.game}`), chair(g)] : [])]);
}
$('btn-live').addEventListener('click', refreshLive);

// A game of a history list: the record in each view one may read (a live
// game only one's own), the PGN, and for one's own Play or Rematch.
function gameRow(g) {
  const mine = g.white === state.user ? 'white' : g.black === state.user ? 'black' : null;
  const views = g.live ? [mine] : ['white', 'black', 'umpire'];
  return [`Game ${g.game}: ${g.white}${botMark(g, 'white')} – ${g.black}${botMark(g, 'black')} (${g.rules}) ${g.live ? 'in progress' : ending(g.result, g.reason)} `,
    // A live game of one's own is played from here: the page shows one game
    // at a time, and a login's game_state of each leaves the last one shown.
    ...(!mine ? [] : g.live ? [playButton(g.game)]
      : [button('Rematch', () => rematch(g.game), { rematch: g.game }, `Rematch game ${g.game}`)]),
    ...views.map((v) => button(`${v} record`, () => records.open(g.game, v), { record: g.game, view: v },
      `${v} record of game ${g.game}`)),
    button('PGN', async () => {
      records.game = g.game;
      records.view = g.live ? mine : 'umpire';
      await records.downloadPgn();
    }, { pgn: g.game }, `PGN of game ${g.game}`)];
}

// One's games.
async function refreshHistory() {
  const r = await net.call('history', { limit: 20 });
  fill('history', r.games, gameRow);
}
$('btn-history').addEventListener('click', refreshHistory);

// One's own game, shown from its view (`game`: the shape of a game_state).
async function openGame(game) {
  const r = await net.callAll('game', { game }, 'events');
  if (!r.ok) { status(r.error.message); return; }
  if (!validGame(r)) return;
  if (r.live !== false) watch.drop();   // one game at a time: a seat watched is given up for it
  enterGame(r);
}
$('seek-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await net.call('seek', terms());
  // A seek that meets an open one starts the game (its game_start opens it).
  status(!r.ok ? r.error.message : r.game ? `your seek met offer ${r.offer}: game ${r.game}` : `seeking (offer ${r.offer})`);
  refreshSeeks();
});

// Listed; and said to a screen reader when it arrives (not the record read when the game is opened).
const say = (ev, live) => { const li = announce($('announcements'), ev); if (live) speak(li); };

// A game's view as the page can show it: a broken server's (a `fen` not a
// string, `events` not a list) is left alone, the page as it was.
const validGame = (g) => Number.isSafeInteger(g.game) && (g.color === 'white' || g.color === 'black')
  && (g.fen === undefined || typeof g.fen === 'string')
  && (g.events === undefined || (Array.isArray(g.events) && g.events.every(isEvent)));
const isEvent = (ev) => ev !== null && typeof ev === 'object' && typeof ev.event === 'string';

// The opponent away (PROTOCOL.md, Presence): `until`, their deadline (ms
// since the epoch, by this computer's clock), or null when the game has none.
const awayUntil = (x) => ({ until: awayDeadline(x, Date.now()) });

// started: a game_start's (not a login's or a reconnection's game_state,
// nor a game opened from the lobby).
function enterGame(g, started = false) {
  clearTimeout(yourMoveTimer);
  turnPending = false;
  // said again for another game, not for the same one again (a reconnection)
  if (lowSaidGame !== g.game) { lowSaid = Infinity; lowSaidGame = g.game; }
  closePromo();   // a promotion chosen for the game shown before
  // one's own game shown: a reload comes back to it, not to a seat watched
  // before (a review: the seat kept was opened over the game)
  watch.forget();
  myColors.set(g.game, g.color);
  state.game = g.game;
  state.color = g.color;
  state.opponent = g.color === 'white' ? g.black : g.white;
  state.clock = g.clock || null;
  state.toMove = g.live === false ? null : g.to_move || 'white';
  state.rules = g.rules;
  state.hands.reset();
  $('hands').hidden = g.rules !== 'crazykrieg';
  $('possible').hidden = true;
  state.timed = !!(g.time && g.time.base);   // only a clock's game is adjourned
  state.days = byDays(g);                    // correspondence: the clock runs out on a date
  state.plies = 0;                            // half-moves played (its events say; Abort's)
  state.ownPly = 0;                           // the ply of one's own last move (lostTry)
  state.adjourned = false;
  state.paused = false;
  state.drawOffer = null;
  state.adjournOffer = null;
  state.ticked = performance.now();
  board.color = g.color;
  board.pieces = fenPieces(g.fen || 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', g.color);
  board.ghosts = new Map();
  $('announcements').replaceChildren();
  // who watches it, as the view says when the game is opened (a reload, a reconnection tells it again)
  $('game-title').textContent = `Game ${g.game}: ${g.white}${botMark(g, 'white')} – ${g.black}${botMark(g, 'black')} (${g.rules}${g.rated === true ? ', rated' : ''}${tagsText(g)}), you play ${g.color}${g.live !== false ? watching(g) : ''}`;
  // how to write what only this rule set has (a drop was never said: the
  // second browser probe)
  const help = { nost: 'Several tries separated by commas: a preference list; "If quiet" plays them on your following turns while nothing happens.',
    crazykrieg: 'A drop from your reserve: the man\'s letter, @ and the square (N@f3, P@e6).' }[g.rules];
  $('move-help').textContent = help || '';
  $('move-help').hidden = !help;
  // a game lost by staying away: one with a clock (not by correspondence)
  // or against a bot (the page newcomer probe lost an untimed one against
  // the bot after a minute on another page, unwarned)
  state.lostIfAway = !state.days && (state.timed || !!botMark(g, opponentColor()));   // (turn() shows it)
  const over = started && !$('game').hidden && $('game-title').dataset.game !== String(g.game);
  $('game-title').dataset.game = String(g.game);
  show('game');
  // a new game over the one shown (a rematch from its page): its heading
  // takes the focus, as a view shown does (the a11y probe: left on a1)
  if (over) $('game-title').focus({ preventScroll: true });
  status(playingLine());
  (g.events || []).forEach((ev) => gameEvent(ev, false));
  // The state as the server has it now: an umpire's pause, an adjournment,
  // the offers standing (answered with the buttons turn() shows).
  state.adjourned = !!g.adjourned;
  state.paused = !!(g.paused || g.adjourned);
  state.drawOffer = g.live !== false && g.draw_offer ? g.draw_offer : null;
  state.adjournOffer = g.live !== false && g.adjourn_offer ? g.adjourn_offer : null;
  state.away = g.live !== false && g.opponent_away && typeof g.opponent_away === 'object' ? awayUntil(g.opponent_away) : null;
  board.render();
  turn();
}

// The square of the man a capture took from us: the square announced, but
// gollon's en passant names the capturing pawn's landing square, and our
// pawn stood behind it (RULESETS.md, gollon), one rank nearer its captor.
function lostSquare(ev) {
  if (!ev.en_passant) return ev.square;
  const rank = +ev.square[1] + (ev.by === 'white' ? -1 : 1);
  return ev.square[0] + rank;
}

function gameEvent(ev, live = true) {
  if (['move', 'moved', 'illegal', 'impossible', 'game_over'].includes(ev.event)) $('possible').hidden = true;   // stale
  // The position changed under a promotion being chosen: the try is another now.
  if (['move', 'moved', 'capture', 'drop', 'game_over'].includes(ev.event)) closePromo();
  if (ev.event === 'move' && ev.by === state.color && ev.move) board.applyOwn(ev.move);
  if (state.rules === 'crazykrieg') state.hands.event(ev);
  if (ev.event === 'capture' && ev.by !== state.color && ev.square) board.lose(lostSquare(ev));
  offerEvent(ev);
  presenceEvent(ev);
  if (ev.clock) { state.clock = ev.clock; state.ticked = performance.now(); }
  if (ev.event === 'move' || ev.event === 'moved') state.toMove = ev.by === 'white' ? 'black' : 'white';
  if ((ev.event === 'move' || ev.event === 'moved') && Number.isInteger(ev.ply)) state.plies = Math.max(state.plies, ev.ply);
  if (ev.event === 'move' && ev.by === state.color && Number.isInteger(ev.ply)) state.ownPly = Math.max(state.ownPly, ev.ply);
  // a refusal said goes with the next answer of one's own too: a refused
  // try's announcement, "any?"'s answer (the page newcomer probe: "a pawn
  // capture must be tried first" stayed up through four tries answered)
  if (live && (['moved', 'game_over'].includes(ev.event) || ownAnswer(ev))) refusalDone();
  if (ev.event === 'game_over') state.toMove = null;
  // the game's own line no longer says it is played (the director probe: an abort left "playing game 1")
  if (live && ev.event === 'game_over' && $('status').textContent === playingLine()) {
    status(`signed in as ${state.user}, game ${state.game} is over`);
  }
  // The end is the one moment a player sees the other side's men: the
  // true position, as a spectator's board shows it (the endings probe).
  if (ev.event === 'game_over' && typeof ev.fen === 'string') { board.pieces = fenPieces(ev.fen, null); board.ghosts = new Map(); }
  if (ev.event === 'clock_paused') state.paused = true;
  if (ev.event === 'clock_unpaused') state.paused = false;
  if (ev.event === 'adjourned') { state.paused = true; state.adjourned = true; }
  if (ev.event === 'unadjourned') { state.paused = false; state.adjourned = false; }
  say(ev, live);
  if (live) spokenTurn(ev);
  // The opponent's offer is answered with the buttons turn() shows, never
  // a modal question (offers sent one after another would hold the page,
  // and Enter would accept).
  if (live) { board.render(); turn(); }
}

// What a screen reader is told beyond the announcements (the a11y probe):
// "Your move" once the opponent's move and what it brought are all in (no
// event of the game for a moment after it), and an opponent's leaving with
// the deadline ("Black is away: back by ...", which #away shows and counts
// down, not live).
// The turn is pending from the opponent's move (or the clocks' restart)
// until it is said or one acts; every event of the game meanwhile (the
// move's capture, a drop, a draw offer, nost's quiet_ended) waits again
// (a review: the last event decided, and a draw offer after the move, or
// crazykrieg's drop, left it unsaid).
let yourMoveTimer = null, turnPending = false;
function spokenTurn(ev) {
  clearTimeout(yourMoveTimer);
  if (ev.event === 'opponent_away' && ev.color !== state.color && state.away) {
    speakText(awayText(ev.color, state.away.until, Date.now(), state.days));
  }
  if (['moved', 'unadjourned', 'clock_unpaused'].includes(ev.event)) turnPending = true;
  if (ev.event === 'game_over' || ownAnswer(ev)) turnPending = false;
  if (!turnPending || state.toMove !== state.color || state.paused) return;
  const game = state.game;
  yourMoveTimer = setTimeout(() => {
    if (!turnPending || state.game !== game || state.toMove !== state.color || state.paused) return;
    turnPending = false;
    speakText('Your move');
  }, 300);
}

// The opponent away, and back (the game's end forgets it).
function presenceEvent(ev) {
  if (ev.event === 'opponent_away' && ev.color !== state.color) {
    // told again while away: its deadline changed (a pause, the server
    // stood still), not a second leaving (words.js; the browser probe)
    if (state.away !== null) ev.again = true;
    state.away = awayUntil(ev);
  }
  if (ev.event === 'opponent_back' || ev.event === 'game_over') state.away = null;
}

// The draw and adjourn offers standing in the game shown: one stands until
// it is answered or the other side moves (PROTOCOL.md, draw and adjourn).
function offerEvent(ev) {
  if (ev.event === 'draw_offer') state.drawOffer = ev.by;
  if (ev.event === 'adjourn_offer') state.adjournOffer = ev.by;
  if (['draw_declined', 'game_over'].includes(ev.event)) state.drawOffer = null;
  if (['adjourn_declined', 'adjourned', 'game_over'].includes(ev.event)) state.adjournOffer = null;
  if (ev.event === 'move' || ev.event === 'moved') {
    if (state.drawOffer !== null && ev.by !== state.drawOffer) state.drawOffer = null;
    if (state.adjournOffer !== null && ev.by !== state.adjournOffer) state.adjournOffer = null;
  }
}

// What the welcome listed of a game, forgotten once the game says
// otherwise (the correspondence probe: "your move" after one's move, an
// offer declined or a game ended still listed, even after a reconnection
// that brought no welcome).
function welcomeForget(ev) {
  const w = state.welcome;
  if (!w || ev.game === undefined) return;
  let dropped = false;
  const drop = (key, f = () => true) => {
    const keep = list(w[key]).filter((x) => x.game !== ev.game || !f(x));
    dropped ||= keep.length !== list(w[key]).length;
    w[key] = keep;
  };
  if (ev.event === 'game_over') { drop('your_move'); drop('draw_offers'); }
  if (ev.event === 'move' && ev.by === myColors.get(ev.game)) drop('your_move');
  if (['move', 'moved'].includes(ev.event)) drop('draw_offers', (x) => x.by !== ev.by);   // lapsed
  if (ev.event === 'draw_declined') drop('draw_offers');
  if (dropped) showWelcome();
}

function onEvent(ev) {
  welcomeForget(ev);
  if (ev.event === 'game_start') {
    // A game going on on screen stays there (the director probe: a pairing
    // took a player's page from a game whose clock ran): said, and played
    // from Your games; any other view, or a game this page asked for (its
    // accept, seek or rematch waits), gives way to the new game.
    if (!$('game').hidden && state.game !== null && state.toMove !== null && state.game !== ev.game
        && !net.asking('accept', 'seek', 'rematch')) {
      if (ev.color === 'white' || ev.color === 'black') myColors.set(ev.game, ev.color);
      note(`Game ${ev.game} began: `, who(ev.white), ' – ', who(ev.black), ` (${ev.rules}); play it from Your games in the lobby`);
      return;
    }
    // a seat watched is given up for it (watch.drop); not at a login's or
    // a reconnection's game_state, which bring back what was shown
    watch.drop();
    net.call('game', { game: ev.game }).then((g) => { if (g.ok && validGame(g)) enterGame(g, true); });
    return;
  }
  if (ev.event === 'game_state') { if (validGame(ev)) enterGame(ev); return; }
  if (ev.event === 'game_events') {
    // the rest of the game shown's record (a broken server's, not a list, ignored)
    if (ev.game !== state.game || !Array.isArray(ev.events) || !ev.events.every(isEvent)) return;
    ev.events.forEach((e) => gameEvent(e, false));
    board.render();
    turn();
    return;
  }
  if (ev.event === 'welcome') {
    // (the ended lines a reconnection kept, and this login's)
    state.welcome = { ...ev, ended: [...list(state.welcome?.ended), ...list(ev.ended)] };
    showWelcome();
    // The page may open a game instead of the lobby: what ended meanwhile
    // is said in the log too, which every view shows.
    list(ev.ended).forEach((x) => note(`Game ${x.game} against `, who(x.opponent),
      ` ended while you were away: ${ending(x.result, x.reason)}`));
    // and the games waiting for one, when a game is shown over the lobby's
    // list (the correspondence probe: signed in, the page showed the last
    // game, and the one with one's move and an offer was nowhere in sight)
    const theirs = list(ev.draw_offers).filter((x) => x.by !== myColors.get(x.game));
    const waiting = [...new Set([...list(ev.your_move), ...theirs].map((x) => x.game))]
      .filter((g) => g !== state.game && Number.isSafeInteger(g) && !waitingSaid.has(g));
    waiting.forEach((g) => waitingSaid.add(g));   // once a session, not at each reconnection
    if ($('lobby').hidden && waiting.length) {
      note(`Waiting for you in game${waiting.length === 1 ? '' : 's'} ${waiting.join(', ')}: your move or an offer; `
        + 'the lobby lists them');
    }
    return;
  }
  if (ev.event === 'game_flagged') {
    state.flagged.set(ev.game, typeof ev.reason === 'string' ? ev.reason : '');
    showWelcome();
    note(`Game ${ev.game} is flagged: its record failed its check, and it is not played on`);
    return;
  }
  if (ev.event === 'ping') { net.call('ping'); return; }
  if (ev.event === 'challenge') {
    // said again at each login while it stands: said once
    const known = challengesSaid.has(ev.offer);
    challengesSaid.add(ev.offer);
    addChallenge(ev);
    // Asked while the finished game is on screen: its Rematch button takes it.
    if (ev.rematch !== undefined && ev.rematch === state.game) status(`${ev.user} asks for a rematch: press Rematch to play`);
    // Elsewhere out of the lobby, said, with where to answer it (the a11y
    // probe: a challenge during a game was heard nowhere).
    else if (!known && $('lobby').hidden && !(ev.to !== undefined && ev.user === state.user)) {
      note(who(ev.user), ev.rematch !== undefined ? ` asks for a rematch of game ${ev.rematch}; answer it in the lobby`
        : ` challenges you: ${ev.rules} ${timeText(ev.time)}; answer it in the lobby`);
    }
    return;
  }
  if (ev.event === 'challenge_cancelled') {
    dropChallenge(ev.offer);
    if (ev.reason === 'lapsed') status(`challenge ${ev.offer} lapsed unanswered`);
    return;
  }
  // Ours: declined (now, or told at login: `while_away`), or lapsed while we were away.
  const away = ev.while_away ? ' while you were away' : '';
  // With the decliner's words when they gave a reason (a person's: said()).
  // one's offers gone from the list at once (the correspondence probe: a
  // declined challenge stayed, its Accept answered "no such offer")
  if (['challenge_declined', 'offer_lapsed'].includes(ev.event) && !$('lobby').hidden) refreshSeeks();
  if (ev.event === 'challenge_declined') {
    if (typeof ev.reason === 'string' && ev.reason !== '') note(who(ev.by), ` declined your challenge${away}: "`, said(ev.reason), '"');
    else note(who(ev.by), ` declined your challenge${away}`);
    return;
  }
  if (ev.event === 'offer_lapsed') {
    if (ev.user) note('your challenge to ', who(ev.user), ` lapsed unanswered${away}`);
    else note(`your seek lapsed unanswered${away}`);
    return;
  }
  // An admin's notice: their words, quoted.
  if (ev.event === 'notice') { note(who(ev.from), ': ', said(ev.text)); return; }
  // A followed player's game began: watched from the lobby, said elsewhere
  // (also in the lobby while a field of it is being typed in: the page
  // never leaves a half-written form).
  if (ev.event === 'following') {
    const typing = $('lobby').contains(document.activeElement) && /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
    const idle = !$('lobby').hidden && !typing;
    note(who(ev.user), ` began game ${ev.game}: `, who(ev.white), ' – ', who(ev.black), ` (${ev.rules})${idle ? '' : '; watch it from Live games'}`);
    if (idle) watch.open(ev.game, 'spectator');
    return;
  }
  // A followed player came online, or left: said, and the online list redone.
  if (ev.event === 'arrived' || ev.event === 'departed') {
    note(who(ev.user), ` has ${ev.event}`);
    if (!$('lobby').hidden) refreshWho();
    return;
  }
  if (ev.event === 'tell') { note(who(ev.from), ' tells you: "', said(ev.text), '"'); return; }
  if (ev.event === 'message') {
    note('a message from ', who(ev.from), ': "', said(ev.text), '"');
    if (!$('lobby').hidden) refreshMessages();
    return;
  }
  // kriegd stopping (a restart, an upgrade: the ops probe found it said
  // as a lost connection): said, and the close that follows said so (lost)
  if (ev.event === 'server_stopping') {
    stopping = true;
    note('the server is stopping (a restart, or its admin took it down); your games are kept');
    return;
  }
  if (ev.event === 'session_ended' || ev.event === 'account_disabled') {
    ended = true;
    forgetSession();
    const why = ev.event === 'account_disabled' ? 'this account is disabled' : ev.reason || 'no reason given';
    note('the server ended this session: ', said(why), ' — reload to sign in again');
    return;
  }
  // A game's events go to the view showing it: the seat watched (offers
  // there are the players' to answer, never a spectator's or an umpire's),
  // or one's own game shown.
  if (ev.game !== undefined && watch.opening.has(ev.game)) { watch.opening.get(ev.game).push(ev); return; }
  if (ev.game !== undefined && watch.left.has(ev.game) && ev.game !== state.game) return;   // its seat given up
  if (ev.game !== undefined && ev.game === watch.game) { watch.event(ev); return; }
  if (ev.game !== undefined && ev.game === state.game) { gameEvent(ev); return; }
  // Another game of one's own: said in the status line ("Play" it from Your
  // games), an offer with where to answer it, as krieg says "#12: ...";
  // the opponent's words and offers kept in the log too.
  const parts = ev.game !== undefined ? words(ev) : null;
  if (!parts) return;
  const theirs = (ev.event === 'draw_offer' || ev.event === 'adjourn_offer') && ev.by !== myColors.get(ev.game);
  (theirs || ev.event === 'chat' ? note : status)(`Game ${ev.game}: `, ...parts, theirs ? ' — Play it from Your games to answer' : '');
}

function turn() {
  const had = document.activeElement;   // (hiding it, below, takes the focus from it at once)
  // paused by the umpire, said (the page probe: an untimed game paused
  // read "Your move", and only a try was refused with why)
  $('turn').textContent = (state.toMove === null ? 'Game over'
    : state.toMove === state.color ? 'Your move' : "Opponent's move")
    + (!state.paused || state.toMove === null ? '' : state.adjourned ? ' (adjourned)' : ' (the umpire has paused the game)');
  if (state.rules === 'crazykrieg') $('hands').textContent = state.hands.text();
  $('btn-adjourn').hidden = !state.timed || state.adjourned || state.toMove === null;
  $('btn-unadjourn').hidden = !state.adjourned || state.toMove === null;
  $('btn-rematch').hidden = state.toMove !== null;
  // What only a game going on takes: gone once it is over (the third
  // browser probe: Any? stayed beside Rematch).  Any? where the rule set
  // has it (elsewhere the server says "no any?": rules probe), If quiet in
  // nost alone.
  const over = state.toMove === null;
  $('btn-any').hidden = over || !ASKS_ANY.has(state.rules);
  $('btn-quiet').hidden = over || state.rules !== 'nost';
  ['move-form', 'btn-possible', 'btn-draw', 'btn-resign'].forEach((id) => { $(id).hidden = over; });
  // Abort before both sides have moved only (the server refuses it after:
  // the correspondence probe pressed it and was told so)
  $('btn-abort').hidden = over || state.plies >= 2;
  $('grace-note').hidden = over || !state.lostIfAway;
  // The opponent's offer standing: answered here (also after a reload).
  const theirs = (side) => side !== null && side !== state.color && state.toMove !== null;
  $('btn-draw-accept').hidden = $('btn-draw-decline').hidden = !theirs(state.drawOffer);
  $('btn-adjourn-accept').hidden = $('btn-adjourn-decline').hidden = !theirs(state.adjournOffer);
  $('offer').textContent = [theirs(state.drawOffer) ? 'Your opponent offers a draw' : '',
    theirs(state.adjournOffer) ? 'Your opponent offers to adjourn (the clocks stop until you both resume)' : '']
    .filter(Boolean).join('; ');
  $('offer').hidden = !$('offer').textContent;
  $('btn-truth').hidden = state.toMove !== null;   // a finished game's umpire view is everyone's
  // From another tab, the tab's title says whose move it is.
  document.title = `${state.toMove !== null && state.toMove === state.color ? '(your move) ' : ''}${TITLE}`;
  // A button that had the focus and is now hidden (an offer answered,
  // Adjourn once adjourned): the focus goes to the board, not to the top of the page.
  if (had && had !== document.body && !$('game').hidden && $('game').contains(had) && had.closest('[hidden]')) board.focus();
}

// The promotion chooser, for one try: gone once the try is made otherwise,
// the position changes or another game is shown (a later click on Queen
// would send a try nobody meant).  Chosen from the board with the keyboard,
// it takes the focus, and gives it back to the board when it goes.
function closePromo() {
  promoPending = null;
  const had = $('promo').contains(document.activeElement);
  $('promo').hidden = true;
  if (had) board.focus();
}
// A try's refusal said in the status line (its text), until the game moves
// on: then the game's line again (the third browser probe: "a pawn capture
// must be tried first" stayed to the end of the game).
let refusal = null;
// A line of the status line that goes with the game's next answer (refusalDone).
const transient = (...parts) => { status(...parts); refusal = $('status').textContent; };
const refused = (r) => transient(r.error.message);
const refusalDone = () => {
  if (refusal !== null && $('status').textContent === refusal) status(playingLine());
  refusal = null;
};
async function tryMove(uci, promotes) {
  if (promotes) {
    promoPending = uci;
    $('promo').hidden = false;
    if ($('board').contains(document.activeElement)) $('promo').querySelector('button').focus();
    return;
  }
  await sendTry({ move: uci }, uci);
}
$('promo').addEventListener('click', (e) => {
  const p = e.target.dataset.p;
  if (!p || !promoPending) return;
  const uci = promoPending + p;
  closePromo();
  tryMove(uci, false);
});
$('promo').addEventListener('keydown', (e) => { if (e.key === 'Escape') closePromo(); });
// Several tries separated by commas (or spaces) are a preference list (nost).
const typedMoves = () => $('move').value.split(/[,\s]+/).map((s) => s.trim()).filter(Boolean);
// The answer clears the text it answered, not what was typed since: the
// next try may be typed before this one's answer arrives.
const clearSent = (text) => { if ($('move').value === text) $('move').value = ''; };
$('move-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const text = $('move').value, moves = typedMoves();
  if (!moves.length) return;
  closePromo();
  await sendTry(moves.length > 1 ? { moves } : { move: moves[0] }, text);
});
// An "if quiet" sequence (nost): the first now, the rest on the following turns.
$('btn-quiet').addEventListener('click', async () => {
  const text = $('move').value, moves = typedMoves();
  if (!moves.length) return;
  closePromo();
  const r = await net.call('quiet', { game: state.game, moves });
  if (!r.ok) refused(r); else { clearSent(text); status(`if quiet: ${moves.join(' ')}`); }
});
// A request about the game shown; a refusal is said (an abort after both
// have moved, an adjournment of an untimed game...), never dropped.
const act = (type, fields = {}) => async () => {
  const r = await net.call(type, { game: state.game, ...fields });
  if (!r.ok) refused(r);   // (gone with the next answer: refusalDone)
};
// An answer to the opponent's offer in the game shown; refused (the offer
// lapsed meanwhile: they moved, or withdrew by resigning...) it is said.
const answer = (type, action) => act(type, { action });
$('btn-draw-accept').addEventListener('click', answer('draw', 'accept'));
$('btn-draw-decline').addEventListener('click', answer('draw', 'decline'));
$('btn-adjourn-accept').addEventListener('click', answer('adjourn', 'accept'));
$('btn-adjourn-decline').addEventListener('click', answer('adjourn', 'decline'));
// The tries still open this turn as seen from one's own men (refused ones
// left out): the server's list, in SAN as the announcements write moves
// (the newcomer probe: "g1f3" beside "Nf3"), the king's first, the pawns'
// after the pieces', drops last (as krieg's `possible` groups them).
const TRY_ORDER = (t) => (t.includes('@') ? 7 : t[0] === 'O' ? 0 : 'KQRBN'.indexOf(t[0]) + 1 || 6);
$('btn-possible').addEventListener('click', async () => {
  const r = await net.call('possible', { game: state.game });
  if (!r.ok) { status(r.error.message); return; }
  const tries = (Array.isArray(r.san) ? [...r.san] : r.moves).sort((x, y) => TRY_ORDER(x) - TRY_ORDER(y));
  $('possible').textContent = tries.length ? `You may try: ${tries.join(' ')}`
    : state.toMove === state.color ? 'You may try: nothing' : 'You may try: nothing now (it is their move)';
  $('possible').hidden = false;
  // said in a word, the list itself where the focus goes (the a11y probe:
  // the answer appeared, silent, away from the button)
  transient(`${r.moves.length} possible ${r.moves.length === 1 ? 'try' : 'tries'}`);
  $('possible').focus();
});
$('btn-any').addEventListener('click', act('any'));
// Words to the opponent (PROTOCOL.md "Chat"): kept in the box if refused.
$('say-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const text = $('say-text').value.trim();
  if (!text) return;
  const r = await net.call('say', { game: state.game, text });
  if (!r.ok) status(r.error.message); else if ($('say-text').value.trim() === text) $('say-text').value = '';
});
$('btn-mute').addEventListener('click', confirmed('Mute your opponent (their words and challenges, until you unmute them)',
  () => setMute(state.opponent, true)));
$('btn-draw').addEventListener('click', confirmed('Offer a draw', act('draw', { action: 'offer' })));
$('btn-resign').addEventListener('click', confirmed('Resign', act('resign')));
$('btn-abort').addEventListener('click', confirmed('Abort the game', act('abort')));
$('btn-adjourn').addEventListener('click', confirmed('Offer to adjourn (the clocks stop)', act('adjourn', { action: 'offer' })));
$('btn-unadjourn').addEventListener('click', act('unadjourn'));
// The same game again, colours swapped: a challenge to the opponent, or
// (they asked first) the game itself, which its game_start opens.
async function rematch(game) {
  const r = await net.call('rematch', { game });
  if (!r.ok) status(r.error.message); else if (r.game === undefined) status(`rematch offered (offer ${r.offer})`);
}
$('btn-rematch').addEventListener('click', () => rematch(state.game));
$('btn-truth').addEventListener('click', () => records.open(state.game, 'umpire'));
$('btn-lobby').addEventListener('click', () => { state.game = null; toLobby(); });
const opponentColor = () => (state.color === 'white' ? 'black' : 'white');
// An answer to one's own try or "any?" in the game shown.
const ownAnswer = (ev) => ev.by === state.color && ['move', 'illegal', 'impossible', 'any'].includes(ev.event);

// One's own clock running low, said at 30 and at 10 seconds (the a11y
// probe: the first word of it was "lost on time"); said again after time
// came back above 30 (an increment, time added).
let lowSaid = Infinity, lowSaidGame = null;
function lowTime(ms, running) {
  if (ms > 30000) { lowSaid = Infinity; return; }
  const mark = ms > 10000 ? 30000 : 10000;
  if (!running || ms <= 0 || lowSaid <= mark) return;
  lowSaid = mark;
  speakText(`${fmtClock(ms)} left on your clock`);
}

setInterval(() => {
  const away = state.away && state.toMove !== null ? awayText(opponentColor(), state.away.until, Date.now(), state.days) : '';
  if ($('away').textContent !== away) $('away').textContent = away;
  $('away').hidden = !away;
  // An untimed game has no clock: none shown (not the last game's).
  if (!state.clock) {
    for (const side of ['white', 'black']) { $(`clock-${side}`).textContent = ''; $(`clock-${side}`).classList.remove('tomove'); }
    return;
  }
  const el = state.paused ? 0 : performance.now() - state.ticked;
  for (const side of ['white', 'black']) {
    const ms = state.clock[side] - (side === state.toMove ? el : 0);
    const e = $(`clock-${side}`);
    // a correspondence move's clock also as the date it runs out (the
    // correspondence probe: only counted down, "1d 23:59")
    const due = state.days && side === state.toMove && !state.paused && ms > 0 ? `, runs out ${localStamp(Date.now() + ms)}` : '';
    e.textContent = `${side} ${fmtClock(ms)}${state.paused ? ' (paused)' : ''}${due}`;
    e.classList.toggle('tomove', side === state.toMove);
    // the game shown only (the review: a game left for the lobby, or ended, was counted down)
    if (side === state.color && state.game !== null && !$('game').hidden) {
      lowTime(ms, side === state.toMove && !state.paused);
    }
  }
}, 250);

// A close has said why and when it tries again (lost); anything else is said here.
start().catch((e) => { if (!(e instanceof CloseEvent) && !(e && e.silent)) status('could not connect'); });
